import { describe, expect, it } from 'vitest';
import { openService } from '../../../src-main/service';
import { EXPIRY_BATCH, MAX_PAYOUT_START_ATTEMPTS } from '../../../src-main/background/order-worker';
import { manualClock, seedMerchant, testService } from '../../support/service-harness';
import { expectLedgerConsistent, newBuy, newSell, reload } from '../../support/money';
import { tempDir } from '../../support/temp-dir';

describe('scheduled order work', () => {
  it('sell: confirmed right after creation, completed after the payout delay', async () => {
    const clock = manualClock(1_800_000_000);
    const service = testService({ clock });
    const m = seedMerchant(service, 'M', { balance: 1_000_000 });
    const sell = newSell(service, m, 10_000);
    expect(sell.status).toBe('pending');
    expect(await service.work.runDue()).toMatchObject({ orders: { jobs: 1, failed: 0 } });
    expect(reload(service, sell).status).toBe('confirmed');
    expect(service.services.ledger.balances(m.id)).toEqual({ available: 1_000_000 - 10_130, frozen: 10_130, deposit: 0 });

    clock.advance(4);
    await service.work.runDue();
    expect(reload(service, sell).status).toBe('confirmed');
    clock.advance(1); // default payout delay: 5 s
    await service.work.runDue();
    expect(reload(service, sell)).toMatchObject({ status: 'completed', updatetime: clock.now() });
    expect(service.services.lifecycle.timelineOf(sell.id).map((t) => [t.from_status, t.to_status, t.source])).toEqual([
      ['pending', 'confirmed', 'channel'],
      ['confirmed', 'completed', 'channel'],
    ]);
    expect(service.services.ledger.balances(m.id)).toEqual({ available: 1_000_000 - 10_130, frozen: 0, deposit: 50 });
    expect(service.services.lifecycle.jobsOf(sell.id)).toEqual([]);
    expectLedgerConsistent(service);
  });

  it('with no delays a sell goes pending → confirmed → completed in one pass', async () => {
    const service = testService({ clock: manualClock(1_800_000_000) });
    const m = seedMerchant(service, 'M', { balance: 1_000_000 });
    service.services.channels.update({ id: m.channels.beta, payout_delay: 0 });
    const sell = newSell(service, m);
    await service.work.runDue();
    expect(reload(service, sell).status).toBe('completed');
  });

  it('buy: settled after the settle delay; an operator cancel before the payout completes wins', async () => {
    const clock = manualClock(1_800_000_000);
    const service = testService({ clock });
    const m = seedMerchant(service, 'M', { balance: 1_000_000 });
    service.services.channels.update({ id: m.channels.beta, settle_delay: 60, payout_delay: 60 });
    const buy = newBuy(service, m);
    service.services.sandbox.simulate(buy.order_no, 'pay');
    await service.work.runDue();
    expect(reload(service, buy).status).toBe('paid');
    clock.advance(60);
    await service.work.runDue();
    expect(reload(service, buy).status).toBe('completed');

    const sell = newSell(service, m);
    await service.work.runDue();
    service.services.orderAdmin.cancel(sell.order_no, 'payee account closed');
    clock.advance(60);
    await service.work.runDue();
    expect(reload(service, sell).status).toBe('cancelled');
    expect(service.services.ledger.balances(m.id).frozen).toBe(0);
    expectLedgerConsistent(service);
  });

  it('survives a restart: work due while the service was down runs at the next start', async () => {
    const dataDir = tempDir();
    const clock = manualClock(1_800_000_000);
    let service = openService({ dataDir, clock });
    const m = seedMerchant(service, 'M', { balance: 1_000_000 });
    service.services.channels.update({ id: m.channels.beta, settle_delay: 600 });
    const buy = newBuy(service, m);
    const unpaid = newBuy(service, m);
    service.services.sandbox.simulate(buy.order_no, 'pay');
    const sell = newSell(service, m);
    await service.work.runDue();
    expect([reload(service, buy).status, reload(service, sell).status]).toEqual(['paid', 'confirmed']);
    service.close();

    clock.advance(3_600); // down for an hour: settlement, payout and expiry all fell due
    service = openService({ dataDir, clock });
    try {
      expect(service.work.nextDue()).toBeLessThanOrEqual(clock.now());
      const report = await service.work.runDue();
      expect(report.orders).toMatchObject({ expired: 1, jobs: 2 });
      expect([reload(service, buy).status, reload(service, sell).status, reload(service, unpaid).status]).toEqual(['completed', 'completed', 'cancelled']);
      expect(service.work.nextDue()).toBeNull();
      expectLedgerConsistent(service);
    } finally {
      service.close();
    }
  });

  it('catches up a large expiry backlog in several short write jobs', async () => {
    const clock = manualClock(1_800_000_000);
    const service = testService({ clock });
    const m = seedMerchant(service);
    service.db.transaction(() => {
      for (let i = 0; i < 2 * EXPIRY_BATCH + 50; i++) newBuy(service, m);
    })();
    clock.advance(1800);
    const jobsBefore = service.writeQueue.stats.jobs;
    expect((await service.work.runDue()).orders.expired).toBe(2 * EXPIRY_BATCH + 50);
    expect(service.writeQueue.stats.jobs - jobsBefore).toBe(3);
    expect(service.ctx.repos.orders.nextExpiry()).toBeNull();
  });

  it('retries a failing driver call with backoff and gives up on a payout it cannot start', async () => {
    const clock = manualClock(1_800_000_000);
    const service = testService({ clock });
    const m = seedMerchant(service, 'M', { balance: 1_000_000 });
    const sell = newSell(service, m);
    let calls = 0;
    service.drivers.sandbox.startPayout = async () => {
      calls++;
      throw new Error('connection refused');
    };
    await service.work.runDue();
    expect(service.services.lifecycle.jobsOf(sell.id)).toMatchObject([{ kind: 'start_payout', attempts: 1, due_at: clock.now() + 5, last_error: 'connection refused' }]);
    await service.work.runDue(); // not due yet
    expect(calls).toBe(1);
    for (let i = 1; i < MAX_PAYOUT_START_ATTEMPTS; i++) {
      clock.advance(1800);
      await service.work.runDue();
    }
    expect(calls).toBe(MAX_PAYOUT_START_ATTEMPTS);
    expect(reload(service, sell).status).toBe('cancelled');
    expect(service.services.lifecycle.timelineOf(sell.id).at(-1)!.reason).toContain('could not be handed to the channel');
    expect(service.services.ledger.balances(m.id)).toEqual({ available: 1_000_000, frozen: 0, deposit: 0 });
    expectLedgerConsistent(service);
  });
});
