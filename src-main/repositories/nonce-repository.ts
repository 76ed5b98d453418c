import type { WriteTx } from '../store/store';

export function createNonceRepository() {
  return {
    /**
     * Records the pair; false when it was already there (a replay). Two
     * instances inserting the same pair at once: the second waits for the
     * first's commit and then inserts nothing, so one nonce is accepted once.
     */
    async consume(tx: WriteTx, apiKey: string, nonce: string, expiresAt: number): Promise<boolean> {
      return (await tx.run('INSERT INTO nonces (api_key, nonce, expires_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [apiKey, nonce, expiresAt])) === 1;
    },
    purgeExpired(tx: WriteTx, now: number): Promise<number> {
      return tx.run('DELETE FROM nonces WHERE expires_at < ?', [now]);
    },
  };
}
export type NonceRepository = ReturnType<typeof createNonceRepository>;
