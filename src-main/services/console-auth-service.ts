/**
 * Access to the browser console (docs/console.md). A login token is printed
 * by `serve` (and `console-token new|reset`) as part of a login URL; opening
 * it exchanges the token for a session whose credential lives in an HttpOnly
 * cookie. Both are `<id>.<secret>`: the id finds the row, the SHA-256 of the
 * secret is compared with the stored hash in constant time. Only hashes are
 * stored, and every check reads SQLite afresh, so a reset from another
 * process (the CLI) takes effect on the next request.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError, ErrorCode } from '../../src-shared/errors';
import type { ConsoleAuthRepository, ConsoleSessionRow } from '../repositories/console-auth-repository';
import type { ReadTx, WriteTx } from '../store/store';
import type { Clock } from './context';

/** An unused login token expires after this (seconds). */
export const CONSOLE_LOGIN_TOKEN_TTL = 24 * 3600;
/** A session ends after this long without a console call… */
export const CONSOLE_SESSION_IDLE_TIMEOUT = 12 * 3600;
/** …and at the latest this long after login. */
export const CONSOLE_SESSION_MAX_AGE = 7 * 24 * 3600;
/** last_seen_at is written at most this often (one write per call would be wasteful). */
const TOUCH_INTERVAL = 60;

const CREDENTIAL = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;
const DUMMY_HASH = Buffer.alloc(32);

export interface IssuedCredential {
  credential: string;
  expires_at: number;
}

export interface ConsoleSession {
  id: string;
  expires_at: number;
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function newCredential(): { id: string; secret: string } {
  return { id: randomBytes(16).toString('base64url'), secret: randomBytes(32).toString('base64url') };
}

function refused(message: string): AppError {
  return new AppError(ErrorCode.AUTH_CONSOLE_SESSION, message);
}

/** The stored hash against the presented secret, in constant time (also when nothing was found). */
function secretMatches(stored: Buffer | undefined, secret: string): boolean {
  const presented = sha256(secret);
  const expected = stored && stored.length === presented.length ? stored : DUMMY_HASH;
  return timingSafeEqual(presented, expected) && expected !== DUMMY_HASH;
}

/** Every method runs in the caller's unit of work (tx). */
export function createConsoleAuthService({ clock, consoleAuth: auth }: { clock: Clock; consoleAuth: ConsoleAuthRepository }) {
  async function issueLoginToken(tx: WriteTx, now = clock.now()): Promise<IssuedCredential> {
    const { id, secret } = newCredential();
    const expires_at = now + CONSOLE_LOGIN_TOKEN_TTL;
    await auth.insertToken(tx, { id, secret_hash: sha256(secret), created_at: now, expires_at });
    return { credential: `${id}.${secret}`, expires_at };
  }

  return {
    /** A fresh single-use login token (earlier ones stay valid until used or expired). */
    issueLoginToken(tx: WriteTx): Promise<IssuedCredential> {
      return issueLoginToken(tx);
    },

    /** Consumes the login token and opens a session; one use only (also across instances: the delete decides). */
    async exchangeLoginToken(tx: WriteTx, token: string): Promise<IssuedCredential> {
      const m = CREDENTIAL.exec(token);
      const now = clock.now();
      const row = m ? await auth.findToken(tx, m[1]!) : undefined;
      const ok = secretMatches(row?.secret_hash, m ? m[2]! : token);
      if (!row || !ok || row.expires_at <= now || !(await auth.deleteToken(tx, row.id))) {
        throw refused('token: this login link is unknown, already used, revoked or expired');
      }
      const { id, secret } = newCredential();
      const expires_at = now + CONSOLE_SESSION_MAX_AGE;
      await auth.insertSession(tx, { id, secret_hash: sha256(secret), created_at: now, last_seen_at: now, expires_at });
      return { credential: `${id}.${secret}`, expires_at };
    },

    /**
     * The session a cookie names, or AUTH_CONSOLE_SESSION. Read-only: what
     * must be written (an expired session removed, last_seen_at moved on)
     * is returned as `touch` for the caller to apply in a write.
     */
    async checkSession(tx: ReadTx, credential: string | undefined): Promise<ConsoleSession & { touch: 'none' | 'seen' | 'expired' }> {
      if (credential === undefined || credential === '') throw refused('console session: not signed in; open the login URL printed by serve');
      const m = CREDENTIAL.exec(credential);
      const row: ConsoleSessionRow | undefined = m ? await auth.findSession(tx, m[1]!) : undefined;
      const ok = secretMatches(row?.secret_hash, m ? m[2]! : credential);
      if (!row || !ok) throw refused('console session: unknown or revoked; open a new login URL');
      const now = clock.now();
      if (row.expires_at <= now || row.last_seen_at + CONSOLE_SESSION_IDLE_TIMEOUT <= now) {
        return { id: row.id, expires_at: row.expires_at, touch: 'expired' };
      }
      return { id: row.id, expires_at: row.expires_at, touch: now - row.last_seen_at >= TOUCH_INTERVAL ? 'seen' : 'none' };
    },

    /** Applies what checkSession asked for; throws for an expired session. */
    async touchSession(tx: WriteTx, session: ConsoleSession & { touch: 'none' | 'seen' | 'expired' }): Promise<void> {
      if (session.touch === 'expired') {
        await auth.deleteSession(tx, session.id);
        return;
      }
      if (session.touch === 'seen') await auth.touchSession(tx, session.id, clock.now());
    },

    /** Ends the session of this credential (logout); unknown credentials are ignored. */
    async endSession(tx: WriteTx, credential: string | undefined): Promise<void> {
      const m = credential ? CREDENTIAL.exec(credential) : null;
      if (!m) return;
      const row = await auth.findSession(tx, m[1]!);
      if (row && secretMatches(row.secret_hash, m[2]!)) await auth.deleteSession(tx, row.id);
    },

    /** Revokes every login token and every session, then issues one new login token. */
    async reset(tx: WriteTx): Promise<IssuedCredential & { revoked_tokens: number; revoked_sessions: number }> {
      const revoked = await auth.deleteAll(tx);
      return { ...(await issueLoginToken(tx)), revoked_tokens: revoked.tokens, revoked_sessions: revoked.sessions };
    },

    purgeExpired(tx: WriteTx): Promise<number> {
      const now = clock.now();
      return auth.purgeExpired(tx, now, now - CONSOLE_SESSION_IDLE_TIMEOUT);
    },

    counts: (tx: ReadTx) => auth.counts(tx),
  };
}
export type ConsoleAuthService = ReturnType<typeof createConsoleAuthService>;

/** The message of a session that checkSession found expired. */
export const SESSION_EXPIRED_MESSAGE = 'console session: expired; open a new login URL';
export function sessionExpired(): AppError {
  return refused(SESSION_EXPIRED_MESSAGE);
}
