/**
 * The desktop app's life: one instance per user-data dir; at 'ready' the
 * app:// protocol, the session policy, the service on the data dir (Electron
 * build of better-sqlite3, master key sealed with the OS keychain), the
 * embedded listener per the stored settings (a failure is reported in the
 * console, not fatal), the console IPC, and the window. On quit: IPC
 * removed, listener drained, background work stopped, database closed,
 * data-dir lock released — before Electron exits.
 *
 * Everything that decides something lives in the modules imported here and
 * is unit-tested; this file wires them to Electron and is tested with
 * electron mocked.
 */
import fs from 'node:fs';
import path from 'node:path';
import { app, BrowserWindow, dialog, ipcMain, safeStorage, session, shell } from 'electron';
import type { BackgroundWork, BackgroundWorkOptions } from '../background/background-work';
import { createConsoleHandlers } from '../console-api/console-handlers';
import { startHost, type Host, type HostListening } from '../host';
import type { Checkpointer } from '../store/sqlite/checkpointer';
import type { SqliteStore } from '../store/sqlite/sqlite-store';
import type { ListenerSettings } from '../../src-shared/schemas/console';
import { TEAM_PAGE_ARGUMENT } from '../../src-shared/console-api/methods';
import { openService, type MerchantConsoleService } from '../service';
import { acquireDataDirLock, APP_DIR_NAME, DATA_DIR_ENV, DataDirLockedError, type DataDirLock } from '../store/data-dir';
import { handleAppProtocol, registerAppScheme } from './app-protocol';
import { registerConsoleIpc } from './console-ipc';
import { createDesktopShell, readDesktopMode, registerDesktopShellIpc } from './desktop-shell';
import type { DesktopCaller } from '../console-api/caller';
import { APP_ENTRY_URL, contentSecurityPolicy, isTrustedUrl, originOf, trustedOrigins } from './content-security';
import { createListenerControl, type ListenerControl } from './listener-control';
import { bindingMismatch, chooseNativeBinding, parseStamp } from './native-binding';
import { KEYCHAIN_ENV, openDesktopMasterKey } from './safe-storage-key-store';
import { consoleWebPreferences, hardenWebContents, installSessionPolicy, type ConsoleWindowPolicy } from './window-security';

export interface DesktopLog {
  info(line: string): void;
  warn(line: string): void;
  error(line: string): void;
}

export interface DesktopOptions {
  /** The bundled preload (out/preload/index.cjs). */
  preloadPath: string;
  /** The built renderer served at app://console (out/renderer). */
  rendererDir: string;
  env?: NodeJS.ProcessEnv;
  log?: DesktopLog;
  /** Listener settings; default: the stored ones (tests pass port 0). */
  listenerSettings?(service: MerchantConsoleService): ListenerSettings | Promise<ListenerSettings>;
  /** Quit gracefully on SIGINT/SIGTERM (when started from a terminal); default true. */
  handleSignals?: boolean;
  /** Expiry, payouts, settlement, housekeeping; default: the service's own background work (as in `serve`, host.ts). */
  startBackgroundWork?(service: MerchantConsoleService, options: BackgroundWorkOptions): BackgroundWork;
  /** WAL checkpoints off the main thread; default: the same worker as `serve` (store/sqlite/checkpointer.ts). */
  startCheckpointer?(store: SqliteStore, options: { onError: (message: string) => void }): Pick<Checkpointer, 'stop'>;
}

export type DesktopState = 'starting' | 'running' | 'stopping' | 'stopped' | 'failed' | 'secondary';

const consoleLog: DesktopLog = {
  info: (l) => console.log(`[merchant-console] ${l}`),
  warn: (l) => console.warn(`[merchant-console] ${l}`),
  error: (l) => console.error(`[merchant-console] ${l}`),
};

