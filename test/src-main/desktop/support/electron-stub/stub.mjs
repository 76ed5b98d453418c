// A scripted stand-in for Electron's main-process API, just enough to run the
// built out/main/index.js under plain Node: it reports what the bundle asks
// of Electron as JSON lines on stdout, plays the console window (serves the
// entry page through the registered app:// handler, makes one console call over
// "IPC"), then quits the way Electron does (before-quit, will-quit) and exits.
import { EventEmitter } from 'node:events';

const report = (event, data = {}) => process.stdout.write(JSON.stringify({ event, ...data }) + '\n');

function electronEvent() {
  let prevented = false;
  return {
    preventDefault() {
      prevented = true;
    },
    get defaultPrevented() {
      return prevented;
    },
  };
}

const handlers = new Map();
const schemes = new Map();

class App extends EventEmitter {
  isPackaged = false;
  paths = { appData: process.env.STUB_APPDATA ?? '/nonexistent' };
  getPath(name) {
    return this.paths[name];
  }
  setPath(name, value) {
    this.paths[name] = value;
    report('setPath', { name, value });
  }
  getAppPath() {
    return process.cwd();
  }
  getVersion() {
    return '0.0.0-stub';
  }
  requestSingleInstanceLock() {
    return true;
  }
  whenReady() {
    return Promise.resolve();
  }
  quit() {
    const before = electronEvent();
    this.emit('before-quit', before);
    if (before.defaultPrevented) return;
    const will = electronEvent();
    this.emit('will-quit', will);
    if (will.defaultPrevented) {
      report('will-quit-deferred');
      return;
    }
    report('quit');
    setImmediate(() => process.exit(0));
  }
  exit(code) {
    report('exit', { code });
    process.exit(code);
  }
}
export const app = new App();

export const protocol = {
  registerSchemesAsPrivileged(schemes) {
    report('registerSchemesAsPrivileged', { schemes });
  },
  handle(scheme, handler) {
    schemes.set(scheme, handler);
    report('protocol.handle', { scheme });
  },
};

const defaultSession = {
  setPermissionRequestHandler: (h) => report('setPermissionRequestHandler', { set: typeof h === 'function' }),
  setPermissionCheckHandler: (h) => report('setPermissionCheckHandler', { set: typeof h === 'function' }),
  setDevicePermissionHandler: (h) => report('setDevicePermissionHandler', { set: typeof h === 'function' }),
  webRequest: { onHeadersReceived: () => report('onHeadersReceived') },
};
export const session = { defaultSession };

export const ipcMain = {
  handle(channel, fn) {
    handlers.set(channel, fn);
  },
  removeHandler(channel) {
    handlers.delete(channel);
  },
};

export const shell = { openExternal: async (url) => report('openExternal', { url }) };
export const dialog = { showErrorBox: (title, message) => report('showErrorBox', { title, message }) };
export const safeStorage = {
  isAsyncEncryptionAvailable: async () => process.env.STUB_KEYCHAIN === 'on',
  getSelectedStorageBackend: () => 'gnome_libsecret',
  encryptStringAsync: async (text) => Buffer.from('STUB:' + Buffer.from(text).toString('hex')),
  decryptStringAsync: async (buf) => ({ shouldReEncrypt: false, result: Buffer.from(buf.toString().slice(5), 'hex').toString() }),
};

class WebContents extends EventEmitter {
  setWindowOpenHandler(handler) {
    this.windowOpenHandler = handler;
  }
  isDestroyed() {
    return false;
  }
}

export class BrowserWindow extends EventEmitter {
  constructor(options) {
    super();
    this.webContents = new WebContents();
    app.emit('web-contents-created', electronEvent(), this.webContents);
    report('BrowserWindow', { options });
  }
  async loadURL(url) {
    report('loadURL', { url });
    const page = await schemes.get('app')(new Request(url));
    report('page', { status: page.status, type: page.headers.get('content-type'), csp: page.headers.get('content-security-policy') });
    const frame = { url, parent: null };
    const info = await handlers.get('console-api:getServiceInfo')({ senderFrame: frame }, {});
    report('ipc', { method: 'getServiceInfo', answer: info });
    const foreign = await handlers.get('console-api:listMerchants')({ senderFrame: { url: 'https://evil.example/', parent: null } }, {});
    report('ipc', { method: 'listMerchants', answer: foreign });
    report('windowOpen', { result: this.webContents.windowOpenHandler({ url: 'https://pay.example.com/x' }) });
    setImmediate(() => app.quit());
  }
  once(...args) {
    return super.once(...args);
  }
  isDestroyed() {
    return false;
  }
  isMinimized() {
    return false;
  }
  show() {}
  focus() {}
  restore() {}
}

export default { app, protocol, session, ipcMain, shell, dialog, safeStorage, BrowserWindow };
