import { describe, expect, it, vi } from 'vitest';
import { AppError, ErrorCode } from '../../../src-shared/errors';
import type { BuyOrderView } from '../../../src-shared/schemas/merchant-api';
import { createChannelRepository } from '../../../src-main/repositories/channel-repository';
import { qrCodeImageSrc } from '../../../src-main/http/checkout-page';
import { cli } from '../../support/cli-harness';
import { clientFor, read, rowCount, seedMerchant, testListener, testService } from '../../support/service-harness';
import { tempDir } from '../../support/temp-dir';

const channels = createChannelRepository();

describe('channel drivers', () => {
  it("the sandbox's pay-in sends the payer to its checkout page on this listener", async () => {
    const service = await testService();
    const listener = await testListener(service);
    const m = await seedMerchant(service);
    const res = await clientFor(listener, m).createOrder({ order_type: 1, cny_amount: '10.00', paychannel_id: m.channels.alpha, paychannel_paymethod: 'bank' });
    const view = res.body.data as BuyOrderView;
    const row = await read(service, (tx) => service.services.orders.requireByNo(tx, view.order_no));
    expect(view.pay_url).toBe(`${listener.url}/pay/${row.pay_token}`);
  });

  it("where a channel's driver sends the payer is stored and used: createOrder's answer, order show, the order detail, the pay page's QR code", async () => {
    const dataDir = tempDir();
    const service = await testService({ dataDir });
    const listener = await testListener(service);
    const m = await seedMerchant(service);
    // A driver whose payer pays somewhere else than this listener's checkout page.
    const elsewhere = 'https://pay.example.test/x';
    const startPayIn = vi.spyOn(service.drivers.sandbox, 'startPayIn').mockReturnValue({ payUrl: elsewhere });
    const client = clientFor(listener, m);
    const created = await client.createOrder({ order_type: 1, cny_amount: '10.00', paychannel_id: m.channels.beta, paychannel_paymethod: 'alipay' });
    const view = created.body.data as BuyOrderView;
    expect(startPayIn).toHaveBeenCalledOnce();

    expect(view.pay_url).toBe(elsewhere);
    const row = await read(service, (tx) => service.services.orders.requireByNo(tx, view.order_no));
    expect(row.pay_url).toBe(elsewhere);
    const shown = await cli(['order', 'show', view.order_no, '--data-dir', dataDir, '--json']);
    expect(shown.json().pay_url).toBe(elsewhere);
    expect((await cli(['order', 'show', view.order_no, '--data-dir', dataDir])).stdout).toContain(`pay_url ${elsewhere}`);
    expect((await read(service, (tx) => service.services.orderReports.detail(tx, m.id, view.order_no))).pay_url).toBe(elsewhere);
    // The checkout page's QR code leads where the driver said, not back to the page.
    const page = await (await fetch(`${listener.url}/pay/${row.pay_token}`)).text();
    const qrSrc = /<img src="([^"]+)" alt="QR code/.exec(page)?.[1];
    expect(qrSrc).toBe(await qrCodeImageSrc(elsewhere));
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
