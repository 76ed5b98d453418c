/**
 * `serve` and the console: on a store without accounts it prints a one-time
 * link where the first owner is created; accounts made by the CLI for the
 * running serve get a one-time password link; the listener settings stored by
 * the console are honoured at the next start (flags win).
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
  console_setup_url: string | null;
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

/** The token of a one-time link (in the URL's fragment). */
function tokenOf(link: string): string {
  return decodeURIComponent(new URL(link).hash.split('token=')[1]!);
}

function post(summary: Summary, path: string, body: unknown, cookie = '') {
  const host = new URL(summary.listening).host;
  return rawRequest(summary.listening, 'POST', path, {
    headers: { host, origin: `http://${host}`, 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });
}

const cookieOf = (res: { headers: Record<string, string[] | string | undefined> }) => ((res.headers['set-cookie'] as string[] | undefined)?.[0] ?? '').split(';')[0]!;

describe('serve with the browser console', () => {
  it('prints a one-time first-owner setup link on a store without accounts; accounts made by the CLI get a password link', async () => {
    const dir = tempDir();
    const uiDir = tempDir(); // empty: not built
    const serve = await spawnCli(['serve', '--port', '0', '--data-dir', dir, '--json'], { MERCHANT_CONSOLE_UI_DIR: uiDir });
    const summary = JSON.parse(await firstLine(serve)) as Summary;
    expect(summary.console_url).toBe(`${summary.listening}/console/`);
    expect(summary.console_setup_url).toMatch(new RegExp(`^${summary.listening}/console/#/setup\\?token=[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}$`));
    expect(summary.console_built).toBe(false);

    const setup = { token: tokenOf(summary.console_setup_url!), login: 'owner', display_name: 'Owner', password: 'a long owner password' };
    const created = await post(summary, '/console/setup', setup);
    expect(created.json()).toEqual({ code: 1, msg: 'success', data: { stage: 'enrol' } });
    const info = await post(summary, '/console-api/getServiceInfo', {}, cookieOf(created));
    expect(info.json<{ data: { listener_url: string; data_dir: string } }>().data).toMatchObject({ listener_url: summary.listening, data_dir: dir });
    expect((await post(summary, '/console/setup', { ...setup, login: 'other' })).status).toBe(401);

    const account = await cli(['account', 'create', 'vera', '--role', 'viewer', '--display-name', 'Vera V', '--data-dir', dir, '--json']);
    expect(account.code).toBe(0);
    const out = account.json() as { password_url: string; account: { login: string; role: string } };
    expect(out.account).toMatchObject({ login: 'vera', role: 'viewer' });
    expect(out.password_url.startsWith(`${summary.listening}/console/#/set-password?token=`)).toBe(true);
    expect((await post(summary, '/console/password', { token: tokenOf(out.password_url), password: 'vera has a password' })).status).toBe(200);
    const signedIn = await post(summary, '/console/sign-in', { login: 'vera', password: 'vera has a password' });
    expect(signedIn.json()).toEqual({ code: 1, msg: 'success', data: { stage: 'full' } });
    expect((await post(summary, '/console-api/listMerchants', {}, cookieOf(signedIn))).status).toBe(200);

    const human = await cli(['account', 'list', '--data-dir', dir]);
    expect(human.stdout).toContain('vera (Vera V), viewer, every merchant, enabled, two-factor off');
    expect(human.stdout).toContain('owner (Owner), owner, every merchant, enabled, two-factor REQUIRED, not set up');

    const exited = exitOf(serve);
    serve.kill('SIGTERM');
    expect((await exited).code).toBe(0);

    // With accounts, no setup link is printed any more.
    const again = await spawnCli(['serve', '--port', '0', '--data-dir', dir, '--json'], { MERCHANT_CONSOLE_UI_DIR: uiDir });
    expect((JSON.parse(await firstLine(again)) as Summary).console_setup_url).toBeNull();
    const againExited = exitOf(again);
    again.kill('SIGTERM');
    expect((await againExited).code).toBe(0);
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
