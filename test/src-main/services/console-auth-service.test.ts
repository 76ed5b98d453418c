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
} from '../../../src-main/services/console-auth-service';
import { manualClock, rowCount, testService } from '../../support/service-harness';

function setup() {
  const clock = manualClock(1_800_000_000);
  const service = testService({ clock });
  return { clock, service, auth: service.services.consoleAuth };
}

const refusedCode = { code: 2006 };

describe('console auth service', () => {
  it('a login token opens one session, once; only hashes are stored', () => {
    const { service, auth } = setup();
    const token = auth.issueLoginToken();
    expect(token.credential).toMatch(/^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
    const stored = service.db.prepare('SELECT * FROM console_login_tokens').all() as { id: string; secret_hash: Buffer }[];
    expect(stored).toHaveLength(1);
    const [id, secret] = token.credential.split('.') as [string, string];
    expect(stored[0]!.id).toBe(id);
    expect(stored[0]!.secret_hash.equals(createHash('sha256').update(secret).digest())).toBe(true);
    expect(JSON.stringify(service.db.prepare('SELECT hex(secret_hash) AS h FROM console_login_tokens').all())).not.toContain(secret);

    const session = auth.exchangeLoginToken(token.credential);
    expect(session.credential).not.toBe(token.credential);
    expect(auth.verifySession(session.credential).id).toBe(session.credential.split('.')[0]);
    expect(rowCount(service, 'console_login_tokens')).toBe(0);
    expect(() => auth.exchangeLoginToken(token.credential)).toThrow(expect.objectContaining({ ...refusedCode, message: expect.stringMatching(/^token: .*already used/) }));
    expect(rowCount(service, 'console_sessions')).toBe(1);
  });

  it('refuses unknown, malformed, tampered and expired credentials', () => {
    const { clock, auth, service } = setup();
    const token = auth.issueLoginToken();
    const [id, secret] = token.credential.split('.') as [string, string];
    const flipped = `${id}.${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    for (const bad of ['', 'x', `${id}.short`, flipped, `${'A'.repeat(22)}.${secret}`]) {
      expect(() => auth.exchangeLoginToken(bad)).toThrow(expect.objectContaining(refusedCode));
    }
    expect(rowCount(service, 'console_login_tokens')).toBe(1); // a wrong guess does not burn the token

    clock.advance(CONSOLE_LOGIN_TOKEN_TTL);
    expect(() => auth.exchangeLoginToken(token.credential)).toThrow(expect.objectContaining(refusedCode));

    for (const bad of [undefined, '', 'garbage', `${id}.${secret}`]) {
      expect(() => auth.verifySession(bad)).toThrow(expect.objectContaining(refusedCode));
    }
  });

  it('compares secrets with timingSafeEqual, also when the id is unknown', () => {
    const { auth } = setup();
    const session = auth.exchangeLoginToken(auth.issueLoginToken().credential);
    const [id, secret] = session.credential.split('.') as [string, string];
    timingSafeEqualSpy.calls.length = 0;

    auth.verifySession(session.credential);
    expect(timingSafeEqualSpy.calls).toHaveLength(1);
    const [presented, stored] = timingSafeEqualSpy.calls[0]!;
    expect(presented.equals(createHash('sha256').update(secret).digest())).toBe(true);
    expect(stored.equals(presented)).toBe(true);

    const wrong = `${id}.${'A'.repeat(43)}`;
    expect(() => auth.verifySession(wrong)).toThrow(expect.objectContaining(refusedCode));
    const unknownId = `${'B'.repeat(22)}.${secret}`;
    expect(() => auth.verifySession(unknownId)).toThrow(expect.objectContaining(refusedCode));
    expect(timingSafeEqualSpy.calls).toHaveLength(3);
  });

  it('sessions end after the idle timeout and at the maximum age; use keeps them alive', () => {
    const { clock, auth, service } = setup();
    const idle = auth.exchangeLoginToken(auth.issueLoginToken().credential);
    clock.advance(CONSOLE_SESSION_IDLE_TIMEOUT - 1);
    auth.verifySession(idle.credential); // used just in time: alive again for another idle period
    clock.advance(CONSOLE_SESSION_IDLE_TIMEOUT - 1);
    auth.verifySession(idle.credential);
    clock.advance(CONSOLE_SESSION_IDLE_TIMEOUT);
    expect(() => auth.verifySession(idle.credential)).toThrow(expect.objectContaining({ code: 2006, message: expect.stringMatching(/expired/) }));
    expect(rowCount(service, 'console_sessions')).toBe(0);

    const busy = auth.exchangeLoginToken(auth.issueLoginToken().credential);
    const step = CONSOLE_SESSION_IDLE_TIMEOUT - 60;
    let age = 0;
    while (age + step < CONSOLE_SESSION_MAX_AGE) {
      clock.advance(step);
      age += step;
      auth.verifySession(busy.credential);
    }
    clock.advance(CONSOLE_SESSION_MAX_AGE - age);
    expect(() => auth.verifySession(busy.credential)).toThrow(expect.objectContaining(refusedCode));
  });

  it('reset revokes every token and session and issues one new token; logout ends one session', () => {
    const { auth, service } = setup();
    const s1 = auth.exchangeLoginToken(auth.issueLoginToken().credential);
    const s2 = auth.exchangeLoginToken(auth.issueLoginToken().credential);
    const unused = auth.issueLoginToken();

    auth.endSession(s1.credential);
    expect(() => auth.verifySession(s1.credential)).toThrow(expect.objectContaining(refusedCode));
    auth.verifySession(s2.credential);

    const fresh = auth.reset();
    expect(fresh).toMatchObject({ revoked_tokens: 1, revoked_sessions: 1 });
    expect(() => auth.verifySession(s2.credential)).toThrow(expect.objectContaining(refusedCode));
    expect(() => auth.exchangeLoginToken(unused.credential)).toThrow(expect.objectContaining(refusedCode));
    expect(auth.verifySession(auth.exchangeLoginToken(fresh.credential).credential)).toBeTruthy();
    expect(rowCount(service, 'console_login_tokens')).toBe(0);
  });

  it('purges expired tokens and idle sessions', () => {
    const { clock, auth, service } = setup();
    auth.issueLoginToken();
    auth.exchangeLoginToken(auth.issueLoginToken().credential);
    clock.advance(CONSOLE_LOGIN_TOKEN_TTL);
    expect(auth.purgeExpired()).toBe(2);
    expect([rowCount(service, 'console_login_tokens'), rowCount(service, 'console_sessions')]).toEqual([0, 0]);
  });
});
