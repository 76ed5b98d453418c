/**
 * The browser transport of the console over real HTTP on 127.0.0.1: login
 * token → session cookie, every /console-api call checked against the
 * session (revocation from another process applies at once), CSRF / Origin /
 * Host guards, and the static console with its CSP and cache headers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../../support/cli-harness';
import { rawRequest, type RawResponse } from '../../support/http-raw';
import { manualClock, read, seedMerchant, testListener, testService, rowCount, write } from '../../support/service-harness';
import { tempDir } from '../../support/temp-dir';
import { captureLog, type LogCapture } from '../../support/log-capture';
import { CONSOLE_CSP, IMMUTABLE_CACHE, hostAllowed, sessionCookieName } from '../../../src-main/http/console-routes';
import { CONSOLE_SESSION_MAX_AGE, SIGN_IN_FAILED_MESSAGE, THROTTLE } from '../../../src-main/services/console-auth-service';
import { totpCodeAt } from '../../../src-main/auth/totp';
import { createTestAccount, postJson, sessionCookieOf, signInOverHttp, totpCode, type HttpSite, type TestAccount } from '../../support/accounts';
import type { RunningListener } from '../../../src-main/http/server';
import type { MerchantConsoleService } from '../../../src-main/service';
import type { Clock } from '../../../src-main/services/context';

interface Site {
  service: MerchantConsoleService;
  listener: RunningListener;
  dataDir: string;
  consoleDir: string;
  port: number;
  host: string;
  origin: string;
}

async function site({ built = true, logger, clock }: { built?: boolean; logger?: LogCapture['logger']; clock?: Clock } = {}): Promise<Site> {
  const dataDir = tempDir();
  const consoleDir = tempDir();
  if (built) buildFakeConsole(consoleDir);
  const service = await testService({ dataDir, ...(clock ? { clock } : {}) });
  const listener = await testListener(service, { console: { dir: consoleDir, version: '1.2.3-test' }, ...(logger ? { logger } : {}) });
  const port = Number(new URL(listener.url).port);
  const host = `127.0.0.1:${port}`;
  return { service, listener, dataDir, consoleDir, port, host, origin: `http://${host}` };
}

/** What `npm run build:console` leaves behind: index.html + hashed assets. */
function buildFakeConsole(dir: string): void {
  fs.mkdirSync(path.join(dir, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><script type="module" src="./assets/index-Ab12Cd34.js"></script><div id="app"></div>');
  fs.writeFileSync(path.join(dir, 'assets', 'index-Ab12Cd34.js'), 'console.log("console app")');
  fs.writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  fs.writeFileSync(path.join(dir, '.env'), 'SECRET=1');
}

/** An admin account (no two-factor needed: the role cannot approve) signed in over HTTP. */
async function login(s: Site, account?: TestAccount): Promise<{ cookie: string; account: TestAccount }> {
  account ??= await createTestAccount(s.service, { role: 'admin' });
  return { cookie: await signInOverHttp(httpSite(s), account), account };
}

function httpSite(s: Site): HttpSite {
  return { url: s.listener.url, host: s.host, origin: s.origin, service: s.service };
}

function api(s: Site, method: string, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(s.listener.url, 'POST', `/console-api/${method}`, {
    headers: { host: s.host, origin: s.origin, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('console sign-in and sessions over HTTP', () => {
  it('refuses every console call without a session cookie (401 envelope)', async () => {
    const s = await site();
    for (const method of ['getServiceInfo', 'listMerchants', 'noSuchMethod']) {
      const res = await api(s, method, {});
      expect(res.status).toBe(401);
      expect(res.json()).toEqual({ code: 2006, msg: 'console session: not signed in', data: null });
      expect(res.headers['cache-control']).toBe('no-store');
    }
    const forged = await api(s, 'listMerchants', {}, { cookie: `${sessionCookieName(s.port)}=${'A'.repeat(22)}.${'B'.repeat(43)}` });
    expect(forged.status).toBe(401);
    expect(forged.json().code).toBe(2006);
  });

  it('signs in with name and password to an HttpOnly, SameSite=Strict session bound to the account', async () => {
    const s = await site();
    const admin = await createTestAccount(s.service, { role: 'admin' });
    const res = await postJson(httpSite(s), '/console/sign-in', { login: admin.login, password: admin.password });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ code: 1, msg: 'success', data: { stage: 'full' } });
    const setCookie = res.headers['set-cookie']!;
    expect(setCookie).toHaveLength(1);
    const attributes = setCookie[0]!.split(/;\s*/).slice(1).map((a) => a.toLowerCase());
    expect(attributes).toEqual(expect.arrayContaining(['httponly', 'samesite=strict', 'path=/', `max-age=${CONSOLE_SESSION_MAX_AGE}`]));
    expect(attributes).not.toContain('secure'); // plain http on loopback; https public URLs get Secure
    const cookie = sessionCookieOf(res);
    expect(cookie).toMatch(new RegExp(`^mc_console_${s.port}=[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}$`));
    expect(res.headers['cache-control']).toBe('no-store');

    const info = await api(s, 'getServiceInfo', {}, { cookie });
    expect(info.json()).toEqual({ code: 1, msg: 'success', data: { version: '1.2.3-test', data_dir: s.dataDir, listener_url: s.listener.url, listener_error: null } });
    const session = await api(s, 'getSession', {}, { cookie });
    expect(session.json<{ data: { account: { login: string }; stage: string; desktop: boolean } }>().data).toMatchObject({ account: { login: admin.login }, stage: 'full', desktop: false });
    // The audit trail has the sign-in with the client's address and user agent.
    const entry = await read(s.service, (tx) => tx.get<{ address: string; user_agent: string | null }>("SELECT * FROM audit_log WHERE action = 'sign_in'"));
    expect(entry?.address).toBe('127.0.0.1');
  });

  it('answers a failed sign-in the same way whatever was wrong (401), then 429 with Retry-After once too many failed', async () => {
    // A clock that stands still: Retry-After counts from the last failure, and a second may pass on the wall clock.
    const s = await site({ clock: manualClock() });
    const admin = await createTestAccount(s.service, { role: 'admin' });
    const unknown = await postJson(httpSite(s), '/console/sign-in', { login: 'nobody', password: admin.password });
    const wrong = await postJson(httpSite(s), '/console/sign-in', { login: admin.login, password: 'not the password' });
    for (const res of [unknown, wrong]) {
      expect(res.status).toBe(401);
      expect(res.json()).toEqual({ code: 2009, msg: SIGN_IN_FAILED_MESSAGE, data: null });
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    const missing = await postJson(httpSite(s), '/console/sign-in', { login: admin.login });
    expect([missing.status, missing.json().msg]).toEqual([400, 'password: is required']);
    for (let i = 0; i < THROTTLE.name.free; i++) await postJson(httpSite(s), '/console/sign-in', { login: admin.login, password: 'still not it' });
    const throttled = await postJson(httpSite(s), '/console/sign-in', { login: admin.login, password: admin.password });
    expect([throttled.status, throttled.json().code, throttled.headers['retry-after']]).toEqual([429, 2010, String(THROTTLE.name.stepSeconds)]);
  });

  it('two-factor over HTTP: after the password only the code step is open; the code completes the sign-in', async () => {
    const s = await site();
    const finance = await createTestAccount(s.service, { role: 'finance' });
    const first = await postJson(httpSite(s), '/console/sign-in', { login: finance.login, password: finance.password });
    expect(first.json()).toEqual({ code: 1, msg: 'success', data: { stage: 'password' } });
    const cookie = sessionCookieOf(first);
    const early = await api(s, 'listMerchants', {}, { cookie });
    expect([early.status, early.json().msg]).toEqual([401, 'console session: enter the code from your authenticator app first']);
    expect((await api(s, 'getSession', {}, { cookie })).json<{ data: { stage: string } }>().data.stage).toBe('password');
    const wrong = await postJson(httpSite(s), '/console/sign-in/totp', { code: '000000' }, { cookie });
    expect([wrong.status, wrong.json().code]).toEqual([401, 2009]);
    const right = await postJson(httpSite(s), '/console/sign-in/totp', { code: totpCode(s.service, finance) }, { cookie });
    expect(right.json()).toEqual({ code: 1, msg: 'success', data: { stage: 'full' } });
    expect((await api(s, 'listMerchants', {}, { cookie })).status).toBe(200);
  });

  it('first-owner setup: the link works once, signs the owner in, and two-factor enrolment comes first', async () => {
    const s = await site();
    const link = (await write(s.service, (tx) => s.service.services.consoleAuth.issueSetupLink(tx)))!;
    const body = { token: link.credential, login: 'Boss', display_name: 'The Boss', password: 'twelve chars long' };
    const short = await postJson(httpSite(s), '/console/setup', { ...body, password: 'short' });
    expect([short.status, short.json().msg]).toEqual([400, 'password: must be at least 12 characters']);
    const res = await postJson(httpSite(s), '/console/setup', body);
    expect(res.json()).toEqual({ code: 1, msg: 'success', data: { stage: 'enrol' } });
    const cookie = sessionCookieOf(res);
    const session = (await api(s, 'getSession', {}, { cookie })).json<{ data: { account: { login: string; role: string }; stage: string } }>().data;
    expect(session).toMatchObject({ account: { login: 'boss', role: 'owner' }, stage: 'enrol' });
    const early = await api(s, 'listMerchants', {}, { cookie });
    expect([early.status, early.json().code]).toEqual([403, 2008]);

    const enrolment = (await api(s, 'beginTotpEnrolment', {}, { cookie })).json<{ data: { secret: string; otpauth_uri: string; qr_data_url: string } }>().data;
    expect(enrolment.otpauth_uri).toMatch(/^otpauth:\/\/totp\/Merchant%20Console:boss\?/);
    expect(enrolment.qr_data_url).toMatch(/^data:image\/png;base64,/);
    const confirmed = await api(s, 'confirmTotpEnrolment', { code: totpCodeAt(enrolment.secret, 'boss', Math.floor(Date.now() / 1000)) }, { cookie });
    expect(confirmed.json<{ data: { stage: string; account: { totp_enabled: boolean } } }>().data).toMatchObject({ stage: 'full', account: { totp_enabled: true } });
    expect((await api(s, 'listMerchants', {}, { cookie })).status).toBe(200);

    const again = await postJson(httpSite(s), '/console/setup', { ...body, login: 'second' });
    expect([again.status, again.json().code]).toEqual([401, 2006]);
    expect(await rowCount(s.service, 'accounts')).toBe(1);
  });

  it('a password link from resetAccountPassword ends the old sessions and sets a new password once', async () => {
    const s = await site();
    const { cookie: adminCookie } = await login(s);
    const { cookie: oldCookie, account: viewer } = await login(s, await createTestAccount(s.service, { role: 'viewer' }));
    const reset = (await api(s, 'resetAccountPassword', { id: viewer.id }, { cookie: adminCookie })).json<{ data: { url: string } }>().data;
    const url = new URL(reset.url);
    expect(url.pathname).toBe('/console/');
    // The token travels in the fragment: never in a request line or a log.
    expect(url.hash).toMatch(/^#\/set-password\?token=/);
    expect((await api(s, 'listMerchants', {}, { cookie: oldCookie })).status).toBe(401);
    const token = decodeURIComponent(url.hash.split('token=')[1]!);
    const set = await postJson(httpSite(s), '/console/password', { token, password: 'a brand new passphrase' });
    expect(set.json()).toEqual({ code: 1, msg: 'success', data: { password_set: true } });
    expect((await postJson(httpSite(s), '/console/password', { token, password: 'a brand new passphrase' })).status).toBe(401);
    const fresh = await signInOverHttp(httpSite(s), { ...viewer, password: 'a brand new passphrase' });
    expect((await api(s, 'listMerchants', {}, { cookie: fresh })).status).toBe(200);
  });

  it('serves the contract: validation errors name the field with HTTP 400, writes persist, lossless numbers', async () => {
    const s = await site();
    const m = await seedMerchant(s.service);
    const { cookie } = await login(s);

    const created = await api(s, 'createOrder', `{"merchant_id":${m.id},"order_type":1,"cny_amount":100.50,"paychannel_id":${m.channels.beta},"paychannel_paymethod":"bank"}`, { cookie });
    expect(created.status).toBe(200);
    expect(created.json<{ code: number; data: { cny_amount: string; pay_url: string } }>().data).toMatchObject({ cny_amount: '100.50' });
    expect(created.json<{ data: { pay_url: string } }>().data.pay_url.startsWith(`${s.listener.url}/pay/`)).toBe(true);

    const before = await rowCount(s.service, 'orders');
    const bad = await api(s, 'createOrder', { merchant_id: m.id, order_type: 1, cny_amount: '1.001', paychannel_id: m.channels.beta, paychannel_paymethod: 'bank' }, { cookie });
    expect(bad.status).toBe(400);
    expect(bad.json()).toEqual({ code: 1001, msg: 'cny_amount: must have at most 2 decimal places', data: null });
    expect(await rowCount(s.service, 'orders')).toBe(before);

    const missing = await api(s, 'getOrder', { merchant_id: m.id, order_no: 'B1' }, { cookie });
    expect([missing.status, missing.json().code]).toEqual([404, 3001]);
    const unknown = await api(s, 'dropTables', {}, { cookie });
    expect([unknown.status, unknown.json().msg]).toEqual([404, 'method: no console call named dropTables']);
    const malformed = await api(s, 'listMerchants', '{"a":', { cookie });
    expect([malformed.status, malformed.json().code]).toEqual([400, 1002]);

    const settings = await api(s, 'getSettings', {}, { cookie });
    expect(settings.json<{ data: { listener_in_use: unknown } }>().data.listener_in_use).toEqual({
      enabled: true,
      host: '127.0.0.1',
      port: s.port,
      base_path: '/addons/paychannel',
    });
  });

  it('marks the session cookie Secure (also when clearing it) when the public URL is https', async () => {
    const service = await testService();
    const consoleDir = tempDir();
    buildFakeConsole(consoleDir);
    const listener = await testListener(service, { publicUrl: 'https://pay.example.com/', console: { dir: consoleDir } });
    const host = 'pay.example.com';
    const admin = await createTestAccount(service, { role: 'admin' });
    const res = await postJson({ url: listener.url, host, origin: 'https://pay.example.com', service }, '/console/sign-in', { login: admin.login, password: admin.password });
    expect(res.status).toBe(200);
    const attributes = res.headers['set-cookie']![0]!.split(/;\s*/).slice(1).map((a) => a.toLowerCase());
    expect(attributes).toEqual(expect.arrayContaining(['secure', 'httponly', 'samesite=strict']));
    const cookie = sessionCookieOf(res);
    const out = await rawRequest(listener.url, 'POST', '/console/logout', {
      headers: { host, origin: 'https://pay.example.com', 'content-type': 'application/json', cookie },
      body: '{}',
    });
    expect(out.status).toBe(200);
    expect(out.headers['set-cookie']![0]!.split(/;\s*/).map((a) => a.toLowerCase())).toContain('secure');
  });

  it('honours a change by the CLI in another process at once (account disable ends the sessions)', async () => {
    const s = await site();
    const { cookie, account } = await login(s);
    expect((await api(s, 'listMerchants', {}, { cookie })).status).toBe(200);
    const disabled = await cli(['account', 'disable', account.login, '--data-dir', s.dataDir, '--json']);
    expect(disabled.code).toBe(0);
    expect(disabled.json()).toMatchObject({ login: account.login, enabled: false });
    const after = await api(s, 'listMerchants', {}, { cookie });
    expect([after.status, after.json().code]).toEqual([401, 2006]);
    const again = await postJson(httpSite(s), '/console/sign-in', { login: account.login, password: account.password });
    expect([again.status, again.json().code]).toEqual([401, 2009]);
  });

  it('logout ends the session and clears the cookie', async () => {
    const s = await site();
    const { cookie } = await login(s);
    const out = await rawRequest(s.listener.url, 'POST', '/console/logout', {
      headers: { host: s.host, origin: s.origin, 'content-type': 'application/json', cookie },
      body: '{}',
    });
    expect(out.status).toBe(200);
    expect(out.headers['set-cookie']![0]).toMatch(new RegExp(`^mc_console_${s.port}=;.*Expires=Thu, 01 Jan 1970`));
    expect((await api(s, 'listMerchants', {}, { cookie })).status).toBe(401);
  });
});

describe('console CSRF, Origin and Host guards', () => {
  it.each([
    ['no Origin', { origin: '' }, 403, 2007],
    ['a foreign Origin', { origin: 'http://evil.example' }, 403, 2007],
    ['an Origin with another port', { origin: 'http://127.0.0.1:1' }, 403, 2007],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }, 403, 2007],
    ['Sec-Fetch-Site: same-site', { 'sec-fetch-site': 'same-site' }, 403, 2007],
    ['a text/plain body (a "simple" cross-site request)', { 'content-type': 'text/plain' }, 415, 1005],
    ['a form body', { 'content-type': 'application/x-www-form-urlencoded' }, 415, 1005],
    ['a rebinding Host', { host: 'evil.example:PORT', origin: 'http://evil.example:PORT' }, 403, 2007],
  ])('refuses %s even with a valid session, and writes nothing', async (_name, override, status, code) => {
    const s = await site();
    const { cookie } = await login(s);
    const headers: Record<string, string> = { host: s.host, origin: s.origin, 'content-type': 'application/json', cookie };
    for (const [k, v] of Object.entries(override)) headers[k] = v.replace('PORT', String(s.port));
    if (headers.origin === '') delete headers.origin;
    const before = await rowCount(s.service, 'merchants');
    const res = await rawRequest(s.listener.url, 'POST', '/console-api/createMerchant', { headers, body: JSON.stringify({ name: 'CSRF' }) });
    expect(res.status).toBe(status);
    expect(res.json().code).toBe(code);
    expect(await rowCount(s.service, 'merchants')).toBe(before);
  });

  it('accepts the same-origin call a browser makes (Origin + Sec-Fetch-Site: same-origin), also via localhost', async () => {
    const s = await site();
    const { cookie } = await login(s);
    expect((await api(s, 'createMerchant', { name: 'Fine' }, { cookie, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    const viaLocalhost = await api(s, 'listMerchants', {}, { cookie, host: `localhost:${s.port}`, origin: `http://localhost:${s.port}` });
    expect(viaLocalhost.status).toBe(200);
  });

  it.each([
    ['127.0.0.1:8080', { bindHost: '127.0.0.1', localPort: 8080 }, true],
    ['localhost:8080', { bindHost: '127.0.0.1', localPort: 8080 }, true],
    ['[::1]:8080', { bindHost: '127.0.0.1', localPort: 8080 }, true],
    ['LOCALHOST:8080', { bindHost: '127.0.0.1', localPort: 8080 }, true],
    ['127.0.0.1:8081', { bindHost: '127.0.0.1', localPort: 8080 }, false],
    ['127.0.0.1', { bindHost: '127.0.0.1', localPort: 8080 }, false],
    ['evil.example:8080', { bindHost: '127.0.0.1', localPort: 8080 }, false],
    ['192.168.1.5:8080', { bindHost: '192.168.1.5', localPort: 8080 }, true],
    ['10.0.0.9:8080', { bindHost: '192.168.1.5', localPort: 8080 }, false],
    ['any.name:8080', { bindHost: '0.0.0.0', localPort: 8080 }, true],
    ['any.name:9090', { bindHost: '0.0.0.0', localPort: 8080 }, false],
    ['pay.example.com', { bindHost: '127.0.0.1', localPort: 8080, publicUrl: 'https://pay.example.com/' }, true],
    ['user@127.0.0.1:8080', { bindHost: '127.0.0.1', localPort: 8080 }, false],
    ['127.0.0.1:8080/x', { bindHost: '127.0.0.1', localPort: 8080 }, false],
    ['', { bindHost: '127.0.0.1', localPort: 8080 }, false],
  ])('hostAllowed(%j, %j) = %s', (host, check, allowed) => {
    expect(hostAllowed(host, check)).toBe(allowed);
  });

  it('sign-in also refuses a foreign Host, a foreign Origin and a non-JSON body', async () => {
    const s = await site();
    const admin = await createTestAccount(s.service, { role: 'admin' });
    const body = { login: admin.login, password: admin.password };
    const foreignHost = await postJson({ ...httpSite(s), host: `evil.example:${s.port}`, origin: `http://evil.example:${s.port}` }, '/console/sign-in', body);
    const foreignOrigin = await postJson({ ...httpSite(s), origin: 'http://evil.example' }, '/console/sign-in', body);
    const form = await postJson(httpSite(s), '/console/sign-in', `login=${admin.login}`, { 'content-type': 'application/x-www-form-urlencoded' });
    expect([foreignHost.status, foreignOrigin.status, form.status]).toEqual([403, 403, 415]);
    for (const res of [foreignHost, foreignOrigin, form]) expect(res.headers['set-cookie']).toBeUndefined();
    expect(await rowCount(s.service, 'console_sessions')).toBe(0);
  });
});

describe('the static console at /console/', () => {
  it('serves the build (the sign-in page until a session exists) with the strict CSP, no caching of index.html and long caching of hashed assets', async () => {
    const s = await site();
    // No data in the bundle: it is served to anyone; every call it makes needs a session.
    const anonymous = await rawRequest(s.listener.url, 'GET', '/console/', { headers: { host: s.host } });
    expect(anonymous.status).toBe(200);
    expect(anonymous.body).toContain('<div id="app">');
    const cookie = '';
    const index = await rawRequest(s.listener.url, 'GET', '/console/', { headers: { host: s.host, cookie } });
    expect(index.status).toBe(200);
    expect(index.body).toContain('<div id="app">');
    expect(index.headers['cache-control']).toBe('no-store');
    expect(index.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toMatch(/script-src[^;]*unsafe/);
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
    expect(index.headers['x-content-type-options']).toBe('nosniff');
    expect(index.headers['x-frame-options']).toBe('DENY');

    const asset = await rawRequest(s.listener.url, 'GET', '/console/assets/index-Ab12Cd34.js', { headers: { host: s.host, cookie } });
    expect(asset.status).toBe(200);
    expect(asset.headers['cache-control']).toBe(IMMUTABLE_CACHE);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.headers['content-security-policy']).toBe(CONSOLE_CSP);

    const other = await rawRequest(s.listener.url, 'GET', '/console/favicon.svg', { headers: { host: s.host, cookie } });
    expect([other.status, other.headers['cache-control']]).toEqual([200, 'no-cache']);

    const redirect = await rawRequest(s.listener.url, 'GET', '/console', { headers: { host: s.host, cookie } });
    expect([redirect.status, redirect.headers.location]).toEqual([301, '/console/']);

    for (const p of ['/console/.env', '/console/../package.json', '/console/%2e%2e/package.json', '/console/missing.js']) {
      const res = await rawRequest(s.listener.url, 'GET', p, { headers: { host: s.host, cookie } });
      expect(res.status, p).toBeGreaterThanOrEqual(400);
      expect(res.body).not.toContain('SECRET=1');
      expect(res.body).not.toContain('"name": "merchant-console"');
    }
  });

  it('answers 404 without an error log for what the build does not serve: dotfiles, traversal (also encoded), absolute paths', async () => {
    const log = captureLog();
    const s = await site({ logger: log.logger });
    const { cookie } = await login(s);
    const refused = [
      '/console/.env',
      '/console/../package.json',
      '/console/%2e%2e/package.json',
      '/console/..%5c..%5cpackage.json',
      '/console//etc/passwd',
      '/console/assets/%2e%2e/%2e%2e/package.json',
    ];
    for (const p of refused) {
      const res = await rawRequest(s.listener.url, 'GET', p, { headers: { host: s.host, cookie } });
      expect([p, res.status, res.json().code]).toEqual([p, 404, 3001]);
    }
    // A range or precondition that does not hold is the client's matter too: its own status, not a 500.
    const range = await rawRequest(s.listener.url, 'GET', '/console/favicon.svg', { headers: { host: s.host, cookie, range: 'bytes=99999-' } });
    expect(range.status).toBe(416);
    const precondition = await rawRequest(s.listener.url, 'GET', '/console/favicon.svg', { headers: { host: s.host, cookie, 'if-match': '"nope"' } });
    expect(precondition.status).toBe(412);
    expect(log.errors()).toEqual([]);
  });

  it('answers a clear "build the console" page while the bundle is missing, and serves it once built (no restart)', async () => {
    const s = await site({ built: false });
    const res = await rawRequest(s.listener.url, 'GET', '/console/', { headers: { host: s.host } });
    expect(res.status).toBe(503);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('npm run build:console');
    expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
    // Nothing of the machine for a visitor without a session: not even where the install lives (serve prints it).
    expect(res.body).not.toContain(s.consoleDir);

    // Signing in still works (the cookie is ready for when the build lands).
    const { cookie } = await login(s);
    buildFakeConsole(s.consoleDir);
    const built = await rawRequest(s.listener.url, 'GET', '/console/', { headers: { host: s.host, cookie } });
    expect(built.status).toBe(200);
    expect(built.body).toContain('<div id="app">');
  });

  it('leaves the merchant API alone and can be switched off', async () => {
    const service = await testService();
    const listener = await testListener(service, { console: false });
    const res = await rawRequest(listener.url, 'GET', '/console/', {});
    expect(res.status).toBe(404);
    expect(res.json().code).toBe(3001);
  });
});
