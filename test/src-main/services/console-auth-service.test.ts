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
  CONSOLE_LOGIN_TOKEN_TTL,
  CONSOLE_SESSION_IDLE_TIMEOUT,
  CONSOLE_SESSION_MAX_AGE,
  sessionExpired,
} from '../../../src-main/services/console-auth-service';
import { manualClock, read, rowCount, testService, write } from '../../support/service-harness';
import type { MerchantConsoleService } from '../../../src-main/service';

/** The console auth calls, each in its own unit of work, as the console routes make them. */
function authOf(service: MerchantConsoleService) {
  const auth = service.services.consoleAuth;
  return {
    issueLoginToken: () => write(service, (tx) => auth.issueLoginToken(tx)),
    exchangeLoginToken: (token: string) => write(service, (tx) => auth.exchangeLoginToken(tx, token)),
    /** Check (read), then what the check asks to write, as http/console-routes.ts does. */
    async verifySession(credential: string | undefined) {
      const session = await read(service, (tx) => auth.checkSession(tx, credential));
      if (session.touch !== 'none') await write(service, (tx) => auth.touchSession(tx, session));
      if (session.touch === 'expired') throw sessionExpired();
      return session;
    },
    endSession: (credential: string) => write(service, (tx) => auth.endSession(tx, credential)),
    reset: () => write(service, (tx) => auth.reset(tx)),
    purgeExpired: () => write(service, (tx) => auth.purgeExpired(tx)),
  };
}

async function setup() {
  const clock = manualClock(1_800_000_000);
  const service = await testService({ clock });
  return { clock, service, auth: authOf(service) };
}

const refusedCode = { code: 2006 };

