import type { Session, WebContents } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import {
  APP_ORIGIN,
  contentSecurityPolicy,
  isOpenableExternally,
  isPermissionGranted,
  originOf,
  trustedOrigins,
} from '../../../src-main/desktop/content-security';
import { consoleWebPreferences, hardenWebContents, installSessionPolicy, type ConsoleWindowPolicy } from '../../../src-main/desktop/window-security';
import { electronEvent, FakeWebContents } from './support/fake-electron';

describe('console window webPreferences against the security checklist', () => {
  const prefs = consoleWebPreferences('/app/out/preload/index.cjs', { devTools: false });

  it.each([
    ['#2 no Node.js integration', 'nodeIntegration', false],
    ['#2 no Node.js in workers', 'nodeIntegrationInWorker', false],
    ['#2 no Node.js in sub-frames', 'nodeIntegrationInSubFrames', false],
    ['#3 context isolation', 'contextIsolation', true],
    ['#4 process sandbox', 'sandbox', true],
    ['#6 webSecurity on', 'webSecurity', true],
    ['#8 no insecure content', 'allowRunningInsecureContent', false],
    ['#9 no experimental features', 'experimentalFeatures', false],
    ['#11/#12 no <webview>', 'webviewTag', false],
    ['#13 dropping a file does not navigate', 'navigateOnDragDrop', false],
  ] as const)('%s', (_item, key, value) => {
    expect(prefs[key]).toBe(value);
  });

  it('#10 enables no Blink features and loads only the bundled preload', () => {
    expect(prefs.enableBlinkFeatures).toBeUndefined();
    expect(prefs.preload).toBe('/app/out/preload/index.cjs');
    expect(prefs.devTools).toBe(false);
    expect(consoleWebPreferences('/p', { devTools: true }).devTools).toBe(true);
  });
});

