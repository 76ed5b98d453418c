import type { Database } from 'better-sqlite3';

export function createNonceRepository(db: Database) {
  const insert = db.prepare<[string, string, number]>('INSERT OR IGNORE INTO nonces (api_key, nonce, expires_at) VALUES (?, ?, ?)');
  const purge = db.prepare<[number]>('DELETE FROM nonces WHERE expires_at < ?');
  return {
    /** Records the pair; false when it was already there (a replay). */
    consume(apiKey: string, nonce: string, expiresAt: number): boolean {
      return insert.run(apiKey, nonce, expiresAt).changes === 1;
    },
    purgeExpired(now: number): number {
      return purge.run(now).changes;
    },
  };
}
export type NonceRepository = ReturnType<typeof createNonceRepository>;
