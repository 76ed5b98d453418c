/**
 * The purge of expired nonces and idempotency keys (service-work.ts): after a
 * busy hour there are hundreds of thousands, so it removes them in bounded
 * steps, each its own unit of work, and requests' writes go on between them
 * (one DELETE of them all held SQLite's event loop for seconds). Both engines.
 */
import { describe, expect, it, vi } from 'vitest';
import { PURGE_STEP } from '../../../src-main/background/service-work';
import { createNonceRepository } from '../../../src-main/repositories/nonce-repository';
import type { MerchantConsoleService } from '../../../src-main/service';
import { NONCE_BUCKET_SECONDS } from '../../../src-main/store/migrations/0012-nonce-buckets';
import { manualClock, seedMerchant, testService } from '../../support/service-harness';

const nonces = createNonceRepository();
const countOf = (service: MerchantConsoleService, table: 'nonces' | 'idempotency_keys') =>
  service.store.read(async (tx) => (await tx.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))!.n);

async function seed(service: MerchantConsoleService, merchantId: number, now: number, expired: { nonces: number; keys: number }): Promise<void> {
  await service.store.write(async (tx) => {
    for (let i = 0; i < expired.nonces; i++) {
      // Expired a bucket ago or more: SQLite purges whole buckets once they are past (migration 0012).
      await nonces.consume(tx, `mk_${i % 7}`, `old-${i}`, now - NONCE_BUCKET_SECONDS - 1 - (i % 50) * 60);
    }
    for (let i = 0; i < 3; i++) await nonces.consume(tx, 'mk_0', `fresh-${i}`, now + 600);
    const key = 'INSERT INTO idempotency_keys (merchant_id, idem_key, request_hash, response, order_id, createtime, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)';
    for (let i = 0; i < expired.keys; i++) await tx.run(key, [merchantId, `old-${i}`, 'h', '{}', null, now - 86_400, now - (i % 30)]);
    for (let i = 0; i < 2; i++) await tx.run(key, [merchantId, `fresh-${i}`, 'h', '{}', null, now, now + 3600]);
  });
}

describe('purge of expired nonces and idempotency keys', () => {
  it('removes every expired row in steps of at most PURGE_STEP per table, each its own unit of work, and keeps the rest', async () => {
    const clock = manualClock(1_800_000_000);
    const service = await testService({ clock });
    const m = await seedMerchant(service);
    const expired = { nonces: 2 * PURGE_STEP + 7, keys: PURGE_STEP + 3 };
    await seed(service, m.id, clock.now(), expired);
    const nonceStep = vi.spyOn(service.services.requestAuth, 'purgeExpiredNonces');
    const write = vi.spyOn(service.store, 'write');

    expect(await service.work.purgeExpired()).toEqual({ purged: expired.nonces + expired.keys, skipped: false });
    // 500 + 500 + 7 nonces, 500 + 3 keys: three steps, three units of work.
    expect(nonceStep.mock.results.length).toBe(3);
    expect(await Promise.all(nonceStep.mock.results.map((r) => r.value))).toEqual([PURGE_STEP, PURGE_STEP, 7]);
    expect(write).toHaveBeenCalledTimes(3);
    expect(await countOf(service, 'nonces')).toBe(3);
    expect(await countOf(service, 'idempotency_keys')).toBe(2);
    // Nothing left: one step that removes nothing.
    expect(await service.work.purgeExpired()).toEqual({ purged: 0, skipped: false });
  });

  it('with pauseMs (the running service\'s pace) waits that long between two steps; without it, none', async () => {
    const clock = manualClock(1_800_000_000);
    const service = await testService({ clock });
    const m = await seedMerchant(service);
    await seed(service, m.id, clock.now(), { nonces: 3 * PURGE_STEP + 1, keys: 0 });
    const starts: number[] = [];
    const step = service.services.requestAuth.purgeExpiredNonces.bind(service.services.requestAuth);
    vi.spyOn(service.services.requestAuth, 'purgeExpiredNonces').mockImplementation((tx, limit) => {
      starts.push(performance.now());
      return step(tx, limit);
    });
    const gaps = () => starts.slice(1).map((t, i) => t - starts[i]!);

    expect(await service.work.purgeExpired(undefined, { pauseMs: 40 })).toEqual({ purged: 3 * PURGE_STEP + 1, skipped: false });
    expect(starts).toHaveLength(4);
    // A timer may fire a fraction of a millisecond early by performance.now().
    for (const gap of gaps()) expect(gap).toBeGreaterThanOrEqual(39);

    await service.store.write(async (tx) => {
      for (let i = 0; i < 3 * PURGE_STEP + 1; i++) await nonces.consume(tx, 'mk_1', `again-${i}`, clock.now() - NONCE_BUCKET_SECONDS - 1);
    });
    starts.length = 0;
    await service.work.purgeExpired();
    expect(starts).toHaveLength(4);
    expect(Math.max(...gaps())).toBeLessThan(39);
  });

  it('lets a write that arrives meanwhile run between its steps, not after all of them', async () => {
    const clock = manualClock(1_800_000_000);
    const service = await testService({ clock });
    const m = await seedMerchant(service);
    // A busy minute's nonces (more than a step of any sensible size).
    const backlog = 2_000;
    await seed(service, m.id, clock.now(), { nonces: backlog, keys: 0 });

    // The second step waits (up to 2 s) for the write below: steps that are units of their own let it
    // through at once. Without the wait, on PostgreSQL (a connection each) the purge could finish all
    // its steps before the write's connection was even open, and the test would say nothing.
    let meanwhileDone!: () => void;
    const meanwhile = new Promise<void>((resolve) => (meanwhileDone = resolve));
    const step = service.services.requestAuth.purgeExpiredNonces.bind(service.services.requestAuth);
    let steps = 0;
    vi.spyOn(service.services.requestAuth, 'purgeExpiredNonces').mockImplementation(async (tx, limit) => {
      if (++steps === 2) await Promise.race([meanwhile, new Promise((resolve) => setTimeout(resolve, 2000))]);
      return step(tx, limit);
    });
    const purge = service.work.purgeExpired();
    // Queued right behind the purge's first step: it runs before the purge is through.
    const expiredSeenMeanwhile = await service.store.write(async (tx) => {
      await nonces.consume(tx, 'mk_0', 'meanwhile', clock.now() + 600);
      return (await tx.get<{ n: number }>('SELECT count(*) AS n FROM nonces WHERE expires_at < ?', [clock.now()]))!.n;
    });
    meanwhileDone();
    expect(expiredSeenMeanwhile).toBeGreaterThan(0);
    expect(await purge).toEqual({ purged: backlog, skipped: false });
    expect(await countOf(service, 'nonces')).toBe(4);
  });
});
