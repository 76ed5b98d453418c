import { describe, expect, it, vi } from 'vitest';
import { EXPIRY_BATCH, JOB_CLAIM_SECONDS, MAX_PAYOUT_START_ATTEMPTS } from '../../../src-main/background/order-worker';
import type { OrderRow } from '../../../src-main/repositories/order-repository';
import type { MerchantConsoleService } from '../../../src-main/service';
import { manualClock, read, seedMerchant, testService, write } from '../../support/service-harness';
import { expectLedgerConsistent, newBuy, newSell, reload } from '../../support/money';
import { tempDir } from '../../support/temp-dir';

const balances = (service: MerchantConsoleService, merchantId: number) => read(service, (tx) => service.services.ledger.balances(tx, merchantId));
const timelineOf = (service: MerchantConsoleService, orderId: number) => read(service, (tx) => service.services.lifecycle.timelineOf(tx, orderId));
const jobsOf = (service: MerchantConsoleService, orderId: number) => read(service, (tx) => service.services.lifecycle.jobsOf(tx, orderId));
const updateChannel = (service: MerchantConsoleService, id: number, change: { settle_delay?: number; payout_delay?: number }) =>
  write(service, (tx) => service.services.channels.update(tx, { id, ...change }));
const simulatePay = (service: MerchantConsoleService, order: OrderRow) => write(service, (tx) => service.services.sandbox.simulate(tx, order.order_no, 'pay'));
const statusOf = async (service: MerchantConsoleService, order: OrderRow) => (await reload(service, order)).status;

