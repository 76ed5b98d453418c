/**
 * The nonce repository on both engines: a pair is accepted once and refused
 * for the whole retention, across the buckets SQLite files nonces in
 * (migration 0012) and with the clock stepped back; the purge removes what
 * has expired (SQLite: whole buckets once past) and nothing else. Migration
 * 0012 itself: test/src-main/store/migration-0012.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createNonceRepository, SQLITE_PURGE_NONCES } from '../../../src-main/repositories/nonce-repository';
import type { MerchantConsoleService } from '../../../src-main/service';
import { NONCE_BUCKET_SECONDS, nonceBucket } from '../../../src-main/store/migrations/0012-nonce-buckets';
import { NONCE_RETENTION_SECONDS } from '../../../src-shared/constants';
import { manualClock, testService } from '../../support/service-harness';
import { TEST_ENGINE } from '../../support/test-engine';

const nonces = createNonceRepository();
/** A bucket boundary: expiries from here on are in the next bucket. */
const BOUNDARY = 2_000_000 * NONCE_BUCKET_SECONDS;

const consume = (service: MerchantConsoleService, nonce: string, expiresAt: number, apiKey = 'mk_a') =>
  service.store.write((tx) => nonces.consume(tx, apiKey, nonce, expiresAt));
const purge = (service: MerchantConsoleService, now: number) => service.store.write((tx) => nonces.purgeExpired(tx, now, 500), { durable: false });
const stored = (service: MerchantConsoleService) => service.store.read((tx) => tx.all<{ nonce: string }>('SELECT nonce FROM nonces ORDER BY nonce'));

describe('nonce repository', () => {
  it('accepts a pair once, and refuses it for the whole retention, also when the retention crosses into the next bucket', async () => {
    const service = await testService();
    // Recorded 5 s before a boundary: every later request of the retention files its expiry in the next bucket.
    const first = BOUNDARY - 5;
    expect(await consume(service, 'n1', first)).toBe(true);
    for (const later of [1, 5, 6, 300, NONCE_RETENTION_SECONDS - 1]) expect(await consume(service, 'n1', first + later)).toBe(false);
    expect(nonceBucket(first + 6)).toBe(nonceBucket(first) + 1);
    // Another merchant's pair and another nonce are other pairs.
    expect(await consume(service, 'n1', first + 10, 'mk_b')).toBe(true);
    expect(await consume(service, 'n2', first + 10)).toBe(true);
  });

  it('refuses a pair when the clock has stepped back into the bucket before', async () => {
    const service = await testService();
    expect(await consume(service, 'n1', BOUNDARY + 2)).toBe(true);
    expect(await consume(service, 'n1', BOUNDARY - 30)).toBe(false);
  });

  it('purges a pair only once it has expired, and then accepts it again', async () => {
    const service = await testService();
    const expiresAt = BOUNDARY + 100;
    expect(await consume(service, 'old', expiresAt)).toBe(true);
    expect(await consume(service, 'young', expiresAt + NONCE_BUCKET_SECONDS)).toBe(true);
    expect(await purge(service, expiresAt)).toBe(0);
    // Expired: PostgreSQL removes it at once; SQLite once its whole bucket is past (up to a bucket's width later).
    const endOfItsBucket = (nonceBucket(expiresAt) + 1) * NONCE_BUCKET_SECONDS;
    if (TEST_ENGINE === 'sqlite') {
      expect(await purge(service, endOfItsBucket - 1)).toBe(0);
      expect(await stored(service)).toEqual([{ nonce: 'old' }, { nonce: 'young' }]);
    }
    expect(await purge(service, endOfItsBucket)).toBe(1);
    expect(await stored(service)).toEqual([{ nonce: 'young' }]);
    // Past its retention and purged: a new request may use it.
    expect(await consume(service, 'old', endOfItsBucket + NONCE_RETENTION_SECONDS)).toBe(true);
  });

  it('purges in bounded steps, oldest bucket first, and leaves the pairs that have not expired', async () => {
    const clock = manualClock(BOUNDARY + 10);
    const service = await testService({ clock });
    await service.store.write(async (tx) => {
      for (let i = 0; i < 1_200; i++) await nonces.consume(tx, `mk_${i % 13}`, `old-${i}`, clock.now() - NONCE_BUCKET_SECONDS - (i % 3) * NONCE_BUCKET_SECONDS);
      for (let i = 0; i < 5; i++) await nonces.consume(tx, 'mk_0', `fresh-${i}`, clock.now() + NONCE_RETENTION_SECONDS);
    });
    const steps: number[] = [];
    for (let removed = -1; removed !== 0; ) steps.push((removed = await purge(service, clock.now())));
    expect(steps).toEqual([500, 500, 200, 0]);
    expect(await stored(service)).toEqual([0, 1, 2, 3, 4].map((i) => ({ nonce: `fresh-${i}` })));
  });

  it.runIf(TEST_ENGINE === 'sqlite')('SQLite: the nonces are keyed by bucket first, with no other index to update or purge', async () => {
    const service = await testService();
    const indexes = await service.store.read((tx) => tx.all<{ name: string; origin: string }>("SELECT name, origin FROM pragma_index_list('nonces')"));
    expect(indexes).toEqual([{ name: 'sqlite_autoindex_nonces_1', origin: 'pk' }]);
    const key = await service.store.read((tx) => tx.all<{ name: string }>("SELECT name FROM pragma_index_info('sqlite_autoindex_nonces_1') ORDER BY seqno"));
    expect(key.map((c) => c.name)).toEqual(['bucket', 'api_key', 'nonce']);
    // A purge step reads the key's range of past buckets, not the whole table.
    const plan = await service.store.read((tx) =>
tx.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${SQLITE_PURGE_NONCES}`, [1, 1, 1]));
    expect(plan.map((p) => p.detail)).toEqual(expect.arrayContaining([expect.stringContaining('USING PRIMARY KEY (bucket<?)')]));
  });
});