describe('console auth service', () => {
  it('a login token opens one session, once; only hashes are stored', async () => {
    const { service, auth } = await setup();
    const token = await auth.issueLoginToken();
    expect(token.credential).toMatch(/^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
    const stored = await read(service, (tx) => tx.all<{ id: string; secret_hash: Buffer }>('SELECT * FROM console_login_tokens'));
    expect(stored).toHaveLength(1);
    const [id, secret] = token.credential.split('.') as [string, string];
    expect(stored[0]!.id).toBe(id);
    expect(stored[0]!.secret_hash.equals(createHash('sha256').update(secret).digest())).toBe(true);
    // Nothing stored holds the secret itself, in any column.
    for (const row of stored) {
      for (const value of Object.values(row)) expect(Buffer.isBuffer(value) ? value.toString('latin1') : String(value)).not.toContain(secret);
    }

    const session = await auth.exchangeLoginToken(token.credential);
    expect(session.credential).not.toBe(token.credential);
    expect((await auth.verifySession(session.credential)).id).toBe(session.credential.split('.')[0]);
    expect(await rowCount(service, 'console_login_tokens')).toBe(0);
    await expect(auth.exchangeLoginToken(token.credential)).rejects.toThrow(expect.objectContaining({ ...refusedCode, message: expect.stringMatching(/^token: .*already used/) }));
    expect(await rowCount(service, 'console_sessions')).toBe(1);
  });

  it('refuses unknown, malformed, tampered and expired credentials', async () => {
    const { clock, auth, service } = await setup();
    const token = await auth.issueLoginToken();
    const [id, secret] = token.credential.split('.') as [string, string];
    const flipped = `${id}.${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    for (const bad of ['', 'x', `${id}.short`, flipped, `${'A'.repeat(22)}.${secret}`]) {
      await expect(auth.exchangeLoginToken(bad)).rejects.toThrow(expect.objectContaining(refusedCode));
    }
    expect(await rowCount(service, 'console_login_tokens')).toBe(1); // a wrong guess does not burn the token

    clock.advance(CONSOLE_LOGIN_TOKEN_TTL);
    await expect(auth.exchangeLoginToken(token.credential)).rejects.toThrow(expect.objectContaining(refusedCode));

    for (const bad of [undefined, '', 'garbage', `${id}.${secret}`]) {
      await expect(auth.verifySession(bad)).rejects.toThrow(expect.objectContaining(refusedCode));
    }
  });

  it('compares secrets with timingSafeEqual, also when the id is unknown', async () => {
    const { auth } = await setup();
    const session = await auth.exchangeLoginToken((await auth.issueLoginToken()).credential);
    const [id, secret] = session.credential.split('.') as [string, string];
    timingSafeEqualSpy.calls.length = 0;

    await auth.verifySession(session.credential);
    expect(timingSafeEqualSpy.calls).toHaveLength(1);
    const [presented, stored] = timingSafeEqualSpy.calls[0]!;
    expect(presented.equals(createHash('sha256').update(secret).digest())).toBe(true);
    expect(stored.equals(presented)).toBe(true);

    const wrong = `${id}.${'A'.repeat(43)}`;
    await expect(auth.verifySession(wrong)).rejects.toThrow(expect.objectContaining(refusedCode));
    const unknownId = `${'B'.repeat(22)}.${secret}`;
    await expect(auth.verifySession(unknownId)).rejects.toThrow(expect.objectContaining(refusedCode));
    expect(timingSafeEqualSpy.calls).toHaveLength(3);
  });

  it('sessions end after the idle timeout and at the maximum age; use keeps them alive', async () => {
    const { clock, auth, service } = await setup();
    const idle = await auth.exchangeLoginToken((await auth.issueLoginToken()).credential);
    clock.advance(CONSOLE_SESSION_IDLE_TIMEOUT - 1);
    await auth.verifySession(idle.credential); // used just in time: alive again for another idle period
    clock.advance(CONSOLE_SESSION_IDLE_TIMEOUT - 1);
    await auth.verifySession(idle.credential);
    clock.advance(CONSOLE_SESSION_IDLE_TIMEOUT);
    await expect(auth.verifySession(idle.credential)).rejects.toThrow(expect.objectContaining({ code: 2006, message: expect.stringMatching(/expired/) }));
    expect(await rowCount(service, 'console_sessions')).toBe(0);

    const busy = await auth.exchangeLoginToken((await auth.issueLoginToken()).credential);
    const step = CONSOLE_SESSION_IDLE_TIMEOUT - 60;
    let age = 0;
    while (age + step < CONSOLE_SESSION_MAX_AGE) {
      clock.advance(step);
      age += step;
      await auth.verifySession(busy.credential);
    }
    clock.advance(CONSOLE_SESSION_MAX_AGE - age);
    await expect(auth.verifySession(busy.credential)).rejects.toThrow(expect.objectContaining(refusedCode));
  });

  it('reset revokes every token and session and issues one new token; logout ends one session', async () => {
    const { auth, service } = await setup();
    const s1 = await auth.exchangeLoginToken((await auth.issueLoginToken()).credential);
    const s2 = await auth.exchangeLoginToken((await auth.issueLoginToken()).credential);
    const unused = await auth.issueLoginToken();

    await auth.endSession(s1.credential);
    await expect(auth.verifySession(s1.credential)).rejects.toThrow(expect.objectContaining(refusedCode));
    await auth.verifySession(s2.credential);

    const fresh = await auth.reset();
    expect(fresh).toMatchObject({ revoked_tokens: 1, revoked_sessions: 1 });
    await expect(auth.verifySession(s2.credential)).rejects.toThrow(expect.objectContaining(refusedCode));
    await expect(auth.exchangeLoginToken(unused.credential)).rejects.toThrow(expect.objectContaining(refusedCode));
    expect(await auth.verifySession((await auth.exchangeLoginToken(fresh.credential)).credential)).toBeTruthy();
    expect(await rowCount(service, 'console_login_tokens')).toBe(0);
  });

  it('purges expired tokens and idle sessions', async () => {
    const { clock, auth, service } = await setup();
    await auth.issueLoginToken();
    await auth.exchangeLoginToken((await auth.issueLoginToken()).credential);
    clock.advance(CONSOLE_LOGIN_TOKEN_TTL);
    expect(await auth.purgeExpired()).toBe(2);
    expect([await rowCount(service, 'console_login_tokens'), await rowCount(service, 'console_sessions')]).toEqual([0, 0]);
  });
});
