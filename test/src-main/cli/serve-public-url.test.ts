/**
 * `serve` on a server behind a reverse proxy (`--host 0.0.0.0 --public-url
 * https://…`): the URLs it hands out name the public URL, the console works
 * through a proxy, and one-time link tokens, passwords and session cookies
 * never reach the logs.
 */
import { describe, expect, it } from 'vitest';
import { createMerchantClient } from '../../../src-shared/client/merchant-client';
import { cli } from '../../support/cli-harness';
import { rawRequest } from '../../support/http-raw';
import { serveFailure, startServeChild } from '../../support/serve-child';
import { tempDir } from '../../support/temp-dir';

const PUBLIC = 'https://pay.example.com';

interface Summary {
  console_setup_url: string;
  demo: { api_key: string; api_secret: string; channels: { id: number; category: string }[] };
}

/** The token of a one-time link (it travels in the URL's fragment). */
function tokenOf(link: string): string {
  return decodeURIComponent(new URL(link).hash.split('token=')[1]!);
}

/** Creates the first owner through the setup link, as the browser does behind the proxy: answers the session cookie. */
async function setUpOwner(serveUrl: string, summary: Summary, host: string): Promise<string> {
  const res = await rawRequest(serveUrl, 'POST', '/console/setup', {
    headers: { host, origin: PUBLIC, 'content-type': 'application/json' },
    body: JSON.stringify({ token: tokenOf(summary.console_setup_url), login: 'owner', display_name: 'Owner', password: 'a long owner password' }),
  });
  expect(res.status).toBe(200);
  return (res.headers['set-cookie']?.[0] ?? '').split(';')[0]!;
}

