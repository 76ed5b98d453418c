/**
 * The desktop window as far as it can be reproduced without Electron: the
 * real console bundle (src-renderer's vite config, as electron-vite builds
 * it), served by the shell's own app:// handler with its CSP, in headless
 * Chromium, talking to a real service only through a `window.consoleApi`
 * shaped exactly like the preload's and answered by the shell's IPC wrapper
 * (sender checked against the calling frame). There is no HTTP console API
 * here, so everything the page shows came over the "IPC" bridge.
 */
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createConsoleHandlers } from '../../../src-main/console-api/console-handlers';
import { seedDemo } from '../../../src-main/demo-seed';
import { CONSOLE_METHODS, type ConsoleMethod } from '../../../src-shared/console-api/methods';
import { rendererViteConfig } from '../../../src-renderer/vite.config';
import { testService } from '../../support/service-harness';
import { desktopCallerOf } from '../../support/accounts';

vi.mock('electron', async () => (await import('./support/fake-electron')).fakeElectronModule());

const { createAppRequestHandler } = await import('../../../src-main/desktop/app-protocol');
const { guardedConsoleCall } = await import('../../../src-main/desktop/console-ipc');
const { contentSecurityPolicy } = await import('../../../src-main/desktop/content-security');

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const projectRoot = path.resolve(import.meta.dirname, '../../..');
const LISTENER_ERROR = 'port 8787 on 127.0.0.1 is already in use';

let outDir: string;
let browser: Browser;
let server: http.Server;
let origin: string;

beforeAll(async () => {
  fs.mkdirSync(path.join(projectRoot, 'out'), { recursive: true });
  outDir = fs.mkdtempSync(path.join(projectRoot, 'out', '.renderer-test-'));
  // vitest sets NODE_ENV=test, which would make vite bundle Vue's development
  // build; the desktop ships the production one, so build exactly that.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ ...rendererViteConfig(outDir), configFile: false, logLevel: 'error' });
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
  const bundle = fs.readdirSync(path.join(outDir, 'assets')).map((f) => fs.readFileSync(path.join(outDir, 'assets', f), 'utf8')).join('');
  expect(bundle.includes('[Vue warn]'), 'the production build of Vue, without its dev warnings').toBe(false);

  // The app:// handler behind plain HTTP (Chromium here knows no app: scheme): same files, headers and refusals.
  const handler = createAppRequestHandler({ rootDir: outDir, contentSecurityPolicy: contentSecurityPolicy() });
  server = http.createServer(async (req, res) => {
    const answer = await handler(new Request(`app://console${req.url ?? '/'}`, { method: req.method }));
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  if (outDir) fs.rmSync(outDir, { recursive: true, force: true });
});

describe('the console bundle in Chromium over the desktop bridge', () => {
  it('loads under the desktop CSP with no violation, uses window.consoleApi, and shows the service’s data and listener error', async () => {
    const service = await testService();
    const demo = await seedDemo(service);
    const handlers = createConsoleHandlers(service, { version: '0.1.0-test', listenerUrl: () => null, listenerError: () => LISTENER_ERROR });
    const owner = await desktopCallerOf(service);
    const calls: string[] = [];

    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const problems: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error' || msg.type() === 'warning') problems.push(msg.text());
    });
    page.on('pageerror', (err) => problems.push(err.message));
    // ipcMain's side: the calling frame is the sender the wrapper checks.
    await page.exposeBinding('__desktopIpc', async (source, method: string, request: unknown) => {
      calls.push(method);
      const senderFrame = { url: source.frame.url(), parent: source.frame.parentFrame() ? {} : null };
      return guardedConsoleCall(handlers, method as ConsoleMethod, { senderFrame } as never, [request], { trustedOrigins: [origin], caller: () => owner });
    });
    // The preload's side: one frozen function per contract method, one argument each, nothing else.
    // (Browser-side code as strings: this project's tsconfig has no DOM types.)
    await page.addInitScript({
      content: `{
        const methods = ${JSON.stringify(CONSOLE_METHODS)};
        const invoke = window.__desktopIpc;
        const bridge = {};
        for (const method of methods) bridge[method] = (request) => invoke(method, request ?? {});
        Object.defineProperty(window, 'consoleApi', { value: Object.freeze(bridge) });
        document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));
      }`,
    });

    await page.goto(`${origin}/index.html`);
    await page.getByText(LISTENER_ERROR).first().waitFor({ timeout: 30_000 });
    await page.getByText(demo.merchant.name).first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: path.join(projectRoot, 'test-results', 'desktop-dashboard.png') });
    expect(calls).toContain('getServiceInfo');
    expect(calls).toContain('listMerchants');

    for (const route of ['orders', 'settings', 'regions']) {
      await page.evaluate(`location.hash = '#/${route}'`);
      await page.waitForFunction(`location.hash === '#/${route}'`);
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: path.join(projectRoot, 'test-results', `desktop-${route}.png`) });
    }
    expect(problems).toEqual([]);
    await page.close();
  });
});
