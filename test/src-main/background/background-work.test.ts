/**
 * The service's timers (background-work.ts): the housekeeping purge runs in
 * steps, so stop() must end a purge under way after its current step (not
 * let later steps reach a store that is closing), and report nothing; and
 * it is paced, leaving the event loop and the disk to requests.
 */
import { describe, expect, it, vi } from 'vitest';
import { startBackgroundWork } from '../../../src-main/background/background-work';
import { PURGE_PAUSE_MS, PURGE_STEP } from '../../../src-main/background/service-work';
import { createNonceRepository } from '../../../src-main/repositories/nonce-repository';
import { NONCE_BUCKET_SECONDS } from '../../../src-main/store/migrations/0012-nonce-buckets';
import { manualClock, testService } from '../../support/service-harness';

describe('background work', () => {
  it('stop() ends a purge under way after its current step, without an error', async () => {
    const clock = manualClock(1_800_000_000);
    const service = await testService({ clock });
    const backlog = 6 * PURGE_STEP;
    const nonces = createNonceRepository();
    await service.store.write(async (tx) => {
      // Expired a bucket ago: SQLite purges whole buckets once they are past (migration 0012).
      for (let i = 0; i < backlog; i++) await nonces.consume(tx, 'mk_0', `old-${i}`, clock.now() - NONCE_BUCKET_SECONDS - 1);
    });
    // Passes through to the real step; counts them.
    const steps = vi.spyOn(service.services.requestAuth, 'purgeExpiredNonces');
    const errors: unknown[] = [];
    const work = startBackgroundWork(service, { pollIntervalMs: 60_000, housekeepingIntervalMs: 5, onError: (err) => errors.push(err) });
    while (steps.mock.calls.length === 0) await new Promise((r) => setTimeout(r, 1));
    await work.stop();
    const stepsAtStop = steps.mock.calls.length;
    await new Promise((r) => setTimeout(r, 50));
    expect(steps.mock.calls.length).toBe(stepsAtStop);
    expect(stepsAtStop).toBeLessThan(6);
    expect(errors).toEqual([]);
    const left = await service.store.read(async (tx) => (await tx.get<{ n: number }>('SELECT count(*) AS n FROM nonces'))!.n);
    expect(left).toBeGreaterThan(0);
  });

  it('paces the housekeeping purge: PURGE_PAUSE_MS between two steps', async () => {
    const clock = manualClock(1_800_000_000);
    const service = await testService({ clock });
    const nonces = createNonceRepository();
    await service.store.write(async (tx) => {
      for (let i = 0; i < 3 * PURGE_STEP; i++) await nonces.consume(tx, 'mk_0', `old-${i}`, clock.now() - NONCE_BUCKET_SECONDS - 1);
    });
    const starts: number[] = [];
    const step = service.services.requestAuth.purgeExpiredNonces.bind(service.services.requestAuth);
    vi.spyOn(service.services.requestAuth, 'purgeExpiredNonces').mockImplementation((tx, limit) => {
      starts.push(performance.now());
      return step(tx, limit);
    });
    const work = startBackgroundWork(service, { pollIntervalMs: 60_000, housekeepingIntervalMs: 5 });
    try {
      // Three full steps and the one that finds none left.
      while (starts.length < 4) await new Promise((r) => setTimeout(r, 5));
    } finally {
      await work.stop();
    }
    const gaps = starts.slice(1, 4).map((t, i) => t - starts[i]!);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(PURGE_PAUSE_MS - 1);
  });
});
