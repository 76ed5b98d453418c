import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { VueWrapper } from '@vue/test-utils';
import { IDBFactory } from 'fake-indexeddb';
import SellOrder from '../../../src-renderer/views/sell-order/index.vue';
import { createRegionCacheStore } from '../../../src-renderer/region-cache/region-cache';
import { setRegionCacheFactory } from '../../../src-renderer/stores/region-store';
import { ErrorCode } from '../../../src-shared/errors';
import type { RegionTree } from '../../../src-shared/schemas/region-api';
import { residentIdCheckChar } from '../../../src-shared/validation/rules';
import { fakeBridge, ServiceError, type FakeHandlers } from '../support/fake-bridge';
import { approval, channel, MERCHANT, OWNER_SESSION } from '../support/fixtures';

const sessionAfter = () => OWNER_SESSION;
import { feedbackTexts, mountPage, settle, submitForm, typeInto, unmountAll } from '../support/mount-page';
import { chooseIn } from '../support/interact';

const TREE: RegionTree = {
  北京市: { val: '110000', items: { 北京市: { val: '110100', items: { 东城区: '110101' } } } },
  湖北省: { val: '420000', items: { 武汉市: { val: '420100', items: { 江岸区: '420102' } }, 仙桃市: { val: '429004', items: { 仙桃市: '429004' } } } },
};
const ID = (() => {
  const first17 = '11010519900307123';
  return first17 + residentIdCheckChar(first17);
})();

function handlers(extra: FakeHandlers = {}): FakeHandlers {
  return {
    listMerchants: () => [MERCHANT],
    listPayChannels: () => ({
      list: [channel({ id: 1, category: 'alpha', pay_methods: ['bank'] }), channel({ id: 2, category: 'beta', pay_methods: ['alipay'] })],
      total: 2,
    }),
    getBalances: () => ({ available: 10_130, frozen: 0, deposit: 0 }),
    getRegionData: () => ({ etag: '"r1"', tree: TREE, not_modified: false, source: { package: 'x', integrity: 'y', vintage: 'z' }, counts: { provinces: 2, cities: 3, districts: 3 } }),
    requestWithdrawal: (req) => ({
      approval: null,
      done: {
      order_id: '7',
      order_no: 'S2026112111300012345678',
      status: 'pending',
      order_type: 2,
      cny_amount: String(req.cny_amount),
      payment_method_id: 3,
      payment_method_snapshot: { bank: '', sub_bank: '', card_number: '622202*********3445', real_name: '李四' },
      merchant_amount: String(req.cny_amount),
      passage_rate: '0.002',
      passage_amount: 20,
      deposit_rate: 50,
      deposit_amount: 50,
      service_amount: 60,
      channel_amount: 30,
      merchant_actual_amount: 10_130,
      base_rate: 30,
      customer_payment_method: { bank: '', sub_bank: '', card_number: '622202*********3445', real_name: '李四', full_info: '李四' },
      createtime: 1767225600,
      },
    }),
    ...extra,
  };
}

let wrapper: VueWrapper;
beforeEach(() => {
  const idb = new IDBFactory();
  setRegionCacheFactory(() => createRegionCacheStore(idb));
});
afterEach(unmountAll);

/** Fills every alpha field validly: a long-term resident ID, and the given card type and bank province/city. */
async function fillAlpha(w: VueWrapper, card: { type: string; province: string; city: string }): Promise<void> {
  await typeInto(w, 'pd-name', '李四');
  await typeInto(w, 'pd-cert-no', ID);
  await w.find('[data-test="pd-validity"] [data-validity="1"] input').setValue(true);
  await settle();
  await typeInto(w, 'pd-begin', '2020-03-07');
  await typeInto(w, 'pd-mobile', '13912345678');
  await chooseIn(w, 'card-type', card.type);
  await typeInto(w, 'card-name', '李四');
  await typeInto(w, 'card-no', '6222020200112233445');
  await chooseIn(w, 'card-province', card.province);
  await chooseIn(w, 'card-city', card.city);
}

