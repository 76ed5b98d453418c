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
import type { ConsoleSessionRow } from '../repositories/console-auth-repository';
import type { ServiceContext } from './context';

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

export function createConsoleAuthService(ctx: ServiceContext) {
  const { repos, clock, db } = ctx;
  const auth = repos.consoleAuth;

  function issueLoginToken(now = clock.now()): IssuedCredential {
    const { id, secret } = newCredential();
    const expires_at = now + CONSOLE_LOGIN_TOKEN_TTL;
    auth.insertToken({ id, secret_hash: sha256(secret), created_at: now, expires_at });
    return { credential: `${id}.${secret}`, expires_at };
  }

  return {
    /** A fresh single-use login token (earlier ones stay valid until used or expired). */
    issueLoginToken(): IssuedCredential {
      return issueLoginToken();
    },

    /** Consumes the login token and opens a session; one use only. */
    exchangeLoginToken(token: string): IssuedCredential {
      const m = CREDENTIAL.exec(token);
      const now = clock.now();
      return db.transaction(() => {
        const row = m ? auth.findToken(m[1]!) : undefined;
        const ok = secretMatches(row?.secret_hash, m ? m[2]! : token);
        if (!row || !ok || row.expires_at <= now || !auth.deleteToken(row.id)) {
          throw refused('token: this login link is unknown, already used, revoked or expired');
        }
        const { id, secret } = newCredential();
        const expires_at = now + CONSOLE_SESSION_MAX_AGE;
        auth.insertSession({ id, secret_hash: sha256(secret), created_at: now, last_seen_at: now, expires_at });
        return { credential: `${id}.${secret}`, expires_at };
      })();
    },

    /** The session a cookie names, or AUTH_CONSOLE_SESSION. Keeps it alive while in use. */
    verifySession(credential: string | undefined): ConsoleSession {
      if (credential === undefined || credential === '') throw refused('console session: not signed in; open the login URL printed by serve');
      const m = CREDENTIAL.exec(credential);
      const row: ConsoleSessionRow | undefined = m ? auth.findSession(m[1]!) : undefined;
      const ok = secretMatches(row?.secret_hash, m ? m[2]! : credential);
      if (!row || !ok) throw refused('console session: unknown or revoked; open a new login URL');
      const now = clock.now();
      if (row.expires_at <= now || row.last_seen_at + CONSOLE_SESSION_IDLE_TIMEOUT <= now) {
        auth.deleteSession(row.id);
        throw refused('console session: expired; open a new login URL');
      }
      if (now - row.last_seen_at >= TOUCH_INTERVAL) auth.touchSession(row.id, now);
      return { id: row.id, expires_at: row.expires_at };
    },

    /** Ends the session of this credential (logout); unknown credentials are ignored. */
    endSession(credential: string | undefined): void {
      const m = credential ? CREDENTIAL.exec(credential) : null;
      if (!m) return;
      const row = auth.findSession(m[1]!);
      if (row && secretMatches(row.secret_hash, m[2]!)) auth.deleteSession(row.id);
    },

    /** Revokes every login token and every session, then issues one new login token. */
    reset(): IssuedCredential & { revoked_tokens: number; revoked_sessions: number } {
      return db.transaction(() => {
        const revoked = auth.deleteAll();
        return { ...issueLoginToken(), revoked_tokens: revoked.tokens, revoked_sessions: revoked.sessions };
      })();
    },

    purgeExpired(): number {
      const now = clock.now();
      return auth.purgeExpired(now, now - CONSOLE_SESSION_IDLE_TIMEOUT);
    },

    counts: () => auth.counts(),
  };
}
export type ConsoleAuthService = ReturnType<typeof createConsoleAuthService>;
