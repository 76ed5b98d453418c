import { describe, expect, it } from 'vitest';
import { AppError, ErrorCode } from '../../../src-shared/errors';
import type { BuyOrderView } from '../../../src-shared/schemas/merchant-api';
import { clientFor, rowCount, seedMerchant, testListener, testService } from '../../support/service-harness';

describe('channel drivers', () => {
  it("a buy order's pay-in is started by its channel's driver: the sandbox's pay_url is the view's", async () => {
    const service = testService();
    const listener = await testListener(service);
    const m = seedMerchant(service);
    const res = await clientFor(listener, m).createOrder({ order_type: 1, cny_amount: '10.00', paychannel_id: m.channels.alpha, paychannel_paymethod: 'bank' });
    const view = res.body.data as BuyOrderView;
    const row = service.ctx.repos.orders.findByNo(view.order_no)!;
    const channel = service.ctx.repos.channels.findById(row.channel_id)!;
    expect(service.drivers.for(channel).startPayIn(row, channel)).toEqual({ payUrl: view.pay_url });
  });

  it('a driver refusing the pay-in leaves no order behind (502 over HTTP)', async () => {
    const service = testService();
    const listener = await testListener(service);
    const m = seedMerchant(service);
    service.drivers.sandbox.startPayIn = () => {
      throw new AppError(ErrorCode.CHANNEL_FAILURE, 'channel: pay-in refused upstream');
    };
    const res = await clientFor(listener, m).createOrder({ order_type: 1, cny_amount: '10.00', paychannel_id: m.channels.beta, paychannel_paymethod: 'bank' });
    expect([res.status, res.body.code, res.body.msg]).toEqual([502, ErrorCode.CHANNEL_FAILURE, 'channel: pay-in refused upstream']);
    expect(rowCount(service, 'orders')).toBe(0);
  });

  it('a channel naming an unknown driver is a channel failure, not a crash', () => {
    const service = testService();
    const m = seedMerchant(service);
    const channel = { ...service.ctx.repos.channels.findById(m.channels.beta)!, driver: 'acme' as never };
    expect(() => service.drivers.for(channel)).toThrow(/no driver named acme/);
  });
});
