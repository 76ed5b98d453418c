import { describe, expect, it } from 'vitest';
import { createMerchantClient } from '../../../src-shared/client/merchant-client';
import type { BuyOrderView } from '../../../src-shared/schemas/merchant-api';
import { acquireDataDirLock } from '../../../src-main/store/data-dir';
import { cli, exitOf, firstLine, spawnCli } from '../../support/cli-harness';
import { read, seedMerchant, testListener, testService } from '../../support/service-harness';
import { expectLedgerConsistent, newBuy, newSell } from '../../support/money';
import { tempDir } from '../../support/temp-dir';
import { TEST_ENGINE } from '../../support/test-engine';

const run = (dataDir: string, ...argv: string[]) => cli([...argv, '--data-dir', dataDir]);

describe('order pay | complete | fail', () => {
  it('with no service running: applies the signed notification in-process and runs the work that fell due', async () => {
    const dataDir = tempDir();
    const service = await testService({ dataDir });
    const m = await seedMerchant(service, 'M', { balance: 1_000_000 });
    const buy = await newBuy(service, m);
    const sell = await newSell(service, m);
    const failing = await newBuy(service, m);
    await service.close();

    const paid = await run(dataDir, 'order', 'pay', buy.order_no, '--json');
    expect(paid.code).toBe(0);
    // Paid through the channel notification, then settled at once (settle delay 0) by the due work.
    expect(paid.json()).toMatchObject({ order_no: buy.order_no, event: 'paid', changed: true, status: 'paid', delivered: 'in-process', status_after_due_work: 'completed' });
    const again = await run(dataDir, 'order', 'pay', buy.order_no);
    expect(again.stdout).toContain('already reflected paid (completed); nothing changed');

    // The sell was handed to the channel by the same pass (confirmed); complete pays it out now.
    const completed = await run(dataDir, 'order', 'complete', sell.order_no, '--json');
    expect(completed.json()).toMatchObject({ event: 'paid_out', status: 'completed' });

    const failed = await run(dataDir, 'order', 'fail', failing.order_no, '--reason', 'card declined', '--json');
    expect(failed.json()).toMatchObject({ event: 'failed', status: 'cancelled' });
    const shown = (await run(dataDir, 'order', 'show', failing.order_no, '--json')).json() as { timeline: unknown[] };
    expect(shown.timeline).toEqual([{ from: 'pending', to: 'cancelled', source: 'channel', reason: 'card declined', time: expect.any(Number) }]);

    const illegal = await run(dataDir, 'order', 'complete', failing.order_no);
    expect(illegal.code).toBe(1);
    expect(illegal.stderr).toContain('cannot go from cancelled to completed');
    const sellPay = await run(dataDir, 'order', 'pay', sell.order_no);
    expect(sellPay.stderr).toContain('applies to buy orders only');
    expect((await run(dataDir, 'order', 'pay', 'B404')).stderr).toContain('order B404 not found');

    const check = await testService({ dataDir });
    try {
      await expectLedgerConsistent(check);
    } finally {
      await check.close();
    }
  });

  // On PostgreSQL there is no data-dir lock naming a listener: the command acts in-process beside the running
  // instances (they claim work in the store), so the same call ends in-process there (sandbox-commands.ts).
  it('with a service running: POSTs the notification to its listener (the address in service.json); on PostgreSQL: in-process beside it', async () => {
    const dataDir = tempDir();
    const service = await testService({ dataDir });
    const listener = await testListener(service);
    const lock = acquireDataDirLock(dataDir);
    lock.describe({ url: listener.url });
    try {
      const m = await seedMerchant(service);
      const buy = await newBuy(service, m);
      let notified = 0;
      listener.app.server.on('request', (req: { url?: string }) => {
        if (req.url?.startsWith('/channel/notify/')) notified++;
      });
      const res = await run(dataDir, 'order', 'pay', buy.order_no, '--json');
      expect(res.code).toBe(0);
      if (TEST_ENGINE === 'sqlite') {
        expect(res.json()).toMatchObject({ delivered: 'listener', listener_url: listener.url, status: 'paid', status_after_due_work: null });
        expect(notified).toBe(1);
        expect(await read(service, (tx) => tx.get('SELECT status FROM orders WHERE id = ?', [buy.id]))).toEqual({ status: 'paid' });
      } else {
        // Paid, then settled at once (settle delay 0) by the work the command ran itself.
        expect(res.json()).toMatchObject({ delivered: 'in-process', listener_url: null, status: 'paid', status_after_due_work: 'completed' });
        expect(notified).toBe(0);
        expect(await read(service, (tx) => tx.get('SELECT status FROM orders WHERE id = ?', [buy.id]))).toEqual({ status: 'completed' });
      }
    } finally {
      lock.release();
    }
  });

  it('against a real `serve` process: the CLI in another process pays through the listener (PostgreSQL: in-process beside it) and the order is settled', async () => {
    const dataDir = tempDir();
    const serve = await spawnCli(['serve', '--demo', '--port', '0', '--data-dir', dataDir, '--json']);
    const summary = JSON.parse(await firstLine(serve)) as { listening: string; demo: { api_key: string; api_secret: string; channels: { id: number }[] } };
    const client = createMerchantClient({ baseUrl: summary.listening, apiKey: summary.demo.api_key, apiSecret: summary.demo.api_secret });
    const created = await client.createOrder({ order_type: 1, cny_amount: '50.00', paychannel_id: summary.demo.channels[1]!.id, paychannel_paymethod: 'bank' });
    const order = created.body.data as BuyOrderView;

    const pay = await spawnCli(['order', 'pay', order.order_no, '--data-dir', dataDir, '--json']);
    const payOut = firstLine(pay);
    expect((await exitOf(pay)).code).toBe(0);
    expect(JSON.parse(await payOut)).toMatchObject(
      TEST_ENGINE === 'sqlite' ? { delivered: 'listener', listener_url: summary.listening, status: 'paid' } : { delivered: 'in-process', listener_url: null, status: 'paid' },
    );
    // The service's background work (or on PostgreSQL the command's own) settles it (settle delay 0); the merchant sees it through the API.
    let status = 'paid';
    for (let i = 0; i < 100 && status !== 'completed'; i++) {
      status = (await client.orderQueryDetail(order.order_no)).body.data!.status;
      if (status !== 'completed') await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe('completed');
    const stopped = exitOf(serve);
    serve.kill('SIGTERM');
    expect((await stopped).code).toBe(0);
  }, 60_000);
});
