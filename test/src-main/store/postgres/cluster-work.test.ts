/**
 * Background work of several instances on one PostgreSQL database that is
 * not claimed row by row: the purge of expired nonces, sessions, login
 * tokens and idempotency keys runs on one instance at a time (an advisory
 * lock, cluster-lock-repository.ts); an instance that finds it taken skips
 * its purge instead of waiting. Expiry, jobs and callbacks by two instances:
 * test/src-main/background/ (both engines).
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { openService, type MerchantConsoleService } from '../../../../src-main/service';
import { createIdempotencyRepository } from '../../../../src-main/repositories/idempotency-repository';
import { seedMerchant } from '../../../support/service-harness';
import { tempDir } from '../../../support/temp-dir';
import { freshPostgresDatabase } from '../../../support/test-engine';

const open: MerchantConsoleService[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

async function twoInstances(): Promise<[MerchantConsoleService, MerchantConsoleService]> {
  const url = await freshPostgresDatabase();
  const key = randomBytes(32);
  for (const id of ['instance-a', 'instance-b']) {
    open.push(await openService({ dataDir: tempDir(), databaseUrl: url, masterKeyStore: { loadOrCreate: () => key }, instanceId: id }));
  }
  return [open[0]!, open[1]!];
}

const nonceCount = (s: MerchantConsoleService) => s.store.read(async (tx) => (await tx.get<{ n: number }>('SELECT count(*) AS n FROM nonces'))!.n);

describe('purges with several instances on one database', () => {
  it('one instance purges; another that tries meanwhile skips, and may purge once the first is done', async () => {
    const [a, b] = await twoInstances();
    const now = Math.floor(Date.now() / 1000);
    await a.store.write(async (tx) => {
      for (let i = 0; i < 5; i++) await tx.run('INSERT INTO nonces (api_key, nonce, expires_at) VALUES (?, ?, ?)', ['mk_test', `old-${i}`, now - 60]);
      await tx.run('INSERT INTO nonces (api_key, nonce, expires_at) VALUES (?, ?, ?)', ['mk_test', 'fresh', now + 600]);
    });

    // Instance a's purge holds the lock (its unit of work stays open) until b has tried.
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const purgeNonces = a.services.requestAuth.purgeExpiredNonces;
    a.services.requestAuth.purgeExpiredNonces = async (tx, limit) => {
      entered();
      await held;
      return purgeNonces(tx, limit);
    };
    const first = a.work.purgeExpired();
    try {
      await inside;
      expect(await b.work.purgeExpired()).toEqual({ purged: 0, skipped: true });
      expect(await nonceCount(b)).toBe(6);
    } finally {
      release();
    }
    expect(await first).toEqual({ purged: 5, skipped: false });
    expect(await nonceCount(a)).toBe(1);
    // The lock ends with a's unit of work: b's next purge runs (and finds nothing to remove).
    expect(await b.work.purgeExpired()).toEqual({ purged: 0, skipped: false });
  });
});

describe('purge beside a request that takes over an expired idempotency key', () => {
  it('leaves the key the request took over: the purge rechecks expiry on the row it waited for', async () => {
    const [a, b] = await twoInstances();
    const m = await seedMerchant(a, 'M');
    const now = Math.floor(Date.now() / 1000);
    const keys = createIdempotencyRepository();
    await a.store.write((tx) =>
      tx.run('INSERT INTO idempotency_keys (merchant_id, idem_key, request_hash, response, order_id, createtime, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
        m.id, 'retried', 'old', '{}', null, now - 86_500, now - 100,
      ]),
    );

    // Instance b takes the expired key over (as a request with that Idempotency-Key does) and holds its unit open.
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const claim = b.store.write(async (tx) => {
      const taken = await keys.claim(tx, { merchant_id: m.id, idem_key: 'retried', request_hash: 'new', createtime: now, expires_at: now + 86_400 });
      entered();
      await held;
      return taken;
    });
    await inside;
    // Instance a's purge found the key expired and now waits for b's row lock.
    const purge = a.work.purgeExpired();
    await waitFor(async () => (await a.store.read((tx) => tx.get<{ n: number }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'DELETE FROM idempotency_keys%'`)))!.n === 1);
    release();
    expect(await claim).toBe(true);
    await purge;
    const row = await a.store.read((tx) => keys.find(tx, m.id, 'retried'));
    expect(row).toMatchObject({ request_hash: 'new', expires_at: now + 86_400 });
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting for the purge to wait on the row lock');
    await new Promise((r) => setTimeout(r, 20));
  }
}
