import type { ReadTx, WriteTx } from '../store/store';

export interface IdempotencyRow {
  merchant_id: number;
  idem_key: string;
  request_hash: string;
  response: string;
  order_id: number | null;
  createtime: number;
  expires_at: number;
}

export function createIdempotencyRepository() {
  return {
    find(tx: ReadTx, merchantId: number, key: string): Promise<IdempotencyRow | undefined> {
      return tx.get('SELECT * FROM idempotency_keys WHERE merchant_id = ? AND idem_key = ?', [merchantId, key]);
    },
    /**
     * Takes the key for this unit of work: inserts it (with an empty
     * response, filled in by `complete` before the commit), or takes over an
     * expired one. False when a live key is there. A second instance taking
     * the same key at once waits for the first one's commit, then sees it.
     */
    async claim(tx: WriteTx, row: Omit<IdempotencyRow, 'response' | 'order_id'>): Promise<boolean> {
      const changed = await tx.run(
        `INSERT INTO idempotency_keys (merchant_id, idem_key, request_hash, response, order_id, createtime, expires_at)
         VALUES (@merchant_id, @idem_key, @request_hash, '', NULL, @createtime, @expires_at)
         ON CONFLICT (merchant_id, idem_key) DO UPDATE SET request_hash = excluded.request_hash, response = '', order_id = NULL,
           createtime = excluded.createtime, expires_at = excluded.expires_at
         WHERE idempotency_keys.expires_at <= excluded.createtime`,
        row,
      );
      return changed === 1;
    },
    async complete(tx: WriteTx, merchantId: number, key: string, response: string, orderId: number | null): Promise<void> {
      await tx.run('UPDATE idempotency_keys SET response = ?, order_id = ? WHERE merchant_id = ? AND idem_key = ?', [response, orderId, merchantId, key]);
    },
    /**
     * Removes up to `limit` expired keys, oldest first (a bounded step: see service-work's purge).
     * The outer `expires_at` test is not redundant: on PostgreSQL a key the subquery found expired may
     * be taken over by `claim` meanwhile; the DELETE then waits for that commit and rechecks only its
     * own WHERE on the new row, so without the test it would delete a live key (and a retry with it
     * would create a second order).
     */
    purgeExpired(tx: WriteTx, now: number, limit: number): Promise<number> {
      return tx.run(
        `DELETE FROM idempotency_keys WHERE expires_at <= ? AND (merchant_id, idem_key) IN
           (SELECT merchant_id, idem_key FROM idempotency_keys WHERE expires_at <= ? ORDER BY expires_at LIMIT ?)`,
        [now, now, limit],
      );
    },
  };
}
export type IdempotencyRepository = ReturnType<typeof createIdempotencyRepository>;