describe('scheduled order work', () => {
  it('sell: confirmed right after creation, completed after the payout delay', async () => {
    const clock = manualClock(1_800_000_000);
    const service = await testService({ clock });
    const m = await seedMerchant(service, 'M', { balance: 1_000_000 });
    const sell = await newSell(service, m, 10_000);
    expect(sell.status).toBe('pending');
    expect(await service.work.runDue()).toMatchObject({ orders: { jobs: 1, failed: 0 } });
    expect(await statusOf(service, sell)).toBe('confirmed');
    expect(await balances(service, m.id)).toEqual({ available: 1_000_000 - 10_130, frozen: 10_130, deposit: 0 });

    clock.advance(4);
    await service.work.runDue();
    expect(await statusOf(service, sell)).toBe('confirmed');
    clock.advance(1); // default payout delay: 5 s
    await service.work.runDue();
    expect(await reload(service, sell)).toMatchObject({ status: 'completed', updatetime: clock.now() });
    expect((await timelineOf(service, sell.id)).map((t) => [t.from_status, t.to_status, t.source])).toEqual([
      ['pending', 'confirmed', 'channel'],
      ['confirmed', 'completed', 'channel'],
    ]);
    expect(await balances(service, m.id)).toEqual({ available: 1_000_000 - 10_130, frozen: 0, deposit: 50 });
    expect(await jobsOf(service, sell.id)).toEqual([]);
    await expectLedgerConsistent(service);
  });

  it('with no delays a sell goes pending → confirmed → completed in one pass', async () => {
    const service = await testService({ clock: manualClock(1_800_000_000) });
    const m = await seedMerchant(service, 'M', { balance: 1_000_000 });
    await updateChannel(service, m.channels.beta, { payout_delay: 0 });
    const sell = await newSell(service, m);
    await service.work.runDue();
    expect(await statusOf(service, sell)).toBe('completed');
  });

  it('buy: settled after the settle delay; an operator cancel before the payout completes wins', async () => {
    const clock = manualClock(1_800_000_000);
    const service = await testService({ clock });
    const m = await seedMerchant(service, 'M', { balance: 1_000_000 });
    await updateChannel(service, m.channels.beta, { settle_delay: 60, payout_delay: 60 });
    const buy = await newBuy(service, m);
    await simulatePay(service, buy);
    await service.work.runDue();
    expect(await statusOf(service, buy)).toBe('paid');
    clock.advance(60);
    await service.work.runDue();
    expect(await statusOf(service, buy)).toBe('completed');

    const sell = await newSell(service, m);
    await service.work.runDue();
    await write(service, (tx) => service.services.orderAdmin.cancel(tx, sell.order_no, 'payee account closed'));
    clock.advance(60);
    await service.work.runDue();
    expect(await statusOf(service, sell)).toBe('cancelled');
    expect((await balances(service, m.id)).frozen).toBe(0);
    await expectLedgerConsistent(service);
  });

  it('survives a restart: work due while the service was down runs at the next start', async () => {
    const dataDir = tempDir();
    const clock = manualClock(1_800_000_000);
    let service = await testService({ dataDir, clock });
    const m = await seedMerchant(service, 'M', { balance: 1_000_000 });
    await updateChannel(service, m.channels.beta, { settle_delay: 600 });
    const buy = await newBuy(service, m);
    const unpaid = await newBuy(service, m);
    await simulatePay(service, buy);
    const sell = await newSell(service, m);
    await service.work.runDue();
    expect([await statusOf(service, buy), await statusOf(service, sell)]).toEqual(['paid', 'confirmed']);
    await service.close();

    clock.advance(3_600); // down for an hour: settlement, payout and expiry all fell due
    service = await testService({ dataDir, clock });
    expect(await service.work.nextDue()).toBeLessThanOrEqual(clock.now());
    const report = await service.work.runDue();
    expect(report.orders).toMatchObject({ expired: 1, jobs: 2 });
    expect([await statusOf(service, buy), await statusOf(service, sell), await statusOf(service, unpaid)]).toEqual(['completed', 'completed', 'cancelled']);
    expect(await service.work.nextDue()).toBeNull();
    await expectLedgerConsistent(service);
  });

  it('catches up a large expiry backlog in several short units of work', async () => {
    const clock = manualClock(1_800_000_000);
    const service = await testService({ clock });
    const m = await seedMerchant(service);
    const total = 2 * EXPIRY_BATCH + 50;
    await write(service, async (tx) => {
      for (let i = 0; i < total; i++) {
        await service.services.orders.createBuy(tx, m.id, { order_type: 1, cny_amount: 10_000, paychannel_id: m.channels.beta, paychannel_paymethod: 'alipay' });
      }
    });
    const sweep = vi.spyOn(service.services.lifecycle, 'expireDue');
    const sweepsOf = async (from: number) => Promise.all(sweep.mock.results.slice(from).map((r) => r.value));
    // A pass with nothing due yet: one sweep that finds nothing, plus the job and callback claims.
    clock.advance(1799);
    let before = service.store.stats.writes;
    expect((await service.work.runDue()).orders.expired).toBe(0);
    expect(await sweepsOf(0)).toEqual([{ expired: 0, seen: 0 }]);
    const idleWrites = service.store.stats.writes - before;

    clock.advance(1);
    before = service.store.stats.writes;
    expect((await service.work.runDue()).orders.expired).toBe(total);
    // One batch per unit of work: 200, 200, then 50 (short: the sweep is done).
    expect(await sweepsOf(1)).toEqual([
      { expired: EXPIRY_BATCH, seen: EXPIRY_BATCH },
      { expired: EXPIRY_BATCH, seen: EXPIRY_BATCH },
      { expired: 50, seen: 50 },
    ]);
    expect(new Set(sweep.mock.calls.slice(1).map(([tx]) => tx)).size).toBe(3);
    expect(service.store.stats.writes - before).toBe(idleWrites + 2);
    expect(await service.work.nextDue()).toBeNull();
  });

  it('retries a failing driver call with backoff and gives up on a payout it cannot start', async () => {
    const clock = manualClock(1_800_000_000);
    const service = await testService({ clock });
    const m = await seedMerchant(service, 'M', { balance: 1_000_000 });
    const sell = await newSell(service, m);
    let calls = 0;
    service.drivers.sandbox.startPayout = async () => {
      calls++;
      throw new Error('connection refused');
    };
    await service.work.runDue();
    expect(await jobsOf(service, sell.id)).toMatchObject([{ kind: 'start_payout', attempts: 1, due_at: clock.now() + 5, last_error: 'connection refused' }]);
    await service.work.runDue(); // not due yet
    expect(calls).toBe(1);
    for (let i = 1; i < MAX_PAYOUT_START_ATTEMPTS; i++) {
      clock.advance(1800);
      await service.work.runDue();
    }
    expect(calls).toBe(MAX_PAYOUT_START_ATTEMPTS);
    expect(await statusOf(service, sell)).toBe('cancelled');
    expect((await timelineOf(service, sell.id)).at(-1)!.reason).toContain('could not be handed to the channel');
    expect(await balances(service, m.id)).toEqual({ available: 1_000_000, frozen: 0, deposit: 0 });
    await expectLedgerConsistent(service);
  });
});

