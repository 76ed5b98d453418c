/**
 * Migration 12 (SQLite): the nonces of a version-11 store are filed by
 * bucket, each pair kept with its expiry and still refused after it.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createNonceRepository } from '../../../src-main/repositories/nonce-repository';
import { LATEST_SCHEMA_VERSION } from '../../../src-main/store/migrations/index';
import { nonceBucket } from '../../../src-main/store/migrations/0012-nonce-buckets';
import { openSqliteStore } from '../../../src-main/store/sqlite/sqlite-store';
import type { ReadTx } from '../../../src-main/store/store';
import { tempDir } from '../../support/temp-dir';

const schemaVersion = async (tx: ReadTx) => (await tx.get<{ user_version: number }>('PRAGMA user_version'))!.user_version;
const PAIRS = [
  { api_key: 'mk_1', nonce: 'a', expires_at: 1_799_999_999 },
  { api_key: 'mk_1', nonce: 'b', expires_at: 1_800_000_000 },
  { api_key: 'mk_2', nonce: 'a', expires_at: 1_800_000_950 },
];

describe('migration 12 (nonces by bucket, SQLite)', () => {
  it('files the nonces of a version-11 store by bucket, and a pair recorded before still counts as used', async () => {
    const file = path.join(tempDir(), 'store.sqlite');
    const old = await openSqliteStore({ file, targetVersion: 11 });
    try {
      await old.write(async (tx) => {
        for (const p of PAIRS) await tx.run('INSERT INTO nonces (api_key, nonce, expires_at) VALUES (?, ?, ?)', [p.api_key, p.nonce, p.expires_at]);
      });
    } finally {
      await old.close();
    }
    const store = await openSqliteStore({ file });
    try {
      expect(await store.read(schemaVersion)).toBe(LATEST_SCHEMA_VERSION);
      expect(await store.read((tx) => tx.all('SELECT bucket, api_key, nonce, expires_at FROM nonces ORDER BY api_key, nonce'))).toEqual(
        PAIRS.map((p) => ({ bucket: nonceBucket(p.expires_at), ...p })),
      );
      // Three buckets: the first two pairs sit on either side of a boundary.
      expect(new Set(PAIRS.map((p) => nonceBucket(p.expires_at))).size).toBe(3);
      expect(await store.read((tx) => tx.all("SELECT name FROM sqlite_master WHERE tbl_name = 'nonces' AND type = 'index' AND sql IS NOT NULL"))).toEqual([]);
      const nonces = createNonceRepository();
      for (const p of PAIRS) expect(await store.write((tx) => nonces.consume(tx, p.api_key, p.nonce, p.expires_at + 10))).toBe(false);
      expect(await store.write((tx) => nonces.consume(tx, 'mk_1', 'c', 1_800_000_010))).toBe(true);
    } finally {
      await store.close();
    }
  });
});