/**
 * The data dir is Electron's userData folder: <appData>/merchant-console,
 * the same folder `serve` uses by default (set explicitly so a productName
 * never moves it), or $MERCHANT_CONSOLE_DATA_DIR.
 */
export function desktopDataDir(appDataDir: string, env: NodeJS.ProcessEnv): string {
  const override = env[DATA_DIR_ENV];
  return path.resolve(override && override.trim() !== '' ? override : path.join(appDataDir, APP_DIR_NAME));
}

/** Which better-sqlite3 build to load in this process; throws a readable error when it does not fit. */
export function resolveNativeBinding(resourcesPath: string): string | undefined {
  const runtime = { versions: process.versions, platform: process.platform, arch: process.arch };
  const choice = chooseNativeBinding(runtime, { isPackaged: app.isPackaged, appPath: app.getAppPath(), resourcesPath });
  if (choice.kind === 'node-default') return undefined;
  let stampText: string | null = null;
  try {
    stampText = fs.readFileSync(choice.stampPath, 'utf8');
  } catch {
    stampText = null;
  }
  const problem = bindingMismatch(choice, stampText === null ? null : parseStamp(stampText), fs.existsSync(choice.bindingPath), runtime);
  if (problem) throw new Error(problem);
  return choice.bindingPath;
}

/** The data-dir lock, with the CLI's "--data-dir" advice replaced by what a desktop user can do. */
function lockDataDir(dataDir: string, nativeBinding: string | undefined): DataDirLock {
  try {
    return acquireDataDirLock(dataDir, { nativeBinding });
  } catch (err) {
    if (!(err instanceof DataDirLockedError)) throw err;
    const holder = err.holder;
    const who = holder ? ` (pid ${holder.pid}${holder.url ? `, listening on ${holder.url}` : ''})` : '';
    throw new Error(
      `another merchant-console service${who} is already running on data dir ${dataDir}. ` +
        `Stop it (e.g. the \`merchant-console serve\` in a terminal) and start the app again, or start the app with ${DATA_DIR_ENV} set to another folder.`,
    );
  }
}

