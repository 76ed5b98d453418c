/**
 * Signing in to the console (docs/accounts.md, "Sign-in"): name and
 * password, then — for an account with two-factor sign-in — a TOTP code; an
 * account whose role requires two-factor sign-in but has none enrols first.
 * A session's credential lives in an HttpOnly, SameSite=Strict cookie; one-
 * time links (first-owner setup, password reset) carry a token in the URL's
 * fragment. Both are `<id>.<secret>`: the id finds the row, the SHA-256 of
 * the secret is compared in constant time; only hashes are stored, and every
 * check reads the store afresh, so a change on another instance or by the
 * CLI applies on the next request.
 *
 * A failed sign-in answers the same whatever was wrong (unknown name, wrong
 * password or code, disabled account). Failures are counted per name and per
 * client address in the store (every instance shares them): past a few, the
 * next try must wait, and then the name or address is locked for a while
 * (THROTTLE below). Every attempt, failed or not, is audited in the unit of
 * work that counts it.
 *
 * Password hashing runs on libuv's thread pool and takes ~0.1 s: it happens
 * between units of work, never inside one (it would hold a write batch or a
 * pooled connection meanwhile). Each method says which part it is.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { roleNeedsTotp } from '../../src-shared/auth/permissions';
import { AppError, ErrorCode } from '../../src-shared/errors';
import { dummyHash, verifyPassword } from '../auth/password-hash';
import { totpStepOf } from '../auth/totp';
import type { SecretBox } from '../crypto/secret-box';
import type { AccountRepository, AccountRow } from '../repositories/account-repository';
import type { ConsoleAuthRepository, ConsoleSessionRow, LinkPurpose, SessionStage, ThrottleRow } from '../repositories/console-auth-repository';
import type { ReadTx, WriteTx } from '../store/store';
import type { AuditActor, AuditService } from './audit-service';
import type { Clock } from './context';

/** A session ends after this long without a console call… */
export const CONSOLE_SESSION_IDLE_TIMEOUT = 12 * 3600;
/** …and at the latest this long after sign-in. */
export const CONSOLE_SESSION_MAX_AGE = 7 * 24 * 3600;
/** Between the password and the code, or until two-factor sign-in is enrolled. */
export const PARTIAL_SESSION_MAX_AGE = 15 * 60;
/** A first-owner setup link. */
export const SETUP_LINK_TTL = 24 * 3600;
/** A password link (reset, or a new account's first password). */
export const PASSWORD_LINK_TTL = 24 * 3600;
/** last_seen_at is written at most this often (one write per call would be wasteful). */
const TOUCH_INTERVAL = 60;

/**
 * Sign-in throttling (docs/accounts.md). Failures within `windowSeconds` of
 * the first one count; up to `free` cost nothing; each further one makes the
 * next try wait `stepSeconds` × (failures − free); at `lockAt` the key is
 * locked for `lockSeconds`. A success clears the name's count.
 */
export const THROTTLE = {
  windowSeconds: 15 * 60,
  lockSeconds: 15 * 60,
  name: { free: 3, stepSeconds: 30, lockAt: 10 },
  address: { free: 10, stepSeconds: 5, lockAt: 30 },
} as const;

type ThrottlePolicy = (typeof THROTTLE)['name'] | (typeof THROTTLE)['address'];

const CREDENTIAL = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;
const DUMMY_HASH = Buffer.alloc(32);

export const SIGN_IN_FAILED_MESSAGE = 'sign-in failed: the name, password or code is wrong, or the account is disabled';

export interface IssuedCredential {
  credential: string;
  expires_at: number;
}

/** A checked session with the account it belongs to (read afresh on every request). */
export interface ConsoleSession {
  id: string;
  expires_at: number;
  stage: SessionStage;
  account: AccountRow;
  merchantIds: readonly number[] | null;
  touch: 'none' | 'seen' | 'expired';
}