describe('new sell order form', () => {
  it('shows the available balance and refuses an amount whose debit (amount + fees) exceeds it', async () => {
    const fake = fakeBridge(handlers());
    wrapper = await mountPage(SellOrder, { bridge: fake.bridge, merchantId: 1 });
    await settle();
    expect(wrapper.find('[data-test="sell-available"]').text()).toContain('101.30');
    await chooseIn(wrapper, 'field-channel', 2);
    // 100.01 + 0.60 service + 0.20 channel + 0.50 deposit = 101.31 > 101.30
    await typeInto(wrapper, 'field-amount', '100.01');
    await submitForm(wrapper);
    expect(feedbackTexts(wrapper)).toContain('Exceeds the available balance (101.31 CNY needed, 101.30 CNY available)');
    expect(fake.callsOf('requestWithdrawal')).toEqual([]);

    await typeInto(wrapper, 'field-amount', '100');
    await submitForm(wrapper);
    expect(fake.callsOf('requestWithdrawal')).toEqual([{ merchant_id: 1, order_type: 2, cny_amount: '100.00', paychannel_id: 2, paychannel_paymethod: 'alipay', idempotency_key: expect.any(String) }]);
  });

  it('asks alpha channels for personal data and card info with every rule, and sends both objects', async () => {
    const fake = fakeBridge(handlers());
    wrapper = await mountPage(SellOrder, { bridge: fake.bridge, merchantId: 1 });
    await settle();
    expect(wrapper.find('[data-test="alpha-personal"]').exists()).toBe(true);
    expect(wrapper.find('[data-test="alpha-card"]').exists()).toBe(true);

    await typeInto(wrapper, 'field-amount', '10');
    await typeInto(wrapper, 'pd-cert-no', ID.slice(0, 17) + (ID[17] === '1' ? '2' : '1'));
    await typeInto(wrapper, 'pd-mobile', '1381234');
    await submitForm(wrapper);
    const errors = feedbackTexts(wrapper);
    expect(errors).toEqual(
      expect.arrayContaining([
        'Enter the real name',
        'The ID number’s check digit is wrong',
        'Choose the start of validity',
        'A fixed-term certificate needs an end date',
        'Enter an 11-digit mainland China mobile number',
        'Enter the card holder',
        'Enter the card number',
        'Choose the province',
        'Choose the city',
      ]),
    );
    expect(fake.callsOf('requestWithdrawal')).toEqual([]);

    await fillAlpha(wrapper, { type: '1', province: '420000', city: '429004' });
    // Long-term: the end date disappears and is not sent.
    expect(wrapper.find('[data-test="pd-end"]').exists()).toBe(false);
    await submitForm(wrapper);

    expect(feedbackTexts(wrapper)).toEqual([]);
    expect(fake.callsOf('requestWithdrawal')).toEqual([
      {
        merchant_id: 1,
        order_type: 2,
        cny_amount: '10.00',
        paychannel_id: 1,
        paychannel_paymethod: 'bank',
        idempotency_key: expect.any(String),
        alpha_personal_data: {
          name: '李四',
          cert_type: '00',
          cert_no: ID,
          cert_validity_type: '1',
          cert_begin_date: '20200307',
          mobile_no: '13912345678',
        },
        alpha_card_info: { card_type: '1', card_name: '李四', card_no: '6222020200112233445', prov_id: '420000', area_id: '429004' },
      },
    ]);
    expect(wrapper.find('[data-test="sell-result"]').exists()).toBe(true);
  });

  it('shows the service’s error under the alpha field it names', async () => {
    const fake = fakeBridge(
      handlers({ requestWithdrawal: () => new ServiceError(ErrorCode.VALIDATION, 'alpha_card_info.area_id: 429004 is not a city of province 110000 (北京市)') }),
    );
    wrapper = await mountPage(SellOrder, { bridge: fake.bridge, merchantId: 1 });
    await settle();
    await typeInto(wrapper, 'field-amount', '10');
    await fillAlpha(wrapper, { type: '0', province: '110000', city: '110100' });
    await submitForm(wrapper);
    expect(fake.callsOf('requestWithdrawal')).toHaveLength(1);
    expect(feedbackTexts(wrapper)).toEqual(['429004 is not a city of province 110000 (北京市)']);
  });

  it('a withdrawal above the merchant’s threshold waits for approval: the page shows the request, its changes, its expiry and the way to it', async () => {
    const request = approval({ id: 31, can_decide: false, mine: true, expires_at: 1767312000 });
    const fake = fakeBridge(handlers({ requestWithdrawal: () => ({ done: null, approval: request }), getSession: () => sessionAfter() }));
    wrapper = await mountPage(SellOrder, { bridge: fake.bridge, merchantId: 1 });
    await settle();
    await chooseIn(wrapper, 'field-channel', 2);
    await typeInto(wrapper, 'field-amount', '50');
    await submitForm(wrapper);

    expect(fake.callsOf('requestWithdrawal')).toEqual([{ merchant_id: 1, order_type: 2, cny_amount: '50.00', paychannel_id: 2, paychannel_paymethod: 'alipay', idempotency_key: expect.any(String) }]);
    expect(wrapper.find('[data-test="sell-result"]').exists()).toBe(false);
    const pending = wrapper.find('[data-test="approval-pending"]');
    expect(pending.exists()).toBe(true);
    expect(pending.text()).toContain('Sent for approval');
    expect(wrapper.find('[data-test="approval-pending-title"]').text()).toBe(request.title);
    expect(wrapper.findAll('[data-test="approval-change"]').map((r) => r.text())).toEqual(['Amount paid out—→5000.00', 'Service fee—→30.00', 'Available balance10000.00→4945.00']);
    // Beijing time of 1767312000: 2026-01-02 08:00:00.
    expect(wrapper.find('[data-test="approval-pending-expires"]').text()).toBe('2026-01-02 08:00:00');
    expect(wrapper.find('[data-test="approval-pending-link"]').attributes('href')).toContain('/approvals?id=31');
    // The badge count is asked for again; the funds are reserved meanwhile, so the balance too.
    expect(fake.callsOf('getSession')).toHaveLength(1);
    expect(fake.callsOf('getBalances').length).toBeGreaterThanOrEqual(2);

    // Another withdrawal is another request, with its own key.
    await wrapper.find('[data-test="sell-another"]').trigger('click');
    await settle();
    expect(wrapper.find('[data-test="submit-order"]').exists()).toBe(true);
  });
});
