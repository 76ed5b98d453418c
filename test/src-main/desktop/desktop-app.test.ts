import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MerchantConsoleService } from '../../../src-main/service';
import { SAFETY_NET_FRAMES } from '../../../src-main/store/sqlite/checkpointer';
import type { SqliteStore } from '../../../src-main/store/sqlite/sqlite-store';
import { StoreError, type Store } from '../../../src-main/store/store';
import { acquireDataDirLock } from '../../../src-main/store/data-dir';
import { CONSOLE_METHODS, DESKTOP_SHELL_METHODS, desktopShellChannelOf, ipcChannelOf, type DesktopShellMethod } from '../../../src-shared/console-api/methods';
import { APP_LOCKED_MESSAGE } from '../../../src-main/desktop/console-ipc';
import { DESKTOP_MODE_FILE } from '../../../src-main/desktop/desktop-shell';
import { DEFAULT_BASE_PATH } from '../../../src-shared/constants';
import { contentSecurityPolicy } from '../../../src-main/desktop/content-security';
import { testService } from '../../support/service-harness';
import { tempDir } from '../../support/temp-dir';
import { fake, FakeBrowserWindow, resetFakeElectron } from './support/fake-electron';

vi.mock('electron', async () => (await import('./support/fake-electron')).fakeElectronModule());

const { runDesktop, desktopDataDir } = await import('../../../src-main/desktop/desktop-app');

type Desktop = ReturnType<typeof runDesktop>;
const running: Desktop[] = [];
const servers: net.Server[] = [];