export interface ClientInfo {
  address: string | null;
  userAgent: string | null;
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

function nameKey(login: string): string {
  return `name:${login.trim().toLowerCase().slice(0, 64)}`;
}
function addressKey(address: string | null): string | null {
  return address ? `addr:${address}` : null;
}

/** Seconds until the key may try again, or 0. */
function waitOf(row: ThrottleRow | undefined, now: number): number {
  return row && row.blocked_until > now ? row.blocked_until - now : 0;
}

/** The row after one more failure. */
export function afterFailure(row: ThrottleRow | undefined, key: string, policy: ThrottlePolicy, now: number): ThrottleRow {
  const fresh = !row || (row.first_failure_at + THROTTLE.windowSeconds <= now && row.blocked_until <= now);
  const failures = fresh ? 1 : row.failures + 1;
  const first = fresh ? now : row.first_failure_at;
  let blockedUntil = 0;
  if (failures >= policy.lockAt) blockedUntil = now + THROTTLE.lockSeconds;
  else if (failures > policy.free) blockedUntil = now + policy.stepSeconds * (failures - policy.free);
  return { key, failures, first_failure_at: first, blocked_until: blockedUntil };
}

function throttled(seconds: number): AppError {
  return new AppError(ErrorCode.SIGN_IN_THROTTLED, `sign-in: too many failed attempts; try again in ${seconds} s`, { retryAfter: seconds });
}

export interface ConsoleAuthDeps {
  clock: Clock;
  secretBox: SecretBox;
  consoleAuth: ConsoleAuthRepository;
  accounts: AccountRepository;
  audit: AuditService;
}

export type SignInOutcome = { ok: true; session: IssuedCredential & { stage: SessionStage } } | { ok: false; error: AppError };

export function createConsoleAuthService(deps: ConsoleAuthDeps) {
  const { clock, consoleAuth: auth, accounts, audit } = deps;

  async function openSession(tx: WriteTx, account: AccountRow, stage: SessionStage, client: ClientInfo): Promise<IssuedCredential & { stage: SessionStage }> {
    const now = clock.now();
    const { id, secret } = newCredential();
    const expires_at = now + (stage === 'full' ? CONSOLE_SESSION_MAX_AGE : PARTIAL_SESSION_MAX_AGE);
    await auth.insertSession(tx, {
      id,
      secret_hash: sha256(secret),
      created_at: now,
      last_seen_at: now,
      expires_at,
      account_id: account.id,
      stage,
      address: client.address,
      user_agent: client.userAgent ? client.userAgent.slice(0, 256) : null,
    });
    return { credential: `${id}.${secret}`, expires_at, stage };
  }

  /** The stage a session starts in once the password was right. */
  function stageAfterPassword(account: AccountRow): SessionStage {
    if (account.totp_enabled === 1) return 'password';
    return roleNeedsTotp(account.role) ? 'enrol' : 'full';
  }

  function actorOf(account: AccountRow | undefined, login: string, client: ClientInfo): AuditActor {
    return account
      ? { kind: 'account', accountId: account.id, login: account.login, role: account.role, address: client.address, userAgent: client.userAgent }
      : { kind: 'anonymous', login: login.slice(0, 64), address: client.address, userAgent: client.userAgent };
  }

  /** Counts a failure against the name and the address, audits it; answers the one refusal. */
  async function fail(tx: WriteTx, login: string, account: AccountRow | undefined, client: ClientInfo, why: string): Promise<SignInOutcome> {
    const now = clock.now();
    const keys: [string, ThrottlePolicy][] = [[nameKey(login), THROTTLE.name]];
    const addr = addressKey(client.address);
    if (addr) keys.push([addr, THROTTLE.address]);
    for (const [key, policy] of keys) await auth.saveThrottle(tx, afterFailure(await auth.findThrottleForUpdate(tx, key), key, policy, now));
    // Why it failed is for the audit trail only; the client hears the same answer every time.
    await audit.record(tx, actorOf(account, login, client), { action: 'sign_in.fail', target: `account ${login.slice(0, 64)}`, after: { reason: why } });
    return { ok: false, error: new AppError(ErrorCode.SIGN_IN_FAILED, SIGN_IN_FAILED_MESSAGE) };
  }

  /** Seconds the name or the address must still wait (read in the same unit of work that decides). */
  async function waitFor(tx: ReadTx, login: string, client: ClientInfo, lock: boolean): Promise<number> {
    const find = (key: string) => (lock ? auth.findThrottleForUpdate(tx as WriteTx, key) : auth.findThrottle(tx, key));
    const now = clock.now();
    const addr = addressKey(client.address);
    return Math.max(waitOf(await find(nameKey(login)), now), addr ? waitOf(await find(addr), now) : 0);
  }

  async function sessionRow(tx: ReadTx, credential: string | undefined): Promise<ConsoleSessionRow | undefined> {
    const m = credential ? CREDENTIAL.exec(credential) : null;
    const row = m ? await auth.findSession(tx, m[1]!) : undefined;
    // Compared also when no row was found, so an unknown id takes as long as a wrong secret.
    const ok = secretMatches(row?.secret_hash, m ? m[2]! : (credential ?? ''));
    return row && ok ? row : undefined;
  }

  async function issueLink(tx: WriteTx, purpose: LinkPurpose, accountId: number | null, ttl: number): Promise<IssuedCredential> {
    const now = clock.now();
    const { id, secret } = newCredential();
    await auth.insertLink(tx, { id, secret_hash: sha256(secret), created_at: now, expires_at: now + ttl, purpose, account_id: accountId });
    return { credential: `${id}.${secret}`, expires_at: now + ttl };
  }

  async function takeLink(tx: WriteTx, token: string, purpose: LinkPurpose): Promise<{ accountId: number | null }> {
    const m = CREDENTIAL.exec(token);
    const row = m ? await auth.findLink(tx, m[1]!) : undefined;
    const ok = secretMatches(row?.secret_hash, m ? m[2]! : token);
    if (!row || !ok || row.purpose !== purpose || row.expires_at <= clock.now() || !(await auth.deleteLink(tx, row.id))) {
      throw new AppError(ErrorCode.AUTH_CONSOLE_SESSION, 'token: this link is unknown, already used or expired; ask for a new one');
    }
    return { accountId: row.account_id };
  }

  return {
    /**
     * Step 1 of signing in (a read unit): what the password must be checked
     * against, or the wait imposed on this name or address. Then the caller
     * checks the password (`checkPassword`, outside any unit of work) and
     * records the outcome (`finishPasswordSignIn`).
     */
    async beginSignIn(tx: ReadTx, login: string, client: ClientInfo): Promise<{ account: AccountRow | undefined; wait: number }> {
      const account = await accounts.findByLogin(tx, login.trim().toLowerCase());
      return { account, wait: await waitFor(tx, login, client, false) };
    },

    /** Between the units of work: the password against the account's hash (or a dummy one, so unknown names take as long). */
    async checkPassword(account: AccountRow | undefined, password: string): Promise<boolean> {
      return verifyPassword(password, account?.password_hash ?? (await dummyHash()));
    },

    /** Step 3 (a write unit): counts or clears failures, audits, and opens the session on success. */
    async finishPasswordSignIn(tx: WriteTx, login: string, accountId: number | undefined, passwordOk: boolean, client: ClientInfo): Promise<SignInOutcome> {
      const account = accountId === undefined ? undefined : await accounts.findById(tx, accountId);
      const wait = await waitFor(tx, login, client, true);
      if (wait > 0) {
        await audit.record(tx, actorOf(account, login, client), { action: 'sign_in.throttled', target: `account ${login.slice(0, 64)}`, after: { wait_seconds: wait } });
        return { ok: false, error: throttled(wait) };
      }
      if (!account) return fail(tx, login, undefined, client, 'unknown name');
      if (!passwordOk) return fail(tx, login, account, client, 'wrong password');
      if (account.enabled !== 1) return fail(tx, login, account, client, 'account disabled');
      await auth.clearThrottle(tx, nameKey(login));
      const session = await openSession(tx, account, stageAfterPassword(account), client);
      await audit.record(tx, actorOf(account, login, client), {
        action: session.stage === 'password' ? 'sign_in.password' : 'sign_in',
        target: `account ${account.login}`,
        after: { stage: session.stage },
      });
      return { ok: true, session };
    },

    /** The TOTP step (a write unit): a 'password' session becomes a full one, or the attempt counts as a failure. */
    async finishTotpSignIn(tx: WriteTx, credential: string | undefined, code: string, client: ClientInfo): Promise<SignInOutcome> {
      const row = await sessionRow(tx, credential);
      const now = clock.now();
      if (!row || row.stage !== 'password' || row.expires_at <= now) throw refused('console session: sign in with name and password first');
      const account = (await accounts.findById(tx, row.account_id))!;
      const wait = await waitFor(tx, account.login, client, true);
      if (wait > 0) return { ok: false, error: throttled(wait) };
      const step = account.totp_secret_enc && account.totp_enabled === 1 ? totpStepOf(deps.secretBox.open(account.totp_secret_enc), account.login, code, now) : null;
      if (step === null || !(await accounts.useTotpStep(tx, account.id, step)) || account.enabled !== 1) {
        return fail(tx, account.login, account, client, step === null ? 'wrong code' : account.enabled !== 1 ? 'account disabled' : 'code used before');
      }
      await auth.clearThrottle(tx, nameKey(account.login));
      const expires_at = now + CONSOLE_SESSION_MAX_AGE;
      await auth.setStage(tx, row.id, 'full', expires_at, now);
      await audit.record(tx, actorOf(account, account.login, client), { action: 'sign_in', target: `account ${account.login}`, after: { stage: 'full', second_factor: 'totp' } });
      return { ok: true, session: { credential: credential!, expires_at, stage: 'full' } };
    },

    /** After enrolling two-factor sign-in, an 'enrol' session becomes a full one. */
    async completeEnrolment(tx: WriteTx, sessionId: string): Promise<void> {
      const now = clock.now();
      await auth.setStage(tx, sessionId, 'full', now + CONSOLE_SESSION_MAX_AGE, now);
    },

    /**
     * The session a cookie names, with its account, or AUTH_CONSOLE_SESSION.
     * Read-only: what must be written (an expired session removed,
     * last_seen_at moved on) is returned as `touch` for the caller to apply.
     */
    async checkSession(tx: ReadTx, credential: string | undefined): Promise<ConsoleSession> {
      if (credential === undefined || credential === '') throw refused('console session: not signed in');
      const row = await sessionRow(tx, credential);
      if (!row) throw refused('console session: unknown or ended; sign in again');
      const account = await accounts.findById(tx, row.account_id);
      // A disabled account's sessions end with it (they are deleted then; this covers a race).
      if (!account || account.enabled !== 1) throw refused('console session: the account is disabled');
      const now = clock.now();
      const merchantIds = account.all_merchants === 1 ? null : await accounts.merchantsOf(tx, account.id);
      const base = { id: row.id, expires_at: row.expires_at, stage: row.stage, account, merchantIds };
      if (row.expires_at <= now || row.last_seen_at + CONSOLE_SESSION_IDLE_TIMEOUT <= now) return { ...base, touch: 'expired' };
      return { ...base, touch: now - row.last_seen_at >= TOUCH_INTERVAL ? 'seen' : 'none' };
    },

    /** Applies what checkSession asked for. */
    async touchSession(tx: WriteTx, session: Pick<ConsoleSession, 'id' | 'touch'>): Promise<void> {
      if (session.touch === 'expired') await auth.deleteSession(tx, session.id);
      else if (session.touch === 'seen') await auth.touchSession(tx, session.id, clock.now());
    },

    /** Ends the session of this credential (sign out); unknown credentials are ignored. */
    async endSession(tx: WriteTx, credential: string | undefined, client: ClientInfo): Promise<void> {
      const row = await sessionRow(tx, credential);
      if (!row) return;
      await auth.deleteSession(tx, row.id);
      const account = await accounts.findById(tx, row.account_id);
      if (account) await audit.record(tx, actorOf(account, account.login, client), { action: 'sign_out', target: `account ${account.login}` });
    },

    /** Ends every session of an account (sign out everywhere, disabled, password or role changed). */
    endSessionsOf(tx: WriteTx, accountId: number): Promise<number> {
      return auth.deleteSessionsOf(tx, accountId);
    },

    // ------------------------------------------------------------ one-time links

    /**
     * A first-owner setup link, or null when the store has accounts. Earlier
     * links stay valid (several instances starting together each print one):
     * the first one used creates the owner, and then none works any more.
     */
    async issueSetupLink(tx: WriteTx): Promise<IssuedCredential | null> {
      if ((await accounts.count(tx)) > 0) return null;
      return issueLink(tx, 'setup', null, SETUP_LINK_TTL);
    },

    /** A link that sets an account's password (a reset, or a new account's first password); earlier ones of the account stop working. */
    async issuePasswordLink(tx: WriteTx, accountId: number): Promise<IssuedCredential> {
      await auth.deleteLinks(tx, 'password_reset', accountId);
      return issueLink(tx, 'password_reset', accountId, PASSWORD_LINK_TTL);
    },

    /** Consumes a setup link (the store must still have no account); the caller creates the owner in the same unit of work. */
    async takeSetupLink(tx: WriteTx, token: string): Promise<void> {
      await takeLink(tx, token, 'setup');
      if ((await accounts.count(tx)) > 0) throw new AppError(ErrorCode.CONFLICT, 'setup: the first owner exists already; sign in instead');
    },

    /** Consumes a password link; answers the account it is for. */
    async takePasswordLink(tx: WriteTx, token: string): Promise<number> {
      const { accountId } = await takeLink(tx, token, 'password_reset');
      if (accountId === null) throw new AppError(ErrorCode.AUTH_CONSOLE_SESSION, 'token: this link is not for an account');
      return accountId;
    },

    /** A session for an account that has just been set up (the first owner): it enrols two-factor sign-in first when its role needs it. */
    openSessionFor(tx: WriteTx, account: AccountRow, client: ClientInfo): Promise<IssuedCredential & { stage: SessionStage }> {
      return openSession(tx, account, roleNeedsTotp(account.role) && account.totp_enabled !== 1 ? 'enrol' : 'full', client);
    },

    purgeExpired(tx: WriteTx): Promise<number> {
      const now = clock.now();
      return auth.purgeExpired(tx, now, now - CONSOLE_SESSION_IDLE_TIMEOUT, now - THROTTLE.windowSeconds);
    },

    counts: (tx: ReadTx) => auth.counts(tx),
  };
}
export type ConsoleAuthService = ReturnType<typeof createConsoleAuthService>;

/** The message of a session that checkSession found expired. */
export const SESSION_EXPIRED_MESSAGE = 'console session: expired; sign in again';
export function sessionExpired(): AppError {
  return refused(SESSION_EXPIRED_MESSAGE);
}