describe('order work with several instances on one store', () => {
  /** Two services on the same store (same data dir: same SQLite file or PostgreSQL database), each its own instance. */
  async function twoInstances() {
    const dataDir = tempDir();
    const clock = manualClock(1_800_000_000);
    const a = await testService({ dataDir, clock, instanceId: 'instance-a' });
    const b = await testService({ dataDir, clock, instanceId: 'instance-b' });
    return { clock, a, b };
  }

  /** Counts the payouts each instance hands to its channel (slowed down a little, so the two passes overlap). */
  function countPayouts(service: MerchantConsoleService): number[] {
    const handed: number[] = [];
    const driver = service.drivers.sandbox;
    const start = driver.startPayout.bind(driver);
    driver.startPayout = async (order, channel) => {
      handed.push(order.id);
      await new Promise((r) => setTimeout(r, 2));
      return start(order, channel);
    };
    return handed;
  }

  it('two instances running the due work at once: every job runs once', async () => {
    const { a, b } = await twoInstances();
    const sells = 120; // more than one claim batch, so both instances get some
    const m = await seedMerchant(a, 'M', { balance: sells * 10_130 });
    await updateChannel(a, m.channels.beta, { payout_delay: 3600 });
    const orders = await write(a, async (tx) => {
      const out: OrderRow[] = [];
      for (let i = 0; i < sells; i++) {
        out.push(await a.services.orders.createSell(tx, m.id, { order_type: 2, cny_amount: 10_000, paychannel_id: m.channels.beta, paychannel_paymethod: 'bank' }));
      }
      return out;
    });
    const handedByA = countPayouts(a);
    const handedByB = countPayouts(b);

    const [ra, rb] = await Promise.all([a.work.runDue(), b.work.runDue()]);
    expect(ra.orders.failed + rb.orders.failed).toBe(0);
    expect(ra.orders.jobs + rb.orders.jobs).toBe(sells);
    // Each payout handed to the channel once, by one instance; both took part.
    expect([...handedByA, ...handedByB].sort((x, y) => x - y)).toEqual(orders.map((o) => o.id));
    expect(handedByA.length).toBeGreaterThan(0);
    expect(handedByB.length).toBeGreaterThan(0);
    // One transition per order, the ledger untouched by the acceptance (freeze only).
    const transitions = await read(a, (tx) =>
      tx.all<{ order_id: number; n: number }>("SELECT order_id, count(*) AS n FROM order_transitions WHERE to_status = 'confirmed' GROUP BY order_id ORDER BY order_id"),
    );
    expect(transitions).toEqual(orders.map((o) => ({ order_id: o.id, n: 1 })));
    const ledger = await read(a, (tx) => tx.all<{ kind: string; n: number }>('SELECT kind, count(*) AS n FROM ledger_transactions WHERE order_id IS NOT NULL GROUP BY kind'));
    expect(ledger).toEqual([{ kind: 'sell_freeze', n: sells }]);
    // What is left: each order's payout check, unclaimed.
    const jobs = await read(a, (tx) => tx.all<{ kind: string; n: number; claimed: number }>(
      'SELECT kind, count(*) AS n, count(claimed_by) AS claimed FROM order_jobs GROUP BY kind',
    ));
    expect(jobs).toEqual([{ kind: 'complete_payout', n: sells, claimed: 0 }]);
    await expectLedgerConsistent(a);
  });

  it('two instances sweeping the same expired buys at once cancel each order once', async () => {
    const { clock, a, b } = await twoInstances();
    const m = await seedMerchant(a, 'M');
    const total = 2 * EXPIRY_BATCH + 50; // several batches, so the two sweeps run side by side
    const buys = await write(a, async (tx) => {
      const out: OrderRow[] = [];
      for (let i = 0; i < total; i++) {
        out.push(await a.services.orders.createBuy(tx, m.id, { order_type: 1, cny_amount: 10_000, paychannel_id: m.channels.beta, paychannel_paymethod: 'alipay' }));
      }
      return out;
    });
    clock.advance(1800);
    const [ra, rb] = await Promise.all([a.work.runDue(), b.work.runDue()]);
    expect(ra.orders.expired + rb.orders.expired).toBe(total);
    const transitions = await read(a, (tx) =>
      tx.all<{ order_id: number; n: number }>("SELECT order_id, count(*) AS n FROM order_transitions WHERE to_status = 'cancelled' GROUP BY order_id ORDER BY order_id"),
    );
    expect(transitions).toEqual(buys.map((o) => ({ order_id: o.id, n: 1 })));
    expect(await read(a, (tx) => tx.all("SELECT status, count(*) AS n FROM orders GROUP BY status"))).toEqual([{ status: 'cancelled', n: total }]);
    // Nothing left for a later sweep.
    expect(await Promise.all([a.work.runDue(), b.work.runDue()])).toMatchObject([{ orders: { expired: 0 } }, { orders: { expired: 0 } }]);
  });

  it('a job claimed by an instance that died is run by another once the claim runs out', async () => {
    const { clock, a, b } = await twoInstances();
    const m = await seedMerchant(a, 'M', { balance: 1_000_000 });
    await updateChannel(a, m.channels.beta, { payout_delay: 3600 });
    const sell = await newSell(a, m);
    // An instance claimed the payout for JOB_CLAIM_SECONDS and died before handing it to the channel.
    const claimed = await write(a, (tx) =>
      tx.run("UPDATE order_jobs SET claimed_by = 'dead', claimed_until = ? WHERE order_id = ?", [clock.now() + JOB_CLAIM_SECONDS, sell.id]),
    );
    expect(claimed).toBe(1);
    const handedByA = countPayouts(a);
    const handedByB = countPayouts(b);
    expect(await b.work.nextDue()).toBe(clock.now() + JOB_CLAIM_SECONDS);
    expect(await b.work.backlog()).toMatchObject({ order_jobs: 1, order_jobs_due: 1 });

    clock.advance(JOB_CLAIM_SECONDS - 1);
    await Promise.all([a.work.runDue(), b.work.runDue()]);
    expect([...handedByA, ...handedByB]).toEqual([]);
    expect(await statusOf(a, sell)).toBe('pending');

    clock.advance(1);
    const reports = await Promise.all([a.work.runDue(), b.work.runDue()]);
    expect(reports[0]!.orders.jobs + reports[1]!.orders.jobs).toBe(1);
    expect([...handedByA, ...handedByB]).toEqual([sell.id]);
    expect(await statusOf(a, sell)).toBe('confirmed');
    expect((await timelineOf(a, sell.id)).map((t) => t.to_status)).toEqual(['confirmed']);
    expect((await jobsOf(a, sell.id)).map((j) => [j.kind, j.claimed_by])).toEqual([['complete_payout', null]]);

    await expectLedgerConsistent(a);
  });
});
