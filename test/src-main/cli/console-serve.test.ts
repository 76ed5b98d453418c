/**
 * `serve` and the console: the login URL printed at start signs a browser
 * in, the listener settings stored by the console are honoured at the next
 * start (flags win), and `console-token new` works against the running serve.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { cli, exitOf, firstLine, spawnCli } from '../../support/cli-harness';
import { rawRequest } from '../../support/http-raw';
import { testService } from '../../support/service-harness';
import { tempDir } from '../../support/temp-dir';

interface Summary {
  listening: string;
  merchant_api: string;
  api_reference: string;
  console_url: string;
  console_login_url: string;
  console_built: boolean;
}

/** A port that was free a moment ago (the stored setting must be a real port, not 0). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function loginAndCall(summary: Summary, loginUrl: string) {
  const url = new URL(loginUrl);
  const host = url.host;
  const login = await rawRequest(summary.listening, 'GET', url.pathname + url.search, { headers: { host } });
  const cookie = (login.headers['set-cookie']?.[0] ?? '').split(';')[0]!;
  const call = await rawRequest(summary.listening, 'POST', '/console-api/getServiceInfo', {
    headers: { host, origin: `http://${host}`, 'content-type': 'application/json', cookie },
    body: '{}',
  });
  return { login, call };
}

describe('serve with the browser console', () => {
  it('prints a single-use login URL; console-token new makes another for the running serve', async () => {
    const dir = tempDir();
    const uiDir = tempDir(); // empty: not built
    const serve = await spawnCli(['serve', '--port', '0', '--data-dir', dir, '--json'], { MERCHANT_CONSOLE_UI_DIR: uiDir });
    const summary = JSON.parse(await firstLine(serve)) as Summary;
    expect(summary.console_url).toBe(`${summary.listening}/console/`);
    expect(summary.console_login_url).toMatch(new RegExp(`^${summary.listening}/console/login\\?token=[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}$`));
    expect(summary.console_built).toBe(false);

    const first = await loginAndCall(summary, summary.console_login_url);
    expect(first.login.status).toBe(200);
    expect(first.call.status).toBe(200);
    expect(first.call.json<{ data: { listener_url: string; data_dir: string } }>().data).toMatchObject({ listener_url: summary.listening, data_dir: dir });
    expect((await loginAndCall(summary, summary.console_login_url)).login.status).toBe(401);

    const fresh = await cli(['console-token', 'new', '--data-dir', dir, '--json']);
    expect(fresh.code).toBe(0);
    const out = fresh.json() as { login_url: string; serve_running: boolean };
    expect(out.serve_running).toBe(true);
    expect(out.login_url.startsWith(`${summary.listening}/console/login?token=`)).toBe(true);
    expect((await loginAndCall(summary, out.login_url)).call.status).toBe(200);

    const human = await cli(['console-token', 'new', '--data-dir', dir]);
    expect(human.stdout).toContain(`${summary.listening}/console/login?token=`);

    const exited = exitOf(serve);
    serve.kill('SIGTERM');
    expect((await exited).code).toBe(0);

    const offline = await cli(['console-token', 'new', '--data-dir', dir]);
    expect(offline.stdout).toContain('http://127.0.0.1:8787/console/login?token=');
    expect(offline.stdout).toContain('no service is running on this data dir');
  });

  it('honours the stored listener settings at the next start; flags win; switched off refuses to start', async () => {
    const dir = tempDir();
    const port = await freePort();
    const service = await testService({ dataDir: dir });
    await service.store.write((tx) => service.services.settings.updateListener(tx, { port, base_path: '/api/v2' }));
    await service.close();

    const serve = await spawnCli(['serve', '--data-dir', dir, '--json']);
    const summary = JSON.parse(await firstLine(serve)) as Summary;
    expect(summary.listening).toBe(`http://127.0.0.1:${port}`);
    expect(summary.merchant_api).toBe(`http://127.0.0.1:${port}/api/v2/merchant/`);
    expect(summary.api_reference).toBe(`http://127.0.0.1:${port}/api/v2/docs/`);
    const page = await fetch(summary.api_reference);
    expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    expect((await fetch(new URL('../openapi.json', summary.api_reference))).status).toBe(200);
    serve.kill('SIGTERM');
    await exitOf(serve);

    const flagged = await spawnCli(['serve', '--data-dir', dir, '--port', '0', '--base-path', '/x', '--json']);
    const flaggedSummary = JSON.parse(await firstLine(flagged)) as Summary;
    expect(flaggedSummary.listening).not.toBe(`http://127.0.0.1:${port}`);
    expect(flaggedSummary.merchant_api.endsWith('/x/merchant/')).toBe(true);
    flagged.kill('SIGTERM');
    await exitOf(flagged);

    const again = await testService({ dataDir: dir });
    await again.store.write((tx) => again.services.settings.updateListener(tx, { enabled: false }));
    await again.close();
    const off = await exitOf(await spawnCli(['serve', '--data-dir', dir]));
    expect(off.code).toBe(2);
    expect(off.stderr).toContain('the embedded listener is switched off in the settings of this store');
  }, 60_000);
});
