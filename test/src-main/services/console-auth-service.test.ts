import { describe, expect, it, vi } from 'vitest';

// Wrap timingSafeEqual (keeping its behaviour) to see that every check goes through it.
const timingSafeEqualSpy = vi.hoisted(() => ({ calls: [] as [Buffer, Buffer][] }));
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return {
    ...actual,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      timingSafeEqualSpy.calls.push([Buffer.from(a as Buffer), Buffer.from(b as Buffer)]);
      return actual.timingSafeEqual(a, b);
    },
  };
});

import { createHash } from 'node:crypto';
import {
  afterFailure,
  CONSOLE_SESSION_IDLE_TIMEOUT,
  CONSOLE_SESSION_MAX_AGE,
  PARTIAL_SESSION_MAX_AGE,
  SETUP_LINK_TTL,
  SIGN_IN_FAILED_MESSAGE,
  sessionExpired,
  THROTTLE,
  type ClientInfo,
} from '../../../src-main/services/console-auth-service';
import { SYSTEM_ACTOR } from '../../../src-main/services/audit-service';
import { manualClock, read, rowCount, testService, write } from '../../support/service-harness';
import { createTestAccount, totpCode, type TestAccount } from '../../support/accounts';
import type { MerchantConsoleService } from '../../../src-main/service';

const CLIENT: ClientInfo = { address: '192.0.2.10', userAgent: 'vitest' };

/** Sign-in as the console routes do it: a read, the password checked between units of work, a write. */
function authOf(service: MerchantConsoleService) {
  const auth = service.services.consoleAuth;
  return {
    async signIn(login: string, password: string, client = CLIENT) {
      const begun = await read(service, (tx) => auth.beginSignIn(tx, login, client));
      const ok = begun.wait === 0 && (await auth.checkPassword(begun.account, password));
      return write(service, (tx) => auth.finishPasswordSignIn(tx, login, begun.account?.id, ok, client));
    },
    totp: (credential: string, code: string, client = CLIENT) => write(service, (tx) => auth.finishTotpSignIn(tx, credential, code, client)),
    /** Check (read), then what the check asks to write, as http/console-routes.ts does. */
    async verifySession(credential: string | undefined) {
      const session = await read(service, (tx) => auth.checkSession(tx, credential));
      if (session.touch !== 'none') await write(service, (tx) => auth.touchSession(tx, session));
      if (session.touch === 'expired') throw sessionExpired();
      return session;
    },
    endSession: (credential: string) => write(service, (tx) => auth.endSession(tx, credential, CLIENT)),
    purgeExpired: () => write(service, (tx) => auth.purgeExpired(tx)),
  };
}

async function setup() {
  const clock = manualClock(1_800_000_000);
  const service = await testService({ clock });
  return { clock, service, auth: authOf(service) };
}

async function full(auth: ReturnType<typeof authOf>, service: MerchantConsoleService, account: TestAccount): Promise<string> {
  const first = await auth.signIn(account.login, account.password);
  if (!first.ok) throw first.error;
  if (first.session.stage === 'password') {
    const second = await auth.totp(first.session.credential, totpCode(service, account));
    if (!second.ok) throw second.error;
  }
  return first.session.credential;
}

const auditActions = (service: MerchantConsoleService) => read(service, async (tx) => (await tx.all<{ action: string }>('SELECT action FROM audit_log ORDER BY id')).map((r) => r.action));