describe('content security policy (#7)', () => {
  const directives = (csp: string) => new Map(csp.split('; ').map((d) => [d.split(' ')[0]!, d.split(' ').slice(1)]));

  it('allows only the app itself: no inline or eval script, no remote anything, no framing', () => {
    const csp = directives(contentSecurityPolicy());
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('connect-src')).toEqual(["'self'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('base-uri')).toEqual(["'none'"]);
    expect(csp.get('form-action')).toEqual(["'none'"]);
    for (const [, sources] of csp) {
      expect(sources.join(' ')).not.toMatch(/unsafe-eval|https?:|\*/);
    }
    expect(csp.get('script-src')!.join(' ')).not.toMatch(/unsafe-inline/);
  });

  it('in dev also lets Vite hot reload connect to its own websocket', () => {
    const csp = directives(contentSecurityPolicy({ devServerOrigin: 'http://localhost:5173' }));
    expect(csp.get('connect-src')).toEqual(["'self'", 'ws://localhost:5173']);
    expect(csp.get('script-src')).toEqual(["'self'"]);
  });
});

describe('URL rules', () => {
  it('originOf understands the app scheme and http(s) only', () => {
    expect(originOf('app://console/index.html#/orders')).toBe(APP_ORIGIN);
    expect(originOf('app://evil/index.html')).toBe('app://evil');
    expect(originOf('https://pay.example.com/x?y=1')).toBe('https://pay.example.com');
    expect(originOf('file:///etc/passwd')).toBeNull();
    expect(originOf('not a url')).toBeNull();
  });

  it('trusts the dev server only when it is on this machine', () => {
    expect(trustedOrigins(undefined)).toEqual([APP_ORIGIN]);
    expect(trustedOrigins('http://localhost:5173/')).toEqual([APP_ORIGIN, 'http://localhost:5173']);
    expect(trustedOrigins('http://127.0.0.1:5174')).toEqual([APP_ORIGIN, 'http://127.0.0.1:5174']);
    expect(trustedOrigins('https://evil.example/')).toEqual([APP_ORIGIN]);
    expect(trustedOrigins('http://localhost.evil.example:5173')).toEqual([APP_ORIGIN]);
  });

  it.each([
    ['https://pay.example.com/order/1', true],
    ['http://127.0.0.1:8787/pay/abc', true],
    ['file:///etc/passwd', false],
    ['javascript:alert(1)', false],
    ['smb://server/share', false],
    ['app://console/index.html', false],
    ['ms-msdt:/id PCWDiagnostic', false],
    ['https://user:pass@pay.example.com/', false],
    ['not a url', false],
    [`https://pay.example.com/${'a'.repeat(5000)}`, false],
  ])('#15 openExternal for %s: %s', (url, allowed) => {
    expect(isOpenableExternally(url)).toBe(allowed);
  });

  it('#5 grants only sanitized clipboard writes, only to the console', () => {
    const origins = [APP_ORIGIN];
    expect(isPermissionGranted('clipboard-sanitized-write', 'app://console/index.html', origins)).toBe(true);
    expect(isPermissionGranted('clipboard-sanitized-write', 'app://console', origins)).toBe(true);
    expect(isPermissionGranted('clipboard-sanitized-write', 'https://evil.example/', origins)).toBe(false);
    expect(isPermissionGranted('clipboard-sanitized-write', undefined, origins)).toBe(false);
    for (const p of ['clipboard-read', 'media', 'geolocation', 'notifications', 'openExternal', 'fullscreen', 'hid', 'usb', 'serial', 'fileSystem', 'unknown']) {
      expect(isPermissionGranted(p, 'app://console/index.html', origins)).toBe(false);
    }
  });
});

function policy(): ConsoleWindowPolicy & { opened: string[]; logs: string[] } {
  const opened: string[] = [];
  const logs: string[] = [];
  return { trustedOrigins: [APP_ORIGIN], opened, logs, openExternal: (url) => opened.push(url), log: (l) => logs.push(l) };
}

describe('navigation and new windows (#13, #14, #15)', () => {
  function hardened() {
    const contents = new FakeWebContents();
    const p = policy();
    hardenWebContents(contents as unknown as WebContents, p);
    return { contents, p };
  }

  it('every window.open / target=_blank is denied; http(s) targets open in the system browser', () => {
    const { contents, p } = hardened();
    expect(contents.windowOpenHandler!({ url: 'https://pay.example.com/checkout/1' })).toEqual({ action: 'deny' });
    expect(contents.windowOpenHandler!({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(contents.windowOpenHandler!({ url: 'app://console/index.html' })).toEqual({ action: 'deny' });
    expect(contents.windowOpenHandler!({ url: 'javascript:alert(1)' })).toEqual({ action: 'deny' });
    expect(p.opened).toEqual(['https://pay.example.com/checkout/1']);
    expect(p.logs).toHaveLength(3);
  });

  it('navigation stays inside the console; an http(s) link goes to the system browser instead', () => {
    const { contents, p } = hardened();
    const inside = electronEvent({ url: 'app://console/index.html', isMainFrame: true });
    contents.emit('will-navigate', inside);
    expect(inside.defaultPrevented).toBe(false);

    const away = electronEvent({ url: 'https://pay.example.com/x', isMainFrame: true });
    contents.emit('will-navigate', away);
    expect(away.defaultPrevented).toBe(true);
    expect(p.opened).toEqual(['https://pay.example.com/x']);

    for (const url of ['file:///etc/passwd', 'app://other/index.html', 'http://localhost:5173/']) {
      const event = electronEvent({ url, isMainFrame: true });
      contents.emit('will-navigate', event);
      expect(event.defaultPrevented, url).toBe(true);
    }
    expect(p.opened).toEqual(['https://pay.example.com/x', 'http://localhost:5173/']);
  });

  it('sub-frame navigation, redirects and <webview> are refused', () => {
    const { contents } = hardened();
    const frame = electronEvent({ url: 'https://evil.example/', isMainFrame: false });
    contents.emit('will-frame-navigate', frame);
    expect(frame.defaultPrevented).toBe(true);
    const ownFrame = electronEvent({ url: 'app://console/x.html', isMainFrame: false });
    contents.emit('will-frame-navigate', ownFrame);
    expect(ownFrame.defaultPrevented).toBe(false);

    const redirect = electronEvent({ url: 'https://evil.example/', isMainFrame: true });
    contents.emit('will-redirect', redirect);
    expect(redirect.defaultPrevented).toBe(true);

    const webview = electronEvent();
    contents.emit('will-attach-webview', webview, { nodeIntegration: true }, { src: 'app://console/index.html' });
    expect(webview.defaultPrevented).toBe(true);
  });
});

describe('session permission handlers (#5)', () => {
  function installed() {
    const handlers: Record<string, (...args: never[]) => unknown> = {};
    const session = {
      setPermissionRequestHandler: (h: (...args: never[]) => unknown) => (handlers.request = h),
      setPermissionCheckHandler: (h: (...args: never[]) => unknown) => (handlers.check = h),
      setDevicePermissionHandler: (h: (...args: never[]) => unknown) => (handlers.device = h),
    };
    installSessionPolicy(session as unknown as Session, policy());
    return handlers as Record<'request' | 'check' | 'device', (...args: unknown[]) => unknown>;
  }

  it('denies every permission request except clipboard writes from the console', () => {
    const h = installed();
    const answer = (permission: string, requestingUrl: string) => {
      const callback = vi.fn();
      h.request(null, permission, callback, { requestingUrl, isMainFrame: true });
      expect(callback).toHaveBeenCalledTimes(1);
      return callback.mock.calls[0]![0] as boolean;
    };
    expect(answer('media', 'app://console/index.html')).toBe(false);
    expect(answer('notifications', 'app://console/index.html')).toBe(false);
    expect(answer('geolocation', 'app://console/index.html')).toBe(false);
    expect(answer('openExternal', 'app://console/index.html')).toBe(false);
    expect(answer('clipboard-read', 'app://console/index.html')).toBe(false);
    expect(answer('clipboard-sanitized-write', 'https://evil.example/')).toBe(false);
    expect(answer('clipboard-sanitized-write', 'app://console/index.html')).toBe(true);
  });

  it('answers permission checks the same way and refuses every device', () => {
    const h = installed();
    expect(h.check(null, 'media', 'app://console', {})).toBe(false);
    expect(h.check(null, 'clipboard-sanitized-write', 'app://console', {})).toBe(true);
    expect(h.check(null, 'clipboard-sanitized-write', 'https://evil.example', {})).toBe(false);
    expect(h.device({ deviceType: 'usb', origin: 'app://console' })).toBe(false);
  });
});
