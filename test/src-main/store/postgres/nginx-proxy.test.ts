/**
 * The nginx configuration of docs/deployment.md, as written there (addresses,
 * port and certificate paths replaced), in front of two `serve` instances on
 * one PostgreSQL database, with TLS at nginx: the merchant API, a payer at
 * the checkout page and the browser console all work through it, and both
 * instances serve requests, with one console session (signed in through the
 * proxy) valid on both.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createMerchantClient } from '../../../../src-shared/client/merchant-client';
import { freePort } from '../../../../scripts/temp-postgres';
import { openService } from '../../../../src-main/service';
import { createTestAccount } from '../../../support/accounts';
import { startServeChild } from '../../../support/serve-child';
import { tempDir } from '../../../support/temp-dir';
import { freshPostgresDatabase } from '../../../support/test-engine';

const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => fs.existsSync(p));

/** The first ```nginx block of docs/deployment.md. */
function documentedConfig(): string {
  const doc = fs.readFileSync('docs/deployment.md', 'utf8');
  const m = /```nginx\n([\s\S]*?)```/.exec(doc);
  if (!m) throw new Error('docs/deployment.md has no nginx block');
  return m[1]!;
}

let nginx: ChildProcess | undefined;
afterEach(() => {
  nginx?.kill('SIGTERM');
  nginx = undefined;
});

describe.skipIf(!NGINX)('nginx in front of two instances (docs/deployment.md)', () => {
  it('serves the merchant API, the checkout and the console over TLS from both instances', async () => {
    const dir = tempDir();
    const port = await freePort();
    const publicUrl = `https://localhost:${port}`;
    // A certificate for localhost, as the proxy's.
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost',
      '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });

    const url = await freshPostgresDatabase();
    const keyFile = path.join(dir, 'team.key');
    fs.writeFileSync(keyFile, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
    const args = ['--database-url', url, '--master-key-file', keyFile, '--public-url', publicUrl, '--trust-proxy', '127.0.0.1'];
    const first = await startServeChild(tempDir(), { args: [...args, '--demo'], timeoutMs: 120_000 });
    const second = await startServeChild(tempDir(), { args, timeoutMs: 120_000 });
    const upstreams = [first.url, second.url].map((u) => new URL(u).host);

    // The documented configuration, with this machine's addresses, port and certificate.
    let config = documentedConfig()
      .replace(/^\s*server 10\.0\.0\.\d+:8787;\n/gm, '')
      .replace('keepalive 32;', `${upstreams.map((h) => `server ${h};`).join('\n    ')}\n    keepalive 32;`)
      .replace('listen 443 ssl;', `listen 127.0.0.1:${port} ssl;`)
      .replace('server_name pay.example.com;', 'server_name localhost;')
      .replace('/etc/ssl/pay.example.com/fullchain.pem', path.join(dir, 'cert.pem'))
      .replace('/etc/ssl/pay.example.com/privkey.pem', path.join(dir, 'key.pem'));
    expect(config).toContain(`server ${upstreams[0]};`);
    config = [
      'worker_processes 1;',
      `pid ${path.join(dir, 'nginx.pid')};`,
      `error_log ${path.join(dir, 'error.log')} warn;`,
      'events { worker_connections 256; }',
      'http {',
      `  access_log ${path.join(dir, 'access.log')};`,
      `  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;`,
      config,
      '}',
    ].join('\n');
    fs.writeFileSync(path.join(dir, 'nginx.conf'), config);
    nginx = spawn(NGINX!, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off; user root;'], { stdio: 'ignore' });
    const agent = new Agent({ connect: { ca: fs.readFileSync(path.join(dir, 'cert.pem')) } });
    const viaProxy = ((input: string, init: RequestInit = {}) => undiciFetch(input, { ...(init as object), dispatcher: agent })) as unknown as typeof fetch;
    for (let i = 0; ; i++) {
      try {
        await viaProxy(`${publicUrl}/regions/version`);
        break;
      } catch (err) {
        if (i > 50) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }

    try {
      // The merchant API through the proxy: a buy whose pay_url is the public address.
      const demo = first.summary.demo as { api_key: string; api_secret: string; channels: { id: number; category: string }[] };
      const client = createMerchantClient({ baseUrl: publicUrl, apiKey: demo.api_key, apiSecret: demo.api_secret, fetch: viaProxy });
      const beta = demo.channels.find((c) => c.category === 'beta')!.id;
      const created = await client.createOrder({ order_type: 1, cny_amount: '66.00', paychannel_id: beta, paychannel_paymethod: 'alipay' });
      expect(created.body.code).toBe(1);
      const { order_no, pay_url } = created.body.data as { order_no: string; pay_url: string };
      expect(pay_url.startsWith(`${publicUrl}/pay/`)).toBe(true);

      // The payer at the checkout page, through the proxy.
      const page = await viaProxy(pay_url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain(order_no);
      const paid = await viaProxy(`${pay_url}/pay`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '', redirect: 'manual' });
      expect(paid.status).toBe(303);
      // Paid, and settled at once by whichever instance's background work got to it first (settle delay 0).
      expect(['paid', 'completed']).toContain((await client.orderQueryDetail(order_no)).body.data!.status);

      // The browser console: links on the public address; a staff member signs in through the proxy
      // (an account made on the shared database), gets a Secure cookie and calls from the public origin.
      expect(first.summary.console_setup_url).toMatch(new RegExp(`^${publicUrl}/console/`));
      const team = await openService({ dataDir: tempDir(), databaseUrl: url, masterKeyStore: { loadOrCreate: () => Buffer.from(fs.readFileSync(keyFile, 'utf8').trim(), 'base64') } });
      const viewer = await createTestAccount(team, { role: 'viewer' }).finally(() => team.close());
      const signIn = await viaProxy(`${publicUrl}/console/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: publicUrl },
        body: JSON.stringify({ login: viewer.login, password: viewer.password }),
      });
      expect(signIn.status).toBe(200);
      expect(((await signIn.json()) as { data: { stage: string } }).data.stage).toBe('full');
      const cookie = signIn.headers.get('set-cookie')!;
      expect(cookie).toMatch(/; Secure/i);
      const seen = new Set<string>();
      for (let i = 0; i < 12; i++) {
        const r = await viaProxy(`${publicUrl}/console-api/getServiceInfo`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: publicUrl, cookie: cookie.split(';')[0]! },
          body: '{}',
        });
        const body = (await r.json()) as { code: number; data: { listener_url: string } };
        expect(body.code).toBe(1);
        seen.add(body.data.listener_url);
      }
      // Both instances answered (nginx spreads requests round-robin), with one shared session.
      expect(seen.size).toBe(2);
    } finally {
      await agent.close();
      await first.stop();
      await second.stop();
    }
  }, 240_000);
});
