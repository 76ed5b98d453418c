/**
 * A stand-in for the `electron` module (Electron's runtime never runs in
 * tests or CI). Each test file mocks electron with it:
 *
 *   vi.mock('electron', async () => (await import('./support/fake-electron')).fakeElectronModule());
 *
 * and drives it through `fake`: it records what the shell asked of Electron
 * (window options, handlers, registrations) and lets tests emit Electron's
 * events. Only what the shell uses is modelled.
 */
import { EventEmitter } from 'node:events';
import { vi } from 'vitest';

export type Listener = (...args: unknown[]) => unknown;

/** An Electron-style event object: preventDefault plus params. */
export function electronEvent<P extends object>(params: P = {} as P): P & { preventDefault(): void; readonly defaultPrevented: boolean } {
  let prevented = false;
  return Object.assign(
    {
      preventDefault() {
        prevented = true;
      },
      get defaultPrevented() {
        return prevented;
      },
    },
    params,
  );
}

let nextWebContentsId = 1;

export class FakeWebContents extends EventEmitter {
  readonly id = nextWebContentsId++;
  windowOpenHandler: ((details: { url: string }) => { action: 'allow' | 'deny' }) | null = null;
  url = '';
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'allow' | 'deny' }): void {
    this.windowOpenHandler = handler;
  }
  getURL(): string {
    return this.url;
  }
  isDestroyed(): boolean {
    return false;
  }
}

export class FakeBrowserWindow extends EventEmitter {
  static instances: FakeBrowserWindow[] = [];
  static getAllWindows(): FakeBrowserWindow[] {
    return FakeBrowserWindow.instances.filter((w) => !w.destroyed);
  }
  readonly webContents = new FakeWebContents();
  readonly loadURL = vi.fn(async (url: string) => {
    this.webContents.url = url;
  });
  readonly show = vi.fn();
  readonly focus = vi.fn();
  readonly restore = vi.fn();
  minimized = false;
  destroyed = false;
  constructor(readonly options: Record<string, unknown>) {
    super();
    FakeBrowserWindow.instances.push(this);
    fake.app.emit('web-contents-created', electronEvent(), this.webContents);
  }
  isMinimized(): boolean {
    return this.minimized;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  close(): void {
    this.destroyed = true;
    this.emit('closed');
  }
}

class FakeApp extends EventEmitter {
  isPackaged = false;
  singleInstance = true;
  paths: Record<string, string> = { appData: '/fake/appData', userData: '/fake/appData/merchant-console' };
  appPath = process.cwd();
  version = '0.1.0-test';
  readyResolve!: () => void;
  ready = new Promise<void>((resolve) => (this.readyResolve = resolve));
  readonly requestSingleInstanceLock = vi.fn(() => this.singleInstance);
  readonly quit = vi.fn(() => {
    // Like Electron: before-quit, then (windows closed) will-quit, which a listener may cancel.
    const before = electronEvent();
    this.emit('before-quit', before);
    if (before.defaultPrevented) return;
    const will = electronEvent();
    this.emit('will-quit', will);
    if (!will.defaultPrevented) this.emit('quit');
  });
  readonly exit = vi.fn();
  readonly relaunch = vi.fn();
  readonly setPath = vi.fn((name: string, value: string) => {
    this.paths[name] = value;
  });
  getPath(name: string): string {
    const p = this.paths[name];
    if (!p) throw new Error(`fake app has no path ${name}`);
    return p;
  }
  getAppPath(): string {
    return this.appPath;
  }
  getVersion(): string {
    return this.version;
  }
  whenReady(): Promise<void> {
    return this.ready;
  }
}

class FakeSession {
  permissionRequestHandler: Listener | null = null;
  permissionCheckHandler: Listener | null = null;
  devicePermissionHandler: Listener | null = null;
  headersReceived: { filter: unknown; listener: Listener } | null = null;
  setPermissionRequestHandler(handler: Listener | null): void {
    this.permissionRequestHandler = handler;
  }
  setPermissionCheckHandler(handler: Listener | null): void {
    this.permissionCheckHandler = handler;
  }
  setDevicePermissionHandler(handler: Listener | null): void {
    this.devicePermissionHandler = handler;
  }
  readonly webRequest = {
    onHeadersReceived: (filter: unknown, listener: Listener) => {
      this.headersReceived = { filter, listener };
    },
  };
}

class FakeIpcMain {
  readonly handlers = new Map<string, Listener>();
  handle(channel: string, listener: Listener): void {
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, listener);
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }
}