afterEach(async () => {
  for (const d of running.splice(0)) await d.stop();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

const quietLog = () => {
  const lines: string[] = [];
  return { lines, info: (l: string) => lines.push(`info ${l}`), warn: (l: string) => lines.push(`warn ${l}`), error: (l: string) => lines.push(`error ${l}`) };
};

type BackgroundStarter = NonNullable<Parameters<typeof runDesktop>[0]['startBackgroundWork']>;
type CheckpointerStarter = NonNullable<Parameters<typeof runDesktop>[0]['startCheckpointer']>;

function start(
  opts: {
    dataDir?: string;
    port?: number;
    enabled?: boolean;
    ready?: boolean;
    storedSettings?: boolean;
    background?: BackgroundStarter;
    checkpointer?: CheckpointerStarter;
    env?: NodeJS.ProcessEnv;
  } = {},
) {
  const dataDir = opts.dataDir ?? tempDir('mc-desktop-');
  const rendererDir = tempDir('mc-renderer-');
  fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html>');
  const log = quietLog();
  const desktop = runDesktop({
    preloadPath: '/app/out/preload/index.cjs',
    rendererDir,
    env: { ...opts.env, MERCHANT_CONSOLE_DATA_DIR: dataDir },
    log,
    handleSignals: false,
    ...(opts.background ? { startBackgroundWork: opts.background } : {}),
    ...(opts.checkpointer ? { startCheckpointer: opts.checkpointer } : {}),
    listenerSettings: opts.storedSettings
      ? undefined
      : () => ({ enabled: opts.enabled ?? true, host: '127.0.0.1', port: opts.port ?? 0, base_path: DEFAULT_BASE_PATH }),
  });
  running.push(desktop);
  if (opts.ready ?? true) fake.app.readyResolve();
  return { desktop, dataDir, rendererDir, log };
}

/** Calls a console method the way the preload does, from the console window's main frame. */
function ipcCall(method: string, request: unknown = {}, frameUrl = 'app://console/index.html') {
  const handler = fake.ipcMain.handlers.get(ipcChannelOf(method as (typeof CONSOLE_METHODS)[number]));
  if (!handler) throw new Error(`no IPC handler for ${method}`);
  return handler({ senderFrame: { url: frameUrl, parent: null } }, request) as Promise<{ code: number; msg: string; data: Record<string, unknown> | null }>;
}

/** A desktop shell call the way the preload makes it. */
function shellCall(method: DesktopShellMethod, request: unknown = {}, frameUrl = 'app://console/index.html') {
  const handler = fake.ipcMain.handlers.get(desktopShellChannelOf(method));
  if (!handler) throw new Error(`no IPC handler for ${method}`);
  return handler({ senderFrame: { url: frameUrl, parent: null } }, request) as Promise<{ code: number; msg: string; data: Record<string, unknown> | null }>;
}

async function busyPort(): Promise<number> {
  const server = net.createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether the store still runs units of work (closed: they are refused with STORE_CLOSED). */
async function isOpen(store: Store): Promise<boolean> {
  try {
    await store.read((tx) => tx.get('SELECT 1'));
    return true;
  } catch (err) {
    if (err instanceof StoreError && err.code === 'STORE_CLOSED') return false;
    throw err;
  }
}

async function until(predicate: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000 && !predicate(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!predicate()) throw new Error(`gave up waiting: ${what}`);
}

describe('desktop app lifecycle (electron mocked, real service)', () => {
  beforeEach(() => resetFakeElectron());

  it('starts: scheme before ready, data dir as userData, service, listener, IPC, secure window', async () => {
    const { desktop, dataDir } = start({ ready: false });
    // Before 'ready' only the scheme, the userData path and the single-instance lock are touched.
    expect(fake.protocol.registerSchemesAsPrivileged).toHaveBeenCalledTimes(1);
    expect(fake.app.setPath).toHaveBeenCalledWith('userData', path.resolve(dataDir));
    expect(fake.app.requestSingleInstanceLock).toHaveBeenCalledTimes(1);
    expect(fake.protocol.handle).not.toHaveBeenCalled();
    expect(FakeBrowserWindow.instances).toHaveLength(0);

    fake.app.readyResolve();
    await desktop.ready;
    expect(desktop.state()).toBe('running');
    expect(fake.protocol.handle).toHaveBeenCalledWith('app', expect.any(Function));
    // The console page is served with the production CSP (no dev-server websocket)…
    const page = await fake.protocol.handlers.get('app')!(new Request('app://console/index.html'));
    expect(page.headers.get('content-security-policy')).toBe(contentSecurityPolicy());
    // …and the session installed is the restrictive policy, not just some handler.
    const granted = (permission: string) => {
      const callback = vi.fn();
      fake.session.permissionRequestHandler!(null, permission, callback, { requestingUrl: 'app://console/index.html', isMainFrame: true });
      return callback.mock.calls[0]?.[0] as unknown;
    };
    expect([granted('media'), granted('notifications'), granted('clipboard-sanitized-write')]).toEqual([false, false, true]);
    expect(fake.session.permissionCheckHandler!(null, 'media', 'app://console', {})).toBe(false);
    expect(fake.session.devicePermissionHandler!({ deviceType: 'usb', origin: 'app://console' })).toBe(false);

    const service = desktop.service()!;
    expect(service.dataDir).toBe(path.resolve(dataDir));
    expect(service.store.dialect).toBe('sqlite');
    expect(await isOpen(service.store)).toBe(true);
    // The master key went into the (fake) OS keychain, not a plain file.
    expect(fs.existsSync(path.join(dataDir, 'master.key.safe'))).toBe(true);
    expect(fs.existsSync(path.join(dataDir, 'master.key'))).toBe(false);

    const listener = desktop.listener()!;
    expect(listener.error).toBeNull();
    expect(listener.url).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+$/);
    const res = await fetch(`${listener.url}${DEFAULT_BASE_PATH}/merchant/orderQueryList`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
    // The browser console stays a `serve` feature; the desktop's console is its window.
    expect((await fetch(`${listener.url}/console/`)).status).toBe(404);
    // serve's "already running" message names the desktop's URL.
    expect(JSON.parse(fs.readFileSync(path.join(dataDir, 'service.json'), 'utf8'))).toMatchObject({ url: listener.url });

    expect([...fake.ipcMain.handlers.keys()].sort()).toEqual([...CONSOLE_METHODS.map(ipcChannelOf), ...DESKTOP_SHELL_METHODS.map(desktopShellChannelOf)].sort());
    const info = await ipcCall('getServiceInfo');
    expect(info).toMatchObject({ code: 1, data: { version: '0.1.0-test', data_dir: path.resolve(dataDir), listener_url: listener.url, listener_error: null } });

    expect(FakeBrowserWindow.instances).toHaveLength(1);
    const win = desktop.window() as unknown as FakeBrowserWindow;
    const prefs = win.options.webPreferences as Record<string, unknown>;
    expect(prefs).toMatchObject({ sandbox: true, contextIsolation: true, nodeIntegration: false, webSecurity: true, preload: '/app/out/preload/index.cjs', devTools: true });
    expect(win.options.show).toBe(false);
    expect(win.loadURL).toHaveBeenCalledWith('app://console/index.html');
    // Its web contents were hardened on creation (app 'web-contents-created').
    expect(win.webContents.windowOpenHandler!({ url: 'https://pay.example.com/' })).toEqual({ action: 'deny' });
    expect(fake.shell.openExternal).toHaveBeenCalledWith('https://pay.example.com/');
    win.emit('ready-to-show');
    expect(win.show).toHaveBeenCalled();
  });

  it('loads the dev server only from a checkout and only on this machine; any other ELECTRON_RENDERER_URL gets the app:// console', async () => {
    const dev = start({ env: { ELECTRON_RENDERER_URL: 'http://localhost:5173/' } });
    await dev.desktop.ready;
    expect((dev.desktop.window() as unknown as FakeBrowserWindow).loadURL).toHaveBeenCalledWith('http://localhost:5173/');
    expect(fake.session.headersReceived?.filter).toEqual({ urls: ['http://localhost:5173/*'] });
    await dev.desktop.stop();

    for (const url of ['https://console.example.com/', 'http://192.168.1.20:5173/', 'file:///tmp/index.html']) {
      resetFakeElectron();
      const other = start({ env: { ELECTRON_RENDERER_URL: url } });
      await other.desktop.ready;
      const win = other.desktop.window() as unknown as FakeBrowserWindow;
      expect(win.loadURL, url).toHaveBeenCalledWith('app://console/index.html');
      expect(win.loadURL, url).toHaveBeenCalledTimes(1);
      expect(fake.session.headersReceived, url).toBeNull();
      expect(other.log.lines.some((l) => l.startsWith('warn') && l.includes('ELECTRON_RENDERER_URL')), url).toBe(true);
      await other.desktop.stop();
    }
  });

  it('quit drains the listener (an in-flight request is answered), stops background work and checkpoints, then closes the database and releases the lock', async () => {
    const order: string[] = [];
    let desktopRef: Desktop | null = null;
    const { desktop, dataDir } = start({
      background: (service) => {
        order.push(`background started, listener ${desktopRef?.listener()?.url ? 'up' : 'down'}`);
        return {
          stop: async () => {
            order.push(`background stopped, listener ${desktopRef?.listener()?.url ? 'up' : 'down'}, db ${(await isOpen(service.store)) ? 'open' : 'closed'}`);
          },
          wake: () => undefined,
        };
      },
      checkpointer: (store) => {
        order.push('checkpointer started');
        return {
          stop: async () => {
            order.push(`checkpointer stopped, db ${(await isOpen(store)) ? 'open' : 'closed'}`);
            return 0;
          },
        };
      },
    });
    desktopRef = desktop;
    await desktop.ready;
    const service = desktop.service() as MerchantConsoleService;
    const url = new URL(desktop.listener()!.url!);

    // A request whose body is still arriving when quit begins.
    const body = JSON.stringify({ api_key: 'mk_nobody', timestamp: 1, nonce: 'n0nce-123', signature: 'X' });
    const socket = net.connect(Number(url.port), url.hostname);
    await new Promise((r) => socket.once('connect', r));
    let received = '';
    socket.on('data', (d) => (received += d.toString()));
    const answer = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
    // Expect: 100-continue makes the server confirm it has the request in hand before the body comes.
    socket.write(
      `POST ${DEFAULT_BASE_PATH}/merchant/orderQueryList HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
    );
    await until(() => received.includes('100 Continue'), 'the server to take the request');

    fake.app.quit();
    await until(() => desktop.state() === 'stopping', 'stopping');
    expect(fake.ipcMain.handlers.size).toBe(0);
    // Still draining: the database stays open for the request in flight.
    expect(await isOpen(service.store)).toBe(true);
    socket.write(body);
    const response = (await answer).replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '');
    expect(response).toMatch(/^HTTP\/1\.1 401/);
    expect(response).toMatch(/"code":2002/);

    await until(() => desktop.state() === 'stopped', 'stopped');
    expect(await isOpen(service.store)).toBe(false);
    await expect(fetch(url)).rejects.toThrow();
    expect(order).toEqual([
      'background started, listener up',
      'checkpointer started',
      'background stopped, listener down, db open',
      'checkpointer stopped, db open',
    ]);
    // Electron was let go only after the shutdown: will-quit prevented once, then quit again.
    expect(fake.app.quit).toHaveBeenCalledTimes(2);
    const lock = acquireDataDirLock(dataDir);
    lock.release();
  });

  it('runs WAL checkpoints on a worker thread, as serve does, so no commit on the main thread pays for one', async () => {
    const { desktop } = start();
    await desktop.ready;
    const service = desktop.service() as MerchantConsoleService;
    const store = service.store as SqliteStore;
    // The real checkpointer raised the writing connection's own automatic checkpoint to its safety net…
    expect(await store.write((tx) => tx.get('PRAGMA wal_autocheckpoint'))).toEqual({ wal_autocheckpoint: SAFETY_NET_FRAMES });
    // …and its worker copies committed pages back into the database file by itself: the new table's name reaches
    // the main file (a write this small would stay in the WAL until 1,000 pages without a checkpointer).
    await store.write(async (tx) => {
      await tx.run('CREATE TABLE checkpoint_probe (x)');
      await tx.run("INSERT INTO checkpoint_probe VALUES ('probe')");
    });
    expect(fs.readFileSync(`${store.file}-wal`).includes('checkpoint_probe')).toBe(true);
    await until(() => fs.readFileSync(store.file).includes('checkpoint_probe'), 'the worker to checkpoint');
    await desktop.stop();
    expect(await isOpen(store)).toBe(false);
  });

  it('a busy port is reported to the console, which keeps working over IPC', async () => {
    const port = await busyPort();
    const { desktop, log } = start({ port });
    await desktop.ready;
    expect(desktop.state()).toBe('running');
    expect(desktop.listener()).toEqual({ url: null, inUse: null, error: expect.stringMatching(new RegExp(`^port ${port} on 127\\.0\\.0\\.1 is already in use`)) });
    expect(log.lines.join('\n')).toMatch(/listener not started: port [0-9]+ on 127\.0\.0\.1 is already in use/);

    const info = await ipcCall('getServiceInfo');
    expect(info.code).toBe(1);
    expect(info.data).toMatchObject({ listener_url: null, listener_error: expect.stringMatching(/already in use/) });
    const settings = await ipcCall('getSettings');
    expect(settings.data).toMatchObject({ listener_in_use: null, listener_error: expect.stringMatching(/already in use/) });
    const created = await ipcCall('createMerchant', { name: 'Works offline', sign_type: 'hmac-sha256' });
    expect(created.code).toBe(1);
    expect(desktop.window()).not.toBeNull();
  });

  it('listener settings saved in the console apply at once: a busy port is fixed without a restart', async () => {
    const busy = await busyPort();
    const dataDir = tempDir('mc-desktop-');
    const seed = await testService({ dataDir });
    await seed.store.write((tx) => seed.services.settings.updateListener(tx, { port: busy }));
    await seed.close();
    const { desktop } = start({ dataDir, storedSettings: true });
    await desktop.ready;
    expect(desktop.listener()!.error).toMatch(/already in use/);

    const free = await freePort();
    const moved = await ipcCall('updateListenerSettings', { port: free });
    expect(moved).toMatchObject({
      code: 1,
      data: { listener: { port: free }, listener_in_use: { port: free }, listener_url: `http://127.0.0.1:${free}`, listener_error: null },
    });
    const res = await fetch(`http://127.0.0.1:${free}${DEFAULT_BASE_PATH}/merchant/getPayChannels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(JSON.parse(fs.readFileSync(path.join(dataDir, 'service.json'), 'utf8'))).toMatchObject({ url: `http://127.0.0.1:${free}` });

    const off = await ipcCall('updateListenerSettings', { enabled: false });
    expect(off.data).toMatchObject({ listener: { enabled: false }, listener_in_use: null, listener_url: null, listener_error: null });
    await expect(fetch(`http://127.0.0.1:${free}/`)).rejects.toThrow();
  });

  it('a disabled listener is simply off', async () => {
    const { desktop } = start({ enabled: false });
    await desktop.ready;
    expect(desktop.listener()).toEqual({ url: null, inUse: null, error: null });
  });

  it('a second instance quits at once and touches nothing; the first one comes to the front', async () => {
    fake.app.singleInstance = false;
    const { desktop, dataDir } = start();
    await desktop.ready;
    expect(desktop.state()).toBe('secondary');
    expect(fake.app.quit).toHaveBeenCalled();
    expect(fake.protocol.handle).not.toHaveBeenCalled();
    expect(FakeBrowserWindow.instances).toHaveLength(0);
    expect(fs.existsSync(path.join(dataDir, 'merchant-console.sqlite'))).toBe(false);

    resetFakeElectron();
    const first = start();
    await first.desktop.ready;
    const win = first.desktop.window() as unknown as FakeBrowserWindow;
    win.minimized = true;
    fake.app.emit('second-instance', {}, ['merchant-console'], '/');
    expect(win.restore).toHaveBeenCalled();
    expect(win.focus).toHaveBeenCalled();
  });

  it('a data dir held by serve stops start-up with the reason shown, and nothing left open', async () => {
    const dataDir = tempDir('mc-desktop-');
    const held = acquireDataDirLock(dataDir);
    held.describe({ url: 'http://127.0.0.1:8787' });
    try {
      const { desktop } = start({ dataDir });
      await desktop.ready;
      expect(desktop.state()).toBe('failed');
      expect(fake.dialog.showErrorBox).toHaveBeenCalledWith('Merchant Console cannot start', expect.stringMatching(/listening on http:\/\/127\.0\.0\.1:8787\) is already running on data dir .*Stop it/));
      expect(fake.app.exit).toHaveBeenCalledWith(1);
      expect(FakeBrowserWindow.instances).toHaveLength(0);
      expect(fake.ipcMain.handlers.size).toBe(0);
    } finally {
      held.release();
    }
  });

  it('closing the last window quits (not on macOS); quitting twice shuts down once', async () => {
    const { desktop } = start();
    await desktop.ready;
    const service = desktop.service()!;
    const closeSpy = vi.spyOn(service, 'close');
    (desktop.window() as unknown as FakeBrowserWindow).close();
    fake.app.emit('window-all-closed');
    if (process.platform !== 'darwin') {
      expect(fake.app.quit).toHaveBeenCalled();
      fake.app.quit();
      await until(() => desktop.state() === 'stopped', 'stopped');
      expect(closeSpy).toHaveBeenCalledTimes(1);
    }
  });

  it('the data dir is <appData>/merchant-console unless MERCHANT_CONSOLE_DATA_DIR says otherwise', () => {
    expect(desktopDataDir('/home/u/.config', {})).toBe(path.resolve('/home/u/.config/merchant-console'));
    expect(desktopDataDir('/home/u/.config', { MERCHANT_CONSOLE_DATA_DIR: '/data/mc' })).toBe(path.resolve('/data/mc'));
    expect(desktopDataDir('/home/u/.config', { MERCHANT_CONSOLE_DATA_DIR: ' ' })).toBe(path.resolve('/home/u/.config/merchant-console'));
  });

  it('app lock: the owner password; a locked app answers no console call until unlocked; every try is audited', async () => {
    const first = start();
    await first.desktop.ready;
    expect(await shellCall('getDesktopMode')).toMatchObject({ code: 1, data: { mode: 'local', team_server_url: null, app_lock: { enabled: false, locked: false } } });
    expect(await shellCall('setAppLock', { password: 'short' })).toMatchObject({ code: 1001, msg: 'password: must be at least 12 characters' });
    expect(await shellCall('setAppLock', { password: 'a long lock password' })).toMatchObject({ code: 1, data: { app_lock: { enabled: true, locked: false } } });
    expect((await ipcCall('getServiceInfo')).code).toBe(1);
    expect(await shellCall('lockApp')).toMatchObject({ data: { app_lock: { enabled: true, locked: true } } });
    expect(await ipcCall('listMerchants')).toEqual({ code: 2006, msg: APP_LOCKED_MESSAGE, data: null });
    await first.desktop.stop();

    // A set lock holds across restarts.
    resetFakeElectron();
    const second = start({ dataDir: first.dataDir });
    await second.desktop.ready;
    expect(await ipcCall('getServiceInfo')).toMatchObject({ code: 2006 });
    expect(await shellCall('unlockApp', { password: 'not the password' })).toMatchObject({ code: 2009, msg: 'password: is not the app lock password' });
    expect(await shellCall('unlockApp', { password: 'a long lock password' })).toMatchObject({ code: 1, data: { app_lock: { locked: false } } });
    expect((await ipcCall('getServiceInfo')).code).toBe(1);
    expect(await shellCall('removeAppLock', { password: 'a long lock password' })).toMatchObject({ data: { app_lock: { enabled: false, locked: false } } });
    const service = second.desktop.service()!;
    const actions = await service.store.read(async (tx) => (await tx.all<{ action: string; actor_kind: string }>('SELECT action, actor_kind FROM audit_log ORDER BY id')).map((r) => `${r.actor_kind}:${r.action}`));
    expect(actions).toEqual(expect.arrayContaining(['desktop:desktop.app_lock_set', 'desktop:desktop.unlock_fail', 'desktop:desktop.unlock', 'desktop:desktop.app_lock_remove']));
    // Another frame never reaches the shell.
    expect(await shellCall('getDesktopMode', {}, 'https://evil.example/')).toMatchObject({ code: 2007 });
  });

  it('team server: remembered per desktop; the app restarts on it with no local store; its page gets only where it is and the way back', async () => {
    const local = start();
    await local.desktop.ready;
    expect(await shellCall('connectToTeamServer', { url: 'http://team.example' })).toMatchObject({ code: 1001, msg: expect.stringMatching(/^url: must be an https:\/\/ address/) });
    expect(fake.app.relaunch).not.toHaveBeenCalled();
    expect(await shellCall('connectToTeamServer', { url: 'https://team.example/console/' })).toMatchObject({ code: 1, data: { mode: 'team', team_server_url: 'https://team.example' } });
    await until(() => fake.app.relaunch.mock.calls.length === 1, 'the app restarts');
    expect(JSON.parse(fs.readFileSync(path.join(local.dataDir, DESKTOP_MODE_FILE), 'utf8'))).toEqual({ mode: 'team', team_server_url: 'https://team.example' });
    expect(fs.statSync(path.join(local.dataDir, DESKTOP_MODE_FILE)).mode & 0o077).toBe(0);
    await local.desktop.stop();

    resetFakeElectron();
    const team = start({ dataDir: local.dataDir });
    await team.desktop.ready;
    expect(team.desktop.state()).toBe('running');
    expect(team.desktop.service()).toBeNull();
    expect(fs.existsSync(path.join(local.dataDir, 'service.lock')) && team.desktop.listener()).toBeFalsy();
    const win = team.desktop.window() as unknown as FakeBrowserWindow;
    expect(win.loadURL).toHaveBeenCalledWith('https://team.example/console/');
    expect(win.options.webPreferences as Record<string, unknown>).toMatchObject({
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      preload: '/app/out/preload/index.cjs',
      additionalArguments: ['--merchant-console-team-page'],
    });
    // No console API over IPC: the team page talks to its server over HTTPS.
    expect([...fake.ipcMain.handlers.keys()].sort()).toEqual(DESKTOP_SHELL_METHODS.map(desktopShellChannelOf).sort());
    // Navigation stays within the team server's console; other links go to the system browser.
    expect(win.webContents.windowOpenHandler!({ url: 'https://elsewhere.example/' })).toEqual({ action: 'deny' });
    const page = 'https://team.example/console/#/orders';
    expect(await shellCall('getDesktopMode', {}, page)).toMatchObject({ code: 1, data: { mode: 'team', team_server_url: 'https://team.example', app_lock: { enabled: false } } });
    expect(await shellCall('setAppLock', { password: 'a long lock password' }, page)).toMatchObject({ code: 2007 });
    expect(await shellCall('connectToTeamServer', { url: 'https://other.example' }, page)).toMatchObject({ code: 2007 });
    expect(await shellCall('switchToLocal', {}, 'https://other.example/console/')).toMatchObject({ code: 2007 });
    // One click back: the local store, with the server still remembered.
    expect(await shellCall('switchToLocal', {}, page)).toMatchObject({ code: 1, data: { mode: 'local', team_server_url: 'https://team.example' } });
    await until(() => fake.app.relaunch.mock.calls.length === 1, 'the app restarts');
    await team.desktop.stop();

    resetFakeElectron();
    const back = start({ dataDir: local.dataDir });
    await back.desktop.ready;
    expect(back.desktop.service()).not.toBeNull();
    expect(await shellCall('getDesktopMode')).toMatchObject({ data: { mode: 'local', team_server_url: 'https://team.example' } });
  });
});
