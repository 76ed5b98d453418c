import { describe, expect, it } from 'vitest';
import { AppError, ErrorCode } from '../../../src-shared/errors';
import type { BuyOrderView } from '../../../src-shared/schemas/merchant-api';
import { createChannelRepository } from '../../../src-main/repositories/channel-repository';
import { clientFor, read, rowCount, seedMerchant, testListener, testService } from '../../support/service-harness';

const channels = createChannelRepository();

describe('channel drivers', () => {
  it("a buy order's pay-in is started by its channel's driver: the sandbox's pay_url is the view's", async () => {
    const service = await testService();
    const listener = await testListener(service);
    const m = await seedMerchant(service);
    const res = await clientFor(listener, m).createOrder({ order_type: 1, cny_amount: '10.00', paychannel_id: m.channels.alpha, paychannel_paymethod: 'bank' });
    const view = res.body.data as BuyOrderView;
    const { row, channel } = await read(service, async (tx) => {
      const order = await service.services.orders.requireByNo(tx, view.order_no);
      return { row: order, channel: (await channels.findById(tx, order.channel_id))! };
    });
    expect(service.drivers.for(channel).startPayIn(row, channel)).toEqual({ payUrl: view.pay_url });
  });

  it('a driver refusing the pay-in leaves no order behind (502 over HTTP)', async () => {
    const service = await testService();
    const listener = await testListener(service);
    const m = await seedMerchant(service);
    service.drivers.sandbox.startPayIn = () => {
      throw new AppError(ErrorCode.CHANNEL_FAILURE, 'channel: pay-in refused upstream');
    };
    const res = await clientFor(listener, m).createOrder({ order_type: 1, cny_amount: '10.00', paychannel_id: m.channels.beta, paychannel_paymethod: 'bank' });
    expect([res.status, res.body.code, res.body.msg]).toEqual([502, ErrorCode.CHANNEL_FAILURE, 'channel: pay-in refused upstream']);
    expect(await rowCount(service, 'orders')).toBe(0);
  });

  it('a channel naming an unknown driver is a channel failure, not a crash', async () => {
    const service = await testService();
    const m = await seedMerchant(service);
    const channel = { ...(await read(service, (tx) => channels.findById(tx, m.channels.beta)))!, driver: 'acme' as never };
    expect(() => service.drivers.for(channel)).toThrow(/no driver named acme/);
  });
});
