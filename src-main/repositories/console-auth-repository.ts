import type { Database } from 'better-sqlite3';

export interface ConsoleSecretRow {
  id: string;
  secret_hash: Buffer;
  created_at: number;
  expires_at: number;
}

export interface ConsoleSessionRow extends ConsoleSecretRow {
  last_seen_at: number;
}

/** Login tokens and sessions of the browser console (hashes only). */
export function createConsoleAuthRepository(db: Database) {
  const insertToken = db.prepare<ConsoleSecretRow>(
    'INSERT INTO console_login_tokens (id, secret_hash, created_at, expires_at) VALUES (@id, @secret_hash, @created_at, @expires_at)',
  );
  const tokenById = db.prepare<[string], ConsoleSecretRow>('SELECT * FROM console_login_tokens WHERE id = ?');
  const deleteToken = db.prepare<[string]>('DELETE FROM console_login_tokens WHERE id = ?');
  const insertSession = db.prepare<ConsoleSessionRow>(
    `INSERT INTO console_sessions (id, secret_hash, created_at, last_seen_at, expires_at)
     VALUES (@id, @secret_hash, @created_at, @last_seen_at, @expires_at)`,
  );
  const sessionById = db.prepare<[string], ConsoleSessionRow>('SELECT * FROM console_sessions WHERE id = ?');
  const touchSession = db.prepare<[number, string]>('UPDATE console_sessions SET last_seen_at = ? WHERE id = ?');
  const deleteSession = db.prepare<[string]>('DELETE FROM console_sessions WHERE id = ?');
  const deleteAllTokens = db.prepare('DELETE FROM console_login_tokens');
  const deleteAllSessions = db.prepare('DELETE FROM console_sessions');
  const purgeTokens = db.prepare<[number]>('DELETE FROM console_login_tokens WHERE expires_at <= ?');
  const purgeSessions = db.prepare<[number, number]>('DELETE FROM console_sessions WHERE expires_at <= ? OR last_seen_at <= ?');
  const counts = db.prepare<[], { tokens: number; sessions: number }>(
    'SELECT (SELECT count(*) FROM console_login_tokens) AS tokens, (SELECT count(*) FROM console_sessions) AS sessions',
  );

  return {
    insertToken(row: ConsoleSecretRow): void {
      insertToken.run(row);
    },
    findToken(id: string): ConsoleSecretRow | undefined {
      return tokenById.get(id);
    },
    /** False when someone else used (deleted) it first. */
    deleteToken(id: string): boolean {
      return deleteToken.run(id).changes === 1;
    },
    insertSession(row: ConsoleSessionRow): void {
      insertSession.run(row);
    },
    findSession(id: string): ConsoleSessionRow | undefined {
      return sessionById.get(id);
    },
    touchSession(id: string, now: number): void {
      touchSession.run(now, id);
    },
    deleteSession(id: string): boolean {
      return deleteSession.run(id).changes === 1;
    },
    /** Revokes everything: every unused login token and every session. */
    deleteAll(): { tokens: number; sessions: number } {
      return { tokens: deleteAllTokens.run().changes, sessions: deleteAllSessions.run().changes };
    },
    purgeExpired(now: number, idleBefore: number): number {
      return purgeTokens.run(now).changes + purgeSessions.run(now, idleBefore).changes;
    },
    counts(): { tokens: number; sessions: number } {
      return counts.get()!;
    },
  };
}
export type ConsoleAuthRepository = ReturnType<typeof createConsoleAuthRepository>;