export function runDesktop(options: DesktopOptions) {
  const env = options.env ?? process.env;
  const log = options.log ?? consoleLog;
  // The Vite dev server (npm run dev), only from a checkout and only on this machine: the window never loads
  // anything else, so a stray ELECTRON_RENDERER_URL cannot put a foreign page (with the preload) in it.
  const requestedDevUrl = !app.isPackaged ? env.ELECTRON_RENDERER_URL || undefined : undefined;
  const origins = trustedOrigins(requestedDevUrl);
  // Before 'ready': the data dir (userData) and which store this desktop uses (docs/desktop.md, "Team server").
  const dataDir = desktopDataDir(app.getPath('appData'), env);
  const mode = readDesktopMode(dataDir);
  const teamUrl = mode.mode === 'team' ? mode.team_server_url : null;
  const teamOrigin = teamUrl ? originOf(teamUrl) : null;
  const devServerUrl = requestedDevUrl && isTrustedUrl(requestedDevUrl, origins) ? requestedDevUrl : undefined;
  if (requestedDevUrl && !devServerUrl) log.warn(`ignored ELECTRON_RENDERER_URL ${requestedDevUrl.slice(0, 80)}: not a dev server on this machine`);
  const policy: ConsoleWindowPolicy = {
    // In team mode the window also navigates within the team server's console (its own sign-in).
    trustedOrigins: teamOrigin ? [...origins, teamOrigin] : origins,
    openExternal: (url) => {
      shell.openExternal(url).catch((err: unknown) => log.warn(`could not open the system browser: ${(err as Error).message}`));
    },
    log: (line) => log.warn(line),
  };

  let state: DesktopState = 'starting';
  let lock: DataDirLock | null = null;
  let service: MerchantConsoleService | null = null;
  let listener: ListenerControl | null = null;
  let host: Host<HostListening> | null = null;
  let startup: Promise<void> | null = null;
  let unregisterIpc: (() => void) | null = null;
  let unregisterShell: (() => void) | null = null;
  let window: BrowserWindow | null = null;
  let stopping: Promise<void> | null = null;

  // Before 'ready': the privileged scheme, the data dir as userData, and the single-instance lock (keyed on userData).
  registerAppScheme();
  app.setPath('userData', dataDir);
  if (!app.requestSingleInstanceLock()) {
    state = 'secondary';
    app.quit();
    return controller(Promise.resolve());
  }

  /** Restarts the app (the shell switched stores); will-quit takes everything down first. */
  function relaunch(): void {
    app.relaunch();
    app.quit();
  }

  function createWindow(): BrowserWindow {
    const win = new BrowserWindow({
      width: 1280,
      height: 820,
      minWidth: 960,
      minHeight: 600,
      show: false,
      title: 'Merchant Console',
      autoHideMenuBar: true,
      webPreferences: {
        ...consoleWebPreferences(options.preloadPath, { devTools: !app.isPackaged }),
        // A team server's page: the preload gives it no console API bridge, only the way back (preload.ts).
        ...(teamUrl ? { additionalArguments: [TEAM_PAGE_ARGUMENT] } : {}),
      },
    });
    win.once('ready-to-show', () => win.show());
    win.on('closed', () => {
      if (window === win) window = null;
    });
    win.loadURL(teamUrl ? `${teamUrl}/console/` : (devServerUrl ?? APP_ENTRY_URL)).catch((err: unknown) => log.error(`could not load the console page: ${(err as Error).message}`));
    return win;
  }

  function focusWindow(): void {
    if (state !== 'running') return;
    if (!window || window.isDestroyed()) {
      window = createWindow();
      return;
    }
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
  }

  async function start(): Promise<void> {
    handleAppProtocol({ rootDir: options.rendererDir, contentSecurityPolicy: contentSecurityPolicy() });
    installSessionPolicy(session.defaultSession, policy);
    const devOrigin = devServerUrl ? originOf(devServerUrl) : null;
    if (devOrigin) {
      // The dev server's pages get the same CSP (plus its hot-reload websocket) through a header.
      const csp = contentSecurityPolicy({ devServerOrigin: devOrigin });
      session.defaultSession.webRequest.onHeadersReceived({ urls: [`${devOrigin}/*`] }, (details, callback) => {
        callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [csp] } });
      });
    }

    if (teamUrl) {
      // A team server's console: no local service, store or listener; the page signs in to its server.
      const shell = createDesktopShell({ dataDir, mode, relaunch });
      unregisterShell = registerDesktopShellIpc(ipcMain, shell.handlers, { console: origins, teamServer: teamUrl });
      if (state !== 'starting') return;
      window = createWindow();
      state = 'running';
      log.info(`team server ${teamUrl}`);
      return;
    }

    const nativeBinding = resolveNativeBinding(process.resourcesPath ?? '');
    const started = await startHost({
      lock: () => (lock = lockDataDir(dataDir, nativeBinding)),
      openService: async () => {
        const key = await openDesktopMasterKey({ dataDir, safeStorage, keychain: env[KEYCHAIN_ENV] === 'off' ? 'off' : 'on' });
        log.info(key.note);
        return (service = await openService({ dataDir, masterKeyStore: key.store, nativeBinding }));
      },
      listen: async (opened) => {
        const control = (listener = createListenerControl(opened, {
          settings: () => (options.listenerSettings ? options.listenerSettings(opened) : opened.store.read((tx) => opened.services.settings.listener(tx))),
        }));
        const listening = await control.start();
        if (listening.error) log.warn(`listener not started: ${listening.error}`);
        else if (listening.url) log.info(`merchant API listening on ${listening.url}`);
        return { listener: control, url: listening.url };
      },
      runtime: {
        onError: (source, message) => log.warn(`${source}: ${message}`),
        ...(options.startBackgroundWork ? { startBackgroundWork: options.startBackgroundWork } : {}),
        ...(options.startCheckpointer ? { startCheckpointer: options.startCheckpointer } : {}),
      },
      warn: (line) => log.warn(line),
    });
    host = started;
    const opened = started.service;
    const control = started.listening.listener;
    const handlers = createConsoleHandlers(opened, {
      version: app.getVersion(),
      listenerUrl: () => control.state().url,
      listenerInUse: () => control.state().inUse,
      listenerError: () => control.state().error,
      applyListenerSettings: async () => {
        const applied = await control.restart();
        lock?.describe({ url: applied.url });
        if (applied.error) log.warn(`listener not started: ${applied.error}`);
        else log.info(applied.url ? `merchant API listening on ${applied.url}` : 'listener switched off');
      },
    });
    // The person at the computer is the owner of the desktop's own store (docs/accounts.md, "Desktop").
    const owner = await opened.store.write((tx) => opened.services.accounts.ensureDesktopOwner(tx));
    const desktopCaller: DesktopCaller = { kind: 'desktop', role: 'owner', merchantIds: null, accountId: owner.id, login: owner.login };
    // The optional app lock is the owner's password; while locked the window's calls have no caller.
    const shell = createDesktopShell({ dataDir, mode, local: { service: opened, ownerId: owner.id, ownerLogin: owner.login }, relaunch });
    await shell.init();
    unregisterShell = registerDesktopShellIpc(ipcMain, shell.handlers, { console: origins, teamServer: mode.team_server_url });
    unregisterIpc = registerConsoleIpc(ipcMain, handlers, {
      trustedOrigins: origins,
      caller: () => (shell.locked() ? null : desktopCaller),
      log: { warn: (l) => log.warn(l), error: ({ method, err }) => log.error(`console call ${method} failed: ${(err as Error)?.stack ?? String(err)}`) },
    });

    if (state !== 'starting') return; // quit while starting
    window = createWindow();
    state = 'running';
    log.info(`data dir ${dataDir}`);
  }

  /** Idempotent: the first call does the work, later calls wait for it. */
  function stop(): Promise<void> {
    if (!stopping) {
      stopping = (async () => {
        if (state === 'starting') {
          // Quit while starting: the host is taken down once start-up is over (a failed start took itself down).
          state = 'stopping';
          await startup?.catch(() => undefined);
        }
        if (state !== 'failed') state = 'stopping';
        unregisterIpc?.();
        unregisterIpc = null;
        unregisterShell?.();
        unregisterShell = null;
        await host?.stop();
        if (state !== 'failed') state = 'stopped';
      })();
    }
    return stopping;
  }

  app.on('second-instance', () => focusWindow());
  app.on('activate', () => focusWindow());
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, policy));
  app.on('window-all-closed', () => {
    // macOS apps stay alive without windows (the dock reopens one); elsewhere closing the window quits.
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('will-quit', (event) => {
    if (state === 'stopped' || state === 'secondary' || (state === 'failed' && stopping)) return;
    event.preventDefault();
    void stop().finally(() => app.quit());
  });
  if (options.handleSignals ?? true) {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => app.quit());
  }

  const started = app
    .whenReady()
    .then(() => (startup = start()))
    .catch(async (err: unknown) => {
      state = 'failed';
      const message = err instanceof Error ? err.message : String(err);
      log.error(`cannot start: ${message}`);
      dialog.showErrorBox('Merchant Console cannot start', message);
      await stop();
      app.exit(1);
    });

  return controller(started);

  function controller(ready: Promise<void>) {
    return {
      /** Settles when start-up finished (or failed and the app is exiting). */
      ready,
      state: (): DesktopState => state,
      dataDir,
      service: (): MerchantConsoleService | null => service,
      listener: () => listener?.state() ?? null,
      window: (): BrowserWindow | null => window,
      stop,
    };
  }
}
