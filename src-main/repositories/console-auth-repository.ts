import type { ReadTx, WriteTx } from '../store/store';

export interface ConsoleSecretRow {
  id: string;
  secret_hash: Buffer;
  created_at: number;
  expires_at: number;
}

/** password: the password was right, the TOTP code is awaited; enrol: the account must enrol TOTP first; full. */
export type SessionStage = 'password' | 'enrol' | 'full';

export interface ConsoleSessionRow extends ConsoleSecretRow {
  last_seen_at: number;
  account_id: number;
  stage: SessionStage;
  address: string | null;
  user_agent: string | null;
}

/** setup: creates the first owner; password_reset: sets an account's password. */
export type LinkPurpose = 'setup' | 'password_reset';

export interface OneTimeLinkRow extends ConsoleSecretRow {
  purpose: LinkPurpose;
  account_id: number | null;
}

export interface ThrottleRow {
  key: string;
  failures: number;
  first_failure_at: number;
  blocked_until: number;
}

/** Console sessions, one-time links (hashes only) and sign-in throttling, shared by every instance. */
export function createConsoleAuthRepository() {
  return {
    async insertLink(tx: WriteTx, row: OneTimeLinkRow): Promise<void> {
      await tx.run(
        `INSERT INTO console_login_tokens (id, secret_hash, created_at, expires_at, purpose, account_id)
         VALUES (@id, @secret_hash, @created_at, @expires_at, @purpose, @account_id)`,
        row,
      );
    },
    findLink(tx: ReadTx, id: string): Promise<OneTimeLinkRow | undefined> {
      return tx.get('SELECT * FROM console_login_tokens WHERE id = ?', [id]);
    },
    /** False when someone else used (deleted) it first. */
    async deleteLink(tx: WriteTx, id: string): Promise<boolean> {
      return (await tx.run('DELETE FROM console_login_tokens WHERE id = ?', [id])) === 1;
    },
    /** Earlier links of one purpose (for one account) stop working when a new one is made. */
    async deleteLinks(tx: WriteTx, purpose: LinkPurpose, accountId: number | null): Promise<number> {
      return accountId === null
        ? tx.run('DELETE FROM console_login_tokens WHERE purpose = ?', [purpose])
        : tx.run('DELETE FROM console_login_tokens WHERE purpose = ? AND account_id = ?', [purpose, accountId]);
    },
    async insertSession(tx: WriteTx, row: ConsoleSessionRow): Promise<void> {
      await tx.run(
        `INSERT INTO console_sessions (id, secret_hash, created_at, last_seen_at, expires_at, account_id, stage, address, user_agent)
         VALUES (@id, @secret_hash, @created_at, @last_seen_at, @expires_at, @account_id, @stage, @address, @user_agent)`,
        row,
      );
    },
    findSession(tx: ReadTx, id: string): Promise<ConsoleSessionRow | undefined> {
      return tx.get('SELECT * FROM console_sessions WHERE id = ?', [id]);
    },
    async touchSession(tx: WriteTx, id: string, now: number): Promise<void> {
      await tx.run('UPDATE console_sessions SET last_seen_at = ? WHERE id = ?', [now, id]);
    },
    /** Moves a session to the next stage (TOTP given or enrolled), with its new lifetime. */
    async setStage(tx: WriteTx, id: string, stage: SessionStage, expiresAt: number, now: number): Promise<boolean> {
      return (await tx.run('UPDATE console_sessions SET stage = ?, expires_at = ?, last_seen_at = ? WHERE id = ?', [stage, expiresAt, now, id])) === 1;
    },
    async deleteSession(tx: WriteTx, id: string): Promise<boolean> {
      return (await tx.run('DELETE FROM console_sessions WHERE id = ?', [id])) === 1;
    },
    deleteSessionsOf(tx: WriteTx, accountId: number): Promise<number> {
      return tx.run('DELETE FROM console_sessions WHERE account_id = ?', [accountId]);
    },
    async purgeExpired(tx: WriteTx, now: number, idleBefore: number, throttleBefore: number): Promise<number> {
      return (
        (await tx.run('DELETE FROM console_login_tokens WHERE expires_at <= ?', [now])) +
        (await tx.run('DELETE FROM console_sessions WHERE expires_at <= ? OR last_seen_at <= ?', [now, idleBefore])) +
        (await tx.run('DELETE FROM auth_throttle WHERE blocked_until <= ? AND first_failure_at <= ?', [now, throttleBefore]))
      );
    },
    async counts(tx: ReadTx): Promise<{ links: number; sessions: number }> {
      return (await tx.get<{ links: number; sessions: number }>(
        'SELECT (SELECT count(*) FROM console_login_tokens) AS links, (SELECT count(*) FROM console_sessions) AS sessions',
      ))!;
    },

    // ------------------------------------------------------------ throttling
    findThrottle(tx: ReadTx, key: string): Promise<ThrottleRow | undefined> {
      return tx.get('SELECT * FROM auth_throttle WHERE key = ?', [key]);
    },
    /** The row, locked until the unit of work ends: two instances counting one name's failures take turns (PostgreSQL). */
    findThrottleForUpdate(tx: WriteTx, key: string): Promise<ThrottleRow | undefined> {
      return tx.get(`SELECT * FROM auth_throttle WHERE key = ?${tx.dialect === 'postgres' ? ' FOR UPDATE' : ''}`, [key]);
    },
    async saveThrottle(tx: WriteTx, row: ThrottleRow): Promise<void> {
      await tx.run(
        `INSERT INTO auth_throttle (key, failures, first_failure_at, blocked_until) VALUES (@key, @failures, @first_failure_at, @blocked_until)
         ON CONFLICT (key) DO UPDATE SET failures = excluded.failures, first_failure_at = excluded.first_failure_at, blocked_until = excluded.blocked_until`,
        row,
      );
    },
    async clearThrottle(tx: WriteTx, key: string): Promise<void> {
      await tx.run('DELETE FROM auth_throttle WHERE key = ?', [key]);
    },
  };
}
export type ConsoleAuthRepository = ReturnType<typeof createConsoleAuthRepository>;
