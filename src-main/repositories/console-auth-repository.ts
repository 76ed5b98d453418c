import type { ReadTx, WriteTx } from '../store/store';

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
export function createConsoleAuthRepository() {
  return {
    async insertToken(tx: WriteTx, row: ConsoleSecretRow): Promise<void> {
      await tx.run('INSERT INTO console_login_tokens (id, secret_hash, created_at, expires_at) VALUES (@id, @secret_hash, @created_at, @expires_at)', row);
    },
    findToken(tx: ReadTx, id: string): Promise<ConsoleSecretRow | undefined> {
      return tx.get('SELECT * FROM console_login_tokens WHERE id = ?', [id]);
    },
    /** False when someone else used (deleted) it first. */
    async deleteToken(tx: WriteTx, id: string): Promise<boolean> {
      return (await tx.run('DELETE FROM console_login_tokens WHERE id = ?', [id])) === 1;
    },
    async insertSession(tx: WriteTx, row: ConsoleSessionRow): Promise<void> {
      await tx.run(
        `INSERT INTO console_sessions (id, secret_hash, created_at, last_seen_at, expires_at)
         VALUES (@id, @secret_hash, @created_at, @last_seen_at, @expires_at)`,
        row,
      );
    },
    findSession(tx: ReadTx, id: string): Promise<ConsoleSessionRow | undefined> {
      return tx.get('SELECT * FROM console_sessions WHERE id = ?', [id]);
    },
    async touchSession(tx: WriteTx, id: string, now: number): Promise<void> {
      await tx.run('UPDATE console_sessions SET last_seen_at = ? WHERE id = ?', [now, id]);
    },
    async deleteSession(tx: WriteTx, id: string): Promise<boolean> {
      return (await tx.run('DELETE FROM console_sessions WHERE id = ?', [id])) === 1;
    },
    /** Revokes everything: every unused login token and every session. */
    async deleteAll(tx: WriteTx): Promise<{ tokens: number; sessions: number }> {
      return { tokens: await tx.run('DELETE FROM console_login_tokens'), sessions: await tx.run('DELETE FROM console_sessions') };
    },
    async purgeExpired(tx: WriteTx, now: number, idleBefore: number): Promise<number> {
      return (
        (await tx.run('DELETE FROM console_login_tokens WHERE expires_at <= ?', [now])) +
        (await tx.run('DELETE FROM console_sessions WHERE expires_at <= ? OR last_seen_at <= ?', [now, idleBefore]))
      );
    },
    async counts(tx: ReadTx): Promise<{ tokens: number; sessions: number }> {
      return (await tx.get<{ tokens: number; sessions: number }>(
        'SELECT (SELECT count(*) FROM console_login_tokens) AS tokens, (SELECT count(*) FROM console_sessions) AS sessions',
      ))!;
    },
  };
}
export type ConsoleAuthRepository = ReturnType<typeof createConsoleAuthRepository>;
