import type { WriteTx } from '../store/store';
import { nonceBucket } from '../store/migrations/0012-nonce-buckets';
import type { MerchantRow } from './merchant-repository';

/**
 * PostgreSQL: records a nonce (api_key, nonce, expires_at); no row inserted
 * when the pair is there already (a replay). The key (api_key, nonce) makes
 * a second instance inserting the same pair wait for the first's commit.
 */
export const INSERT_NONCE = 'INSERT INTO nonces (api_key, nonce, expires_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING';

/**
 * SQLite: the pair's row goes in its expiry's bucket unless the pair is in
 * that bucket (the key's conflict) or either next to it: the one before
 * holds the pairs of the last NONCE_BUCKET_SECONDS, the one after those
 * recorded before the clock stepped back. Three reads of the key, no other
 * index. The writer is one process (the data dir's lock) and its units run
 * one after another, so the check and the insert see the same rows. Values:
 * sqliteNonceValues. `ifGeneration`: only while the row generation is the
 * one given (the order repository's claim; an insert of nothing declines it).
 */
export function sqliteInsertNonce({ ifGeneration = false } = {}): string {
  return `INSERT INTO nonces (bucket, api_key, nonce, expires_at) SELECT ?, ?, ?, ?${ifGeneration ? ' FROM row_generation WHERE id = 1 AND generation = ? AND' : ' WHERE'}
    NOT EXISTS (SELECT 1 FROM nonces WHERE bucket IN (?, ?) AND api_key = ? AND nonce = ?) ON CONFLICT DO NOTHING`;
}

/** The values of sqliteInsertNonce's statement (with `generation` for its ifGeneration form). */
export function sqliteNonceValues(apiKey: string, nonce: string, expiresAt: number, generation?: string): unknown[] {
  const bucket = nonceBucket(expiresAt);
  return generation === undefined
    ? [bucket, apiKey, nonce, expiresAt, bucket - 1, bucket + 1, apiKey, nonce]
    : [bucket, apiKey, nonce, expiresAt, generation, bucket - 1, bucket + 1, apiKey, nonce];
}

const SQLITE_INSERT_NONCE = sqliteInsertNonce();

/** SQLite: a purge step, up to `limit` pairs of buckets before the first parameter's, in key order (neighbouring rows). */
export const SQLITE_PURGE_NONCES =
  'DELETE FROM nonces WHERE bucket < ? AND (bucket, api_key, nonce) IN (SELECT bucket, api_key, nonce FROM nonces WHERE bucket < ? ORDER BY bucket, api_key, nonce LIMIT ?)';

/**
 * PostgreSQL: the merchant and the nonce in one round trip (one row, whether
 * or not the key names a merchant), with the row generation (migrations 0010
 * and 0011) the merchant was read at. The insert happens even when the
 * caller then refuses the request; its unit of work is rolled back then.
 */
const MERCHANT_WITH_NONCE_POSTGRES = `WITH n AS (${INSERT_NONCE} RETURNING 1)
  SELECT (SELECT count(*) FROM n) AS nonce_fresh, g.generation AS row_generation, m.* FROM (SELECT 1) AS one
    LEFT JOIN merchants m ON m.api_key = ? LEFT JOIN row_generation g ON g.id = 1`;

/**
 * SQLite: the merchant with the row generation it was read at (the nonce is
 * a statement of its own: a few µs, in the batch's transaction anyway).
 * Both engines: no generation (nothing cached) if its row were gone, rather
 * than no merchant.
 */
const MERCHANT_WITH_GENERATION_SQLITE = `SELECT m.*, g.generation AS row_generation FROM merchants m LEFT JOIN row_generation g ON g.id = 1 WHERE m.api_key = ?`;

/** Records the pair; false when it was already there (a replay). Also the order repository's, for a claim already checked. */
export async function consumeNonce(tx: WriteTx, apiKey: string, nonce: string, expiresAt: number): Promise<boolean> {
  if (tx.dialect === 'sqlite') return (await tx.run(SQLITE_INSERT_NONCE, sqliteNonceValues(apiKey, nonce, expiresAt))) === 1;
  return (await tx.run(INSERT_NONCE, [apiKey, nonce, expiresAt])) === 1;
}

/** SQLite: the pair's row, for a unit that undoes its insert (the order repository's taken number). */
export function sqliteDeleteNonce(tx: WriteTx, apiKey: string, nonce: string, expiresAt: number): Promise<number> {
  return tx.run('DELETE FROM nonces WHERE bucket = ? AND api_key = ? AND nonce = ?', [nonceBucket(expiresAt), apiKey, nonce]);
}

export function createNonceRepository() {
  return {
    /**
     * The merchant of an api_key, and the nonce recorded for it in the same
     * step: `fresh` is false when the pair was already there (a replay) or
     * no merchant has the key. A caller that refuses the request must undo
     * its unit of work (it throws), so a refused request leaves no nonce.
     * `generation`: the row generation the merchant was read at (migrations
     * 0010 and 0011), for a later claim that nothing changed since (order
     * repository, insertWithNonceIfCurrent).
     */
    async merchantConsumingNonce(
      tx: WriteTx,
      apiKey: string,
      nonce: string,
      expiresAt: number,
    ): Promise<{ merchant: MerchantRow | undefined; fresh: boolean; generation?: string }> {
      if (tx.dialect === 'postgres') {
        const row = (await tx.get<MerchantRow & { nonce_fresh: number; row_generation: string | null }>(MERCHANT_WITH_NONCE_POSTGRES, [apiKey, nonce, expiresAt, apiKey]))!;
        const { nonce_fresh: fresh, row_generation: generation, ...merchant } = row;
        if (merchant.id === null) return { merchant: undefined, fresh: false };
        return generation === null ? { merchant, fresh: fresh === 1 } : { merchant, fresh: fresh === 1, generation };
      }
      const row = await tx.get<MerchantRow & { row_generation: string | null }>(MERCHANT_WITH_GENERATION_SQLITE, [apiKey]);
      if (!row) return { merchant: undefined, fresh: false };
      const { row_generation: generation, ...merchant } = row;
      const fresh = await consumeNonce(tx, apiKey, nonce, expiresAt);
      return generation === null ? { merchant, fresh } : { merchant, fresh, generation };
    },
    /**
     * Records the pair; false when it was already there (a replay).
     * PostgreSQL: two instances inserting the same pair at once, the second
     * waits for the first's commit and then inserts nothing, so one nonce is
     * accepted once. SQLite: one writer, its units one after another.
     */
    consume: consumeNonce,
    /**
     * Removes up to `limit` expired pairs, oldest first (a bounded step: see
     * service-work's purge). SQLite: whole buckets, once every pair in them
     * has expired (up to NONCE_BUCKET_SECONDS after the first did), in key
     * order, so a step removes neighbouring rows.
     */
    purgeExpired(tx: WriteTx, now: number, limit: number): Promise<number> {
      if (tx.dialect === 'sqlite') {
        // Bucket b holds expiries before (b + 1) × NONCE_BUCKET_SECONDS: all past once that is no later than now.
        const past = nonceBucket(now);
        return tx.run(SQLITE_PURGE_NONCES, [past, past, limit]);
      }
      return tx.run(
        // expires_at tested outside the subquery too, as for idempotency keys (a row is rechecked only against the outer WHERE).
        'DELETE FROM nonces WHERE expires_at < ? AND (api_key, nonce) IN (SELECT api_key, nonce FROM nonces WHERE expires_at < ? ORDER BY expires_at LIMIT ?)',
        [now, now, limit],
      );
    },
  };
}
export type NonceRepository = ReturnType<typeof createNonceRepository>;