export interface FakeSafeStorage {
  available: boolean;
  backend: string;
  /** Marks every later decrypt as coming from a rotated key. */
  reencrypt: boolean;
  isAsyncEncryptionAvailable(): Promise<boolean>;
  getSelectedStorageBackend(): string;
  encryptStringAsync(plain: string): Promise<Buffer>;
  decryptStringAsync(encrypted: Buffer): Promise<{ shouldReEncrypt: boolean; result: string }>;
}

/** Reversible "encryption" that is visibly not the plaintext, and fails on foreign bytes like the real one. */
function fakeSafeStorage(): FakeSafeStorage {
  const MAGIC = 'FAKE-OS-KEYCHAIN:';
  return {
    available: true,
    backend: 'gnome_libsecret',
    reencrypt: false,
    async isAsyncEncryptionAvailable() {
      return this.available;
    },
    getSelectedStorageBackend() {
      return this.backend;
    },
    async encryptStringAsync(plain: string) {
      if (!this.available) throw new Error('Error while encrypting the text provided to safeStorage.encryptString. Encryption is not available.');
      return Buffer.from(MAGIC + Buffer.from(plain, 'utf8').toString('hex'), 'utf8');
    },
    async decryptStringAsync(encrypted: Buffer) {
      if (!this.available) throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString. Decryption is not available.');
      const text = encrypted.toString('utf8');
      if (!text.startsWith(MAGIC)) throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.');
      return { shouldReEncrypt: this.reencrypt, result: Buffer.from(text.slice(MAGIC.length), 'hex').toString('utf8') };
    },
  };
}

function createFake() {
  return {
    app: new FakeApp(),
    session: new FakeSession(),
    ipcMain: new FakeIpcMain(),
    safeStorage: fakeSafeStorage(),
    protocol: {
      registerSchemesAsPrivileged: vi.fn(),
      handlers: new Map<string, (request: Request) => Promise<Response> | Response>(),
      handle: vi.fn(),
    },
    shell: { openExternal: vi.fn(async (_url: string) => {}) },
    dialog: { showErrorBox: vi.fn() },
    contextBridge: { exposeInMainWorld: vi.fn() },
    ipcRenderer: { invoke: vi.fn(async (..._args: unknown[]) => ({ code: 1, msg: 'success', data: null })) },
  };
}

export let fake = createFake();

/** Fresh state for the next test (the mocked module reads `fake` at call time). */
export function resetFakeElectron(): void {
  fake = createFake();
  fake.protocol.handle.mockImplementation((scheme: string, handler: (request: Request) => Promise<Response>) => {
    fake.protocol.handlers.set(scheme, handler);
  });
  FakeBrowserWindow.instances = [];
}
resetFakeElectron();

/** The module object vi.mock('electron') returns; getters so a reset is seen by modules imported earlier. */
export function fakeElectronModule() {
  const module = {
    get app() {
      return fake.app;
    },
    BrowserWindow: FakeBrowserWindow,
    get ipcMain() {
      return fake.ipcMain;
    },
    get protocol() {
      return fake.protocol;
    },
    get session() {
      return { defaultSession: fake.session };
    },
    get shell() {
      return fake.shell;
    },
    get dialog() {
      return fake.dialog;
    },
    get safeStorage() {
      return fake.safeStorage;
    },
    get contextBridge() {
      return fake.contextBridge;
    },
    get ipcRenderer() {
      return fake.ipcRenderer;
    },
  };
  Object.defineProperty(module, 'default', { get: () => module, enumerable: true });
  return module;
}
