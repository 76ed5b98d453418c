/**
 * The service's timers (background-work.ts): the housekeeping purge runs in
 * steps, so stop() must end a purge under way after its current step (not
 * let later steps reach a store that is closing), and report nothing.
 */
import { describe, expect, it, vi } from 'vitest';
import { startBackgroundWork } from '../../../src-main/background/background-work';
import { PURGE_STEP } from '../../../src-main/background/service-work';
import { manualClock, testService } from '../../support/service-harness';

describe('background work', () => {
  it('stop() ends a purge under way after its current step, without an error', async () => {
    const clock = manualClock(1_800_000_000);
    const service = await testService({ clock });
    const backlog = 6 * PURGE_STEP;
    await service.store.write(async (tx) => {
      for (let i = 0; i < backlog; i++) await tx.run('INSERT INTO nonces (api_key, nonce, expires_at) VALUES (?, ?, ?)', ['mk_0', `old-${i}`, clock.now() - 1]);
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
});
