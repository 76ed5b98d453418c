/**
 * kill -9 of a real `serve` in the middle of createOrder (buy and sell),
 * checkout payments and payouts, with merchant callbacks in flight; then a
 * restart on the same data dir. Every order answered with code 1 is there,
 * every payment the checkout confirmed is there, the ledger balances, and
 * the callbacks and payouts pending at the crash complete after it.
 */
import { describe, expect, it } from 'vitest';
import { createMerchantClient } from '../../../src-shared/client/merchant-client';
import type { OrderRow } from '../../../src-main/repositories/order-repository';
import { TEST_ENGINE } from '../../support/test-engine';
import { startReceiver } from '../../support/callback-receiver';
import { expectLedgerConsistent } from '../../support/money';
import { startServeChild } from '../../support/serve-child';
import { allowPrivateCallbacks, read, seedMerchant, testService } from '../../support/service-harness';
import { tempDir } from '../../support/temp-dir';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const CLAIM_SECONDS = 3;

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe('kill -9 under load', () => {
  it('loses no acknowledged order or payment, keeps the ledger balanced, and resumes callbacks and payouts', async () => {
    // Callbacks hang until the crash, so some are in flight or due when it happens.
    let acking = false;
    const receiver = await startReceiver(() => (acking ? { status: 200, body: 'success' } : { status: 200, hang: true }));

    const dataDir = tempDir('mc-crash-');
    const setup = await testService({ dataDir });
    const m = await seedMerchant(setup, 'Crash', { balance: 1_000_000_000 });
    await allowPrivateCallbacks(setup);
    await setup.store.write(async (tx) => {
      await setup.services.merchants.update(tx, { id: m.id, callback_url: receiver.url + '/callback' });
      for (const id of Object.values(m.channels)) await setup.services.channels.update(tx, { id, payout_delay: 1 });
    });
    await setup.close();

    // SQLite: the restarted service holds the data dir alone and takes back what the killed one had claimed at once.
    // PostgreSQL: other instances may be alive, so a claim is only taken over when it runs out: short claims there.
    const claims = TEST_ENGINE === 'postgres' ? { env: { MERCHANT_CONSOLE_CLAIM_SECONDS: String(CLAIM_SECONDS) } } : {};
    const first = await startServeChild(dataDir, claims);
    const client = createMerchantClient({ baseUrl: first.url, apiKey: m.apiKey, apiSecret: m.apiSecret });
    const ackedBuys = new Map<string, string>(); // order_no → pay_url
    const ackedSells = new Set<string>();
    const paid = new Set<string>();
    let failures = 0;
    let running = true;

    async function worker(seed: number): Promise<void> {
      for (let i = 0; running; i++) {
        try {
          if ((seed + i) % 3 === 2) {
            const res = await client.createOrder({ order_type: 2, cny_amount: '12.34', paychannel_id: m.channels.beta, paychannel_paymethod: 'bank' });
            if (res.body.code === 1) ackedSells.add(res.body.data!.order_no);
          } else {
            const res = await client.createOrder({ order_type: 1, cny_amount: '56.78', paychannel_id: m.channels.gamma, paychannel_paymethod: 'alipay' });
            if (res.body.code !== 1) continue;
            const order = res.body.data as { order_no: string; pay_url: string };
            ackedBuys.set(order.order_no, order.pay_url);
            if ((seed + i) % 2 === 0) {
              const pay = await fetch(`${order.pay_url}/pay`, {
                method: 'POST',
                redirect: 'manual',
                headers: { 'content-type': 'application/x-www-form-urlencoded' },
                body: '',
              });
              // 303 back to the page: the sandbox channel's notification was accepted (and committed).
              if (pay.status === 303) paid.add(order.order_no);
            }
          }
        } catch {
          failures++; // the server is gone: the request was not acknowledged
          await sleep(20);
        }
      }
    }

    const workers = Array.from({ length: 12 }, (_, i) => worker(i));
    await sleep(2500 + Math.floor(Math.random() * 1000));
    // On a slow (or busy) machine: go on until the workload below is met, so the crash always lands mid-flight.
    const enough = () => ackedBuys.size + ackedSells.size >= 15 && ackedSells.size >= 3 && paid.size >= 3;
    for (let waited = 0; !enough() && waited < 30_000; waited += 100) await sleep(100);
    first.child.kill('SIGKILL');
    await first.stop();
    running = false;
    await Promise.all(workers);

    expect(ackedBuys.size + ackedSells.size).toBeGreaterThanOrEqual(15);
    expect(ackedSells.size).toBeGreaterThanOrEqual(3);
    expect(paid.size).toBeGreaterThanOrEqual(3);
    expect(failures).toBeGreaterThan(0); // some requests really were cut off

    // Between the crash and the restart: the work that must resume is there.
    const between = await testService({ dataDir });
    const pendingCallbacks = await read(between, (tx) => tx.get<{ n: number }>("SELECT count(*) AS n FROM callback_deliveries WHERE state = 'pending'"));
    expect(pendingCallbacks!.n).toBeGreaterThan(0);
    if (TEST_ENGINE === 'sqlite') {
      expect(await read(between, (tx) => tx.get('PRAGMA integrity_check'))).toEqual({ integrity_check: 'ok' });
    }
    await between.close();

    acking = true;
    await startServeChild(dataDir, claims);
    const after = await testService({ dataDir });
    try {
      const byNo = (no: string) => read(after, (tx) => tx.get<OrderRow>('SELECT * FROM orders WHERE order_no = ?', [no]));
      for (const no of ackedBuys.keys()) expect(await byNo(no), `acknowledged buy ${no}`).toBeDefined();
      for (const no of ackedSells) expect(await byNo(no), `acknowledged sell ${no}`).toBeDefined();
      for (const no of paid) expect(['paid', 'completed'], `paid buy ${no}`).toContain((await byNo(no))!.status);
      await expectLedgerConsistent(after);

      // The restarted service finishes what was pending: payouts and callbacks.
      const count = async (sql: string) => (await read(after, (tx) => tx.get<{ n: number }>(sql)))!.n;
      await waitFor('every sell paid out', async () => (await count("SELECT count(*) AS n FROM orders WHERE order_type = 2 AND status IN ('pending', 'confirmed')")) === 0);
      await waitFor('every callback delivered', async () => (await count("SELECT count(*) AS n FROM callback_deliveries WHERE state <> 'delivered'")) === 0);
      const statusesSeen = new Set(receiver.received.filter((r) => r.fields.status).map((r) => `${r.fields.order_no}:${r.fields.status}`));
      for (const no of paid) expect(statusesSeen.has(`${no}:paid`) || statusesSeen.has(`${no}:completed`), `callback for ${no}`).toBe(true);
      for (const no of ackedSells) expect(statusesSeen.has(`${no}:completed`) || statusesSeen.has(`${no}:cancelled`), `callback for sell ${no}`).toBe(true);
      await expectLedgerConsistent(after);
    } finally {
      await after.close();
    }
  }, 150_000);
});
