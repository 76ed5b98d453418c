/**
 * Alpha sell orders check prov_id / area_id against the real region data,
 * over real HTTP with real signatures: good codes create the order, bad ones
 * are a 400 naming the field and leave nothing behind.
 */
import { describe, expect, it } from 'vitest';
import { clientFor, rowCount, seedMerchant, testListener, testService } from '../../support/service-harness';
import { ALPHA_CARD_BASE, ALPHA_PERSONAL } from '../../support/alpha-fixtures';

const personal = ALPHA_PERSONAL;
const cardBase = ALPHA_CARD_BASE;

async function setup() {
  const service = await testService();
  const listener = await testListener(service);
  const merchant = await seedMerchant(service, 'Region Merchant', { balance: 100_000_000 });
  const client = clientFor(listener, merchant);
  const sell = (prov_id: string, area_id: string) =>
    client.createOrder({
      order_type: 2,
      cny_amount: '10.00',
      paychannel_id: merchant.channels.alpha,
      paychannel_paymethod: 'bank',
      alpha_personal_data: personal,
      alpha_card_info: { ...cardBase, prov_id, area_id },
    });
  return { service, sell };
}

describe('alpha sell region validation', () => {
  it('accepts a province code with one of its city codes, and records the place', async () => {
    const { service, sell } = await setup();
    const cases: [string, string, string][] = [
      ['110000', '110100', '北京市'],
      ['500000', '500100', '重庆市'],
      ['420000', '429004', '湖北省仙桃市'],
      ['440000', '441900', '广东省东莞市'],
      ['650000', '659001', '新疆维吾尔自治区石河子市'],
    ];
    for (const [prov, area, place] of cases) {
      const res = await sell(prov, area);
      expect(res.status, `${prov}/${area}`).toBe(200);
      expect(res.body.code).toBe(1);
      const data = res.body.data as { status: string; customer_payment_method: { full_info: string } };
      expect(data.status).toBe('pending');
      expect(data.customer_payment_method.full_info.split(' ')).toContain(place);
    }
    expect(await rowCount(service, 'orders')).toBe(cases.length);
  });

  it('refuses codes that are not a province and a city of it, naming the field, leaving nothing behind', async () => {
    const { service, sell } = await setup();
    const paymentMethodsBefore = await rowCount(service, 'payment_methods');
    const cases: [string, string, string][] = [
      ['999999', '110100', 'alpha_card_info.prov_id: 999999 is not a province code'],
      ['110100', '110100', 'alpha_card_info.prov_id: 110100 is not a province code; it is the city 北京市 of 北京市 (province code 110000)'],
      ['810000', '810100', 'alpha_card_info.prov_id: 810000 is not a province code'],
      ['110000', '320100', 'alpha_card_info.area_id: 320100 is not a city of province 110000 (北京市); it is the city 南京市 of 江苏省 (province code 320000)'],
      ['110000', '110101', 'alpha_card_info.area_id: 110101 is not a city of province 110000 (北京市); it is the district 东城区 of 北京市 北京市 (city code 110100)'],
      ['420000', '420000', 'alpha_card_info.area_id: 420000 is not a city of province 420000 (湖北省); it is the province 湖北省'],
      ['320000', '320576', 'alpha_card_info.area_id: 320576 is not a city of province 320000 (江苏省); no division has this code'],
      ['500000', '500200', 'alpha_card_info.area_id: 500200 is not a city of province 500000 (重庆市); no division has this code'],
    ];
    for (const [prov, area, msg] of cases) {
      const res = await sell(prov, area);
      expect(res.status, `${prov}/${area}`).toBe(400);
      expect(res.body).toEqual({ code: 1001, msg, data: null });
    }
    // The format rule comes first, from the schema.
    const short = await sell('11000', '110100');
    expect(short.status).toBe(400);
    expect(short.body.msg).toBe('alpha_card_info.prov_id: must be a 6-digit province code');

    expect(await rowCount(service, 'orders')).toBe(0);
    expect(await rowCount(service, 'payment_methods')).toBe(paymentMethodsBefore);
  });
});
