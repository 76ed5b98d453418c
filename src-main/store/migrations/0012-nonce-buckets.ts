import type { Migration } from './index';

/**
 * SQLite files nonces by a bucket of their expiry: this many seconds of
 * expires_at. The rows on file are in theirs with this width, so it changes
 * only with a migration that files them again. It is at least
 * NONCE_RETENTION_SECONDS, so a pair recorded since the retention began is
 * in the bucket of a new insert's expiry or the one before (the nonce
 * repository's replay check).
 */
export const NONCE_BUCKET_SECONDS = 900;

/** The bucket of an expiry (Unix seconds, positive), as the migration computes it (expires_at / 900). */
export function nonceBucket(expiresAt: number): number {
  return Math.floor(expiresAt / NONCE_BUCKET_SECONDS);
}

/**
 * SQLite: nonces keyed by a time bucket first, (bucket, api_key, nonce), and
 * no index of their own beside that key.
 *
 * Before, the key was (api_key, nonce), random in time, with an index on
 * expires_at. A purge took the oldest rows by that index and removed each
 * from the key's tree too: one page of it per row, all over the file. After
 * a busy spell (300,000 nonces in the bench's createOrder rounds) the purge
 * wrote a page of WAL per row, and the store's WAL start-overs
 * and the checkpointer's fsyncs held requests behind it for 100–200 ms
 * (docs/benchmarks.md, "Early morning on 2026-12-01"). Keyed by bucket
 * first, what a purge removes is one run of neighbouring pages, and each
 * insert writes one tree instead of two. The replay check reads the
 * buckets next to the insert's (nonce repository, NONCE_BUCKET_SECONDS).
 *
 * The bucket is expires_at / 900 (NONCE_BUCKET_SECONDS). The rows on file
 * are kept, each in its bucket.
 *
 * PostgreSQL: nothing. Its DELETE marks rows in the heap, which is in
 * insertion order, and leaves the key's entries to VACUUM in the background;
 * and with several instances on one database, a replay check across two
 * buckets could miss a row another instance has not committed yet, where a
 * key on (api_key, nonce) alone makes the second insert wait for it
 * (docs/decisions.md, "Purges in steps").
 */
export const migration0012NonceBuckets: Migration = {
  version: 12,
  name: 'SQLite: nonces keyed by time bucket first, so a purge removes neighbouring rows',
  schema: {
    sqlite: `
      CREATE TABLE nonces_by_bucket (
        bucket INTEGER NOT NULL,
        api_key TEXT NOT NULL,
        nonce TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (bucket, api_key, nonce)
      ) WITHOUT ROWID;
      INSERT INTO nonces_by_bucket (bucket, api_key, nonce, expires_at) SELECT expires_at / ${NONCE_BUCKET_SECONDS}, api_key, nonce, expires_at FROM nonces;
      DROP TABLE nonces;
      ALTER TABLE nonces_by_bucket RENAME TO nonces;
`,
    postgres: '-- nothing: PostgreSQL keeps nonces keyed by (api_key, nonce) (see the comment above)',
  },
};