describe('console sign-in', () => {
  it('name and password open a session bound to the account; only hashes are stored; the sign-in is audited', async () => {
    const { service, auth } = await setup();
    const operator = await createTestAccount(service, { role: 'operator' });
    const outcome = await auth.signIn(`  ${operator.login.toUpperCase()} `, operator.password);
    expect(outcome).toMatchObject({ ok: true, session: { stage: 'full', expires_at: 1_800_000_000 + CONSOLE_SESSION_MAX_AGE } });
    const credential = outcome.ok ? outcome.session.credential : '';
    expect(credential).toMatch(/^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
    const [id, secret] = credential.split('.') as [string, string];
    const stored = await read(service, (tx) => tx.get<{ id: string; secret_hash: Buffer; account_id: number; address: string; stage: string }>('SELECT * FROM console_sessions'));
    expect(stored).toMatchObject({ id, account_id: operator.id, address: CLIENT.address, stage: 'full' });
    expect(stored!.secret_hash.equals(createHash('sha256').update(secret).digest())).toBe(true);
    const session = await auth.verifySession(credential);
    expect(session.account.login).toBe(operator.login);
    expect(session.merchantIds).toBeNull();
    expect(await auditActions(service)).toContain('sign_in');
  });

  it('a failed sign-in answers the same whatever was wrong, and each failure is audited with its reason', async () => {
    const { service, auth } = await setup();
    const operator = await createTestAccount(service, { role: 'operator' });
    const disabled = await createTestAccount(service, { role: 'viewer' });
    await write(service, (tx) => service.services.accounts.update(tx, SYSTEM_ACTOR, { id: disabled.id, enabled: false }));
    const attempts: [string, string][] = [
      ['nobody-here', operator.password],
      [operator.login, 'wrong password, long enough'],
      [disabled.login, disabled.password],
    ];
    for (const [login, password] of attempts) {
      // Each from its own address: the per-address count stays out of this.
      const outcome = await auth.signIn(login, password, { address: `192.0.2.${attempts.findIndex((a) => a[0] === login) + 50}`, userAgent: null });
      expect(outcome).toEqual({ ok: false, error: expect.objectContaining({ code: 2009, message: SIGN_IN_FAILED_MESSAGE }) });
    }
    const reasons = await read(service, (tx) => tx.all<{ action: string; after: string }>("SELECT action, after FROM audit_log WHERE action = 'sign_in.fail' ORDER BY id"));
    expect(reasons.map((r) => JSON.parse(r.after).reason)).toEqual(['unknown name', 'wrong password', 'account disabled']);
    expect(await rowCount(service, 'console_sessions')).toBe(0);
  });

  it('repeated failures for one name are slowed, then locked (documented numbers); a success clears the count', async () => {
    const { clock, service, auth } = await setup();
    const operator = await createTestAccount(service, { role: 'operator' });
    const fromAddress = (n: number): ClientInfo => ({ address: `198.51.100.${n}`, userAgent: null });
    for (let i = 1; i <= THROTTLE.name.free; i++) expect((await auth.signIn(operator.login, 'nope nope nope', fromAddress(i))).ok).toBe(false);
    // One more failure: the next try must wait stepSeconds, even with the right password, from any address.
    await auth.signIn(operator.login, 'nope nope nope', fromAddress(20));
    const waiting = await auth.signIn(operator.login, operator.password, fromAddress(21));
    expect(waiting).toEqual({ ok: false, error: expect.objectContaining({ code: 2010, detail: { retryAfter: THROTTLE.name.stepSeconds } }) });
    clock.advance(THROTTLE.name.stepSeconds);
    expect((await auth.signIn(operator.login, operator.password, fromAddress(22))).ok).toBe(true);
    // Cleared: three free failures again.
    for (let i = 1; i <= THROTTLE.name.free; i++) expect(await auth.signIn(operator.login, 'nope nope nope', fromAddress(30 + i))).toMatchObject({ ok: false, error: { code: 2009 } });

    // Locked at lockAt failures within the window.
    let row = afterFailure(undefined, 'k', THROTTLE.name, 0);
    for (let i = 2; i <= THROTTLE.name.lockAt; i++) row = afterFailure(row, 'k', THROTTLE.name, i);
    expect(row.blocked_until).toBe(THROTTLE.name.lockAt + THROTTLE.lockSeconds);
    // Outside the window the count starts over.
    expect(afterFailure({ ...row, blocked_until: 0 }, 'k', THROTTLE.name, THROTTLE.windowSeconds + 100).failures).toBe(1);
  });

  it('one address trying many names is slowed and locked too', async () => {
    const { service, auth } = await setup();
    const viewer = await createTestAccount(service, { role: 'viewer' });
    for (let i = 0; i < THROTTLE.address.free; i++) expect(await auth.signIn(`guess-${i}`, 'x'.repeat(12))).toMatchObject({ ok: false, error: { code: 2009 } });
    await auth.signIn('guess-last', 'x'.repeat(12));
    // The address waits now, whatever name it sends.
    expect(await auth.signIn(viewer.login, viewer.password)).toMatchObject({ ok: false, error: { code: 2010 } });
    expect((await auth.signIn(viewer.login, viewer.password, { address: '203.0.113.9', userAgent: null })).ok).toBe(true);
  });

  it('two-factor: the password opens a partial session; a right code (once) makes it full; a wrong one counts as a failure', async () => {
    const { clock, service, auth } = await setup();
    const finance = await createTestAccount(service, { role: 'finance' });
    const first = await auth.signIn(finance.login, finance.password);
    expect(first).toMatchObject({ ok: true, session: { stage: 'password', expires_at: clock.now() + PARTIAL_SESSION_MAX_AGE } });
    const credential = first.ok ? first.session.credential : '';
    expect((await auth.verifySession(credential)).stage).toBe('password');

    expect(await auth.totp(credential, '000000')).toEqual({ ok: false, error: expect.objectContaining({ code: 2009 }) });
    const code = totpCode(service, finance);
    expect(await auth.totp(credential, code)).toMatchObject({ ok: true, session: { stage: 'full' } });
    expect((await auth.verifySession(credential)).stage).toBe('full');

    // The same code never works twice, also in another sign-in.
    const again = await auth.signIn(finance.login, finance.password);
    expect(await auth.totp(again.ok ? again.session.credential : '', code)).toMatchObject({ ok: false, error: { code: 2009 } });
    await expect(auth.totp('not-a-session', totpCode(service, finance, 1))).rejects.toThrow(expect.objectContaining({ code: 2006 }));
    expect(await auditActions(service)).toEqual(expect.arrayContaining(['sign_in.password', 'sign_in', 'sign_in.fail']));
  });

  it('an account whose role can approve but has no two-factor enrolls first', async () => {
    const { service, auth } = await setup();
    const owner = await createTestAccount(service, { role: 'owner', totp: false });
    const outcome = await auth.signIn(owner.login, owner.password);
    expect(outcome).toMatchObject({ ok: true, session: { stage: 'enrol' } });
  });

  it('sessions end after the idle timeout and at the maximum age; use keeps them alive; a disabled account is out at once', async () => {
    const { clock, auth, service } = await setup();
    const viewer = await createTestAccount(service, { role: 'viewer' });
    const idle = await full(auth, service, viewer);
    clock.advance(CONSOLE_SESSION_IDLE_TIMEOUT - 1);
    await auth.verifySession(idle); // used just in time: alive again for another idle period
    clock.advance(CONSOLE_SESSION_IDLE_TIMEOUT - 1);
    await auth.verifySession(idle);
    clock.advance(CONSOLE_SESSION_IDLE_TIMEOUT);
    await expect(auth.verifySession(idle)).rejects.toThrow(expect.objectContaining({ code: 2006, message: expect.stringMatching(/expired/) }));
    expect(await rowCount(service, 'console_sessions')).toBe(0);

    const busy = await full(auth, service, viewer);
    const step = CONSOLE_SESSION_IDLE_TIMEOUT - 60;
    let age = 0;
    while (age + step < CONSOLE_SESSION_MAX_AGE) {
      clock.advance(step);
      age += step;
      await auth.verifySession(busy);
    }
    clock.advance(CONSOLE_SESSION_MAX_AGE - age);
    await expect(auth.verifySession(busy)).rejects.toThrow(expect.objectContaining({ code: 2006 }));

    const live = await full(auth, service, viewer);
    await write(service, (tx) => service.services.accounts.update(tx, SYSTEM_ACTOR, { id: viewer.id, enabled: false }));
    await expect(auth.verifySession(live)).rejects.toThrow(expect.objectContaining({ code: 2006 }));
  });

  it('compares secrets with timingSafeEqual, also when the id is unknown', async () => {
    const { auth, service } = await setup();
    const credential = await full(auth, service, await createTestAccount(service, { role: 'viewer' }));
    const [id, secret] = credential.split('.') as [string, string];
    timingSafeEqualSpy.calls.length = 0;
    await auth.verifySession(credential);
    expect(timingSafeEqualSpy.calls).toHaveLength(1);
    const [presented, stored] = timingSafeEqualSpy.calls[0]!;
    expect(presented.equals(createHash('sha256').update(secret).digest())).toBe(true);
    expect(stored.equals(presented)).toBe(true);
    await expect(auth.verifySession(`${id}.${'A'.repeat(43)}`)).rejects.toThrow(expect.objectContaining({ code: 2006 }));
    await expect(auth.verifySession(`${'B'.repeat(22)}.${secret}`)).rejects.toThrow(expect.objectContaining({ code: 2006 }));
    expect(timingSafeEqualSpy.calls).toHaveLength(3);
  });

  it('sign out ends one session; ending every session of an account ends them all', async () => {
    const { auth, service } = await setup();
    const viewer = await createTestAccount(service, { role: 'viewer' });
    const s1 = await full(auth, service, viewer);
    const s2 = await full(auth, service, viewer);
    const s3 = await full(auth, service, viewer);
    await auth.endSession(s1);
    await expect(auth.verifySession(s1)).rejects.toThrow(expect.objectContaining({ code: 2006 }));
    await auth.verifySession(s2);
    expect(await write(service, (tx) => service.services.consoleAuth.endSessionsOf(tx, viewer.id))).toBe(2);
    for (const s of [s2, s3]) await expect(auth.verifySession(s)).rejects.toThrow(expect.objectContaining({ code: 2006 }));
  });

  it('setup links: only while no account exists, each usable once, every one dead once the owner exists', async () => {
    const { clock, service } = await setup();
    const auth = service.services.consoleAuth;
    const a = await write(service, (tx) => auth.issueSetupLink(tx));
    const b = await write(service, (tx) => auth.issueSetupLink(tx));
    expect(a && b).toBeTruthy();
    await write(service, (tx) => auth.takeSetupLink(tx, a!.credential));
    await expect(write(service, (tx) => auth.takeSetupLink(tx, a!.credential))).rejects.toThrow(expect.objectContaining({ code: 2006 }));
    await createTestAccount(service, { role: 'owner' });
    await expect(write(service, (tx) => auth.takeSetupLink(tx, b!.credential))).rejects.toThrow(expect.objectContaining({ code: 4001 }));
    expect(await write(service, (tx) => auth.issueSetupLink(tx))).toBeNull();
    clock.advance(SETUP_LINK_TTL);
    expect(await write(service, (tx) => auth.purgeExpired(tx))).toBeGreaterThanOrEqual(0);
  });

  it('password links: for one account, once; a new link replaces the older one', async () => {
    const { service } = await setup();
    const auth = service.services.consoleAuth;
    const viewer = await createTestAccount(service, { role: 'viewer' });
    const old = await write(service, (tx) => auth.issuePasswordLink(tx, viewer.id));
    const link = await write(service, (tx) => auth.issuePasswordLink(tx, viewer.id));
    await expect(write(service, (tx) => auth.takePasswordLink(tx, old.credential))).rejects.toThrow(expect.objectContaining({ code: 2006 }));
    expect(await write(service, (tx) => auth.takePasswordLink(tx, link.credential))).toBe(viewer.id);
    await expect(write(service, (tx) => auth.takePasswordLink(tx, link.credential))).rejects.toThrow(expect.objectContaining({ code: 2006 }));
  });

  it('purges expired links, idle sessions and old throttle counts', async () => {
    const { clock, auth, service } = await setup();
    const viewer = await createTestAccount(service, { role: 'viewer' });
    await write(service, (tx) => service.services.consoleAuth.issuePasswordLink(tx, viewer.id));
    await full(auth, service, viewer);
    await auth.signIn('someone', 'wrong password!');
    clock.advance(CONSOLE_SESSION_MAX_AGE);
    expect(await auth.purgeExpired()).toBe(1 + 1 + 2);
    expect([await rowCount(service, 'console_login_tokens'), await rowCount(service, 'console_sessions'), await rowCount(service, 'auth_throttle')]).toEqual([0, 0, 0]);
  });
});
