import type { WriteTx } from '../store/store';
import type { MerchantRow } from './merchant-repository';

/** Records a nonce (api_key, nonce, expires_at); no row inserted when the pair is there already (a replay). */
export const INSERT_NONCE = 'INSERT INTO nonces (api_key, nonce, expires_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING';

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

/** Records the pair; false when it was already there (a replay). */
async function consume(tx: WriteTx, apiKey: string, nonce: string, expiresAt: number): Promise<boolean> {
  return (await tx.run(INSERT_NONCE, [apiKey, nonce, expiresAt])) === 1;
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
      const fresh = await consume(tx, apiKey, nonce, expiresAt);
      return generation === null ? { merchant, fresh } : { merchant, fresh, generation };
    },
    /**
     * Records the pair; false when it was already there (a replay). Two
     * instances inserting the same pair at once: the second waits for the
     * first's commit and then inserts nothing, so one nonce is accepted once.
     */
    consume,
    /** Removes up to `limit` expired pairs, oldest first (a bounded step: see service-work's purge). */
    purgeExpired(tx: WriteTx, now: number, limit: number): Promise<number> {
      return tx.run(
        // expires_at tested outside the subquery too, as for idempotency keys (a row is rechecked only against the outer WHERE).
        'DELETE FROM nonces WHERE expires_at < ? AND (api_key, nonce) IN (SELECT api_key, nonce FROM nonces WHERE expires_at < ? ORDER BY expires_at LIMIT ?)',
        [now, now, limit],
      );
    },
  };
}
export type NonceRepository = ReturnType<typeof createNonceRepository>;