describe('serve behind a reverse proxy', () => {
  it('hands out the console setup URL, password links and pay_url on the public URL', async () => {
    const dataDir = tempDir('mc-public-');
    const serve = await startServeChild(dataDir, {
      args: ['--host', '0.0.0.0', '--public-url', `${PUBLIC}/`, '--base-path', '/x/y', '--demo'],
      env: { MERCHANT_CONSOLE_UI_DIR: tempDir('mc-ui-') },
    });
    const summary = serve.summary as unknown as Summary;
    expect(summary.console_setup_url).toMatch(new RegExp(`^${PUBLIC}/console/#/setup\\?token=[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`));

    const created = await cli(['account', 'create', 'vera', '--role', 'viewer', '--display-name', 'Vera', '--data-dir', dataDir, '--json']);
    expect(created.code).toBe(0);
    expect((created.json() as { password_url: string }).password_url.startsWith(`${PUBLIC}/console/#/set-password?token=`)).toBe(true);

    const beta = summary.demo.channels.find((c) => c.category === 'beta')!;
    const client = createMerchantClient({ baseUrl: serve.url, basePath: '/x/y', apiKey: summary.demo.api_key, apiSecret: summary.demo.api_secret });
    const buy = await client.createOrder({ order_type: 1, cny_amount: '10.00', paychannel_id: beta.id, paychannel_paymethod: 'wxpay' });
    expect(buy.body.code).toBe(1);
    expect((buy.body.data as { pay_url: string }).pay_url).toMatch(new RegExp(`^${PUBLIC}/pay/[A-Za-z0-9_-]+$`));
    expect(await serve.stop('SIGTERM')).toBe(0);
  }, 60_000);

  it('refuses a public URL that is not an absolute http(s) URL', async () => {
    for (const bad of ['pay.example.com', 'ftp://pay.example.com', 'https://user:pw@pay.example.com', 'https://pay.example.com/?a=1', 'https://pay.example.com/#x']) {
      const failure = await serveFailure(tempDir('mc-public-bad-'), ['--public-url', bad]);
      expect(failure.code, bad).toBe(2);
      expect(failure.stderr, bad).toContain('--public-url');
    }
  }, 90_000);

  it('--trust-proxy: the client address comes from the named proxy, for the per-address limit', async () => {
    for (const bad of ['proxy.local', '10.0.0.0/40', '']) {
      const res = await cli(['serve', '--data-dir', tempDir('mc-proxy-bad-'), '--trust-proxy', bad]);
      expect([res.code, res.stderr], bad).toEqual([2, expect.stringContaining('--trust-proxy: ')]);
    }
    const serve = await startServeChild(tempDir('mc-proxy-'), { args: ['--trust-proxy', '127.0.0.1', '--rate-limit-address', '1/min'] });
    const get = (forwardedFor: string) =>
      fetch(`${serve.url}/addons/paychannel/channel/alpha/provinceList`, { headers: { 'x-forwarded-for': forwardedFor } }).then((r) => r.status);
    expect([await get('198.51.100.1'), await get('198.51.100.2'), await get('198.51.100.1')]).toEqual([200, 200, 429]);
    expect(await serve.stop('SIGTERM')).toBe(0);
  }, 60_000);

  it('answers console calls through a proxy that rewrites Host, from the public origin only', async () => {
    const dataDir = tempDir('mc-public-');
    const serve = await startServeChild(dataDir, { args: ['--host', '0.0.0.0', '--public-url', PUBLIC], env: { MERCHANT_CONSOLE_UI_DIR: tempDir('mc-ui-') } });
    // nginx's default `proxy_pass http://127.0.0.1:PORT` sends Host: 127.0.0.1:PORT; the browser's Origin is the public one.
    const proxiedHost = new URL(serve.url).host;
    const cookie = await setUpOwner(serve.url, serve.summary as unknown as Summary, proxiedHost);
    const call = (origin: string) =>
      rawRequest(serve.url, 'POST', '/console-api/getServiceInfo', {
        headers: { host: proxiedHost, origin, 'content-type': 'application/json', cookie, 'sec-fetch-site': 'same-origin' },
        body: '{}',
      });
    expect((await call(PUBLIC)).status).toBe(200);
    expect((await call('https://evil.example.com')).status).toBe(403);
    expect((await call('http://pay.example.com')).status).toBe(403);
    expect(await serve.stop('SIGTERM')).toBe(0);
  }, 60_000);

  it('keeps one-time link tokens, passwords and session cookies out of info-level logs', async () => {
    const dataDir = tempDir('mc-public-');
    const serve = await startServeChild(dataDir, {
      args: ['--host', '0.0.0.0', '--public-url', PUBLIC],
      env: { MERCHANT_CONSOLE_LOG_LEVEL: 'info', MERCHANT_CONSOLE_UI_DIR: tempDir('mc-ui-') },
    });
    const summary = serve.summary as unknown as Summary;
    const tokenSecret = tokenOf(summary.console_setup_url).split('.')[1]!;
    expect(tokenSecret.length).toBeGreaterThan(20);
    // A link checker that fetches the link sends no token: it lives in the fragment.
    const link = new URL(summary.console_setup_url);
    const fetched = await rawRequest(serve.url, 'GET', link.pathname + link.search, { headers: { host: 'pay.example.com' } });
    expect(fetched.headers['set-cookie']).toBeUndefined();
    const cookie = await setUpOwner(serve.url, summary, 'pay.example.com');
    const sessionSecret = cookie.split('=')[1]!.split('.')[1]!;
    const call = await rawRequest(serve.url, 'POST', '/console-api/getServiceInfo', {
      headers: { host: 'pay.example.com', origin: PUBLIC, 'content-type': 'application/json', cookie },
      body: '{}',
    });
    expect(call.status).toBe(200);
    const signIn = await rawRequest(serve.url, 'POST', '/console/sign-in', {
      headers: { host: 'pay.example.com', origin: PUBLIC, 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'owner', password: 'a long owner password' }),
    });
    expect(signIn.status).toBe(200);
    expect(await serve.stop('SIGTERM')).toBe(0);

    const logs = serve.stdout() + '\n' + serve.stderr();
    const logLines = logs.split('\n').filter((l) => l.startsWith('{"level"'));
    expect(logLines.filter((l) => l.includes('"incoming request"')).length).toBeGreaterThanOrEqual(4);
    expect(logLines.some((l) => l.includes('/console/setup'))).toBe(true);
    for (const line of logLines) {
      expect(line.includes(tokenSecret), `a log line holds the setup token: ${line.slice(0, 200)}`).toBe(false);
      expect(line.includes(sessionSecret), `a log line holds the session: ${line.slice(0, 200)}`).toBe(false);
      expect(line.includes('a long owner password'), `a log line holds the password: ${line.slice(0, 200)}`).toBe(false);
    }
  }, 60_000);
});
