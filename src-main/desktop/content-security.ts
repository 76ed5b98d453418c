/**
 * The console window's Content-Security-Policy and the URL rules the shell
 * enforces: which origin is the app's own, which links may leave for the
 * system browser, which permissions a page gets. Pure: no electron here, so
 * every rule is unit-tested as data.
 */

export const APP_SCHEME = 'app';
export const APP_HOST = 'console';
/** The console's origin in production: a custom standard, secure scheme (never file://). */
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;

/**
 * Everything from the app itself, nothing inline except styles (Naive UI
 * injects <style> elements at run time), no eval, no plugins, no framing,
 * no form posts. Same policy as the browser console at /console/ except
 * form-action (the desktop never submits forms to anything).
 */
const BASE_POLICY: readonly (readonly [string, string])[] = [
  ['default-src', "'none'"],
  ['script-src', "'self'"],
  ['style-src', "'self' 'unsafe-inline'"],
  ['img-src', "'self' data: blob:"],
  ['font-src', "'self' data:"],
  ['connect-src', "'self'"],
  ['worker-src', "'self' blob:"],
  ['manifest-src', "'self'"],
  ['media-src', "'none'"],
  ['object-src', "'none'"],
  ['frame-src', "'none'"],
  ['child-src', "'none'"],
  ['base-uri', "'none'"],
  ['form-action', "'none'"],
  ['frame-ancestors', "'none'"],
];

export function contentSecurityPolicy(options: { devServerOrigin?: string } = {}): string {
  return BASE_POLICY.map(([directive, value]) => {
    // The Vite dev server's hot reload talks over a websocket on its own host.
    if (directive === 'connect-src' && options.devServerOrigin) {
      const ws = options.devServerOrigin.replace(/^http/, 'ws');
      return `${directive} ${value} ${ws}`;
    }
    return `${directive} ${value}`;
  }).join('; ');
}

/** Parses a URL, or null. */
function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/**
 * The origin of a URL, including custom schemes (WHATWG gives "null" for
 * those, which would make every app:// URL look alike).
 */
export function originOf(url: string): string | null {
  const u = parse(url);
  if (!u) return null;
  if (u.protocol === 'http:' || u.protocol === 'https:') return u.origin;
  if (u.protocol === `${APP_SCHEME}:` && u.host !== '') return `${u.protocol}//${u.host}`;
  return null;
}

/** Origins whose pages are the console: app://console, plus the dev server when running from a checkout. */
export function trustedOrigins(devServerUrl: string | undefined): string[] {
  const origins = [APP_ORIGIN];
  const dev = devServerUrl ? originOf(devServerUrl) : null;
  if (dev && /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:[0-9]+)?$/.test(dev)) origins.push(dev);
  return origins;
}

export function isTrustedUrl(url: string, origins: readonly string[]): boolean {
  const origin = originOf(url);
  return origin !== null && origins.includes(origin);
}

const MAX_EXTERNAL_URL_LENGTH = 4096;

/**
 * Links the shell hands to the system browser: http and https only (a pay_url,
 * a merchant's site). file:, javascript:, smb:, custom app schemes … never
 * reach shell.openExternal.
 */
export function isOpenableExternally(url: string): boolean {
  if (url.length > MAX_EXTERNAL_URL_LENGTH) return false;
  const u = parse(url);
  if (!u) return false;
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
  // user:pass@host links are a phishing device; nothing legitimate here needs them.
  if (u.username !== '' || u.password !== '') return false;
  return u.hostname !== '';
}

/**
 * Permissions granted to the console's own pages: writing (sanitized) text
 * to the clipboard for the copy buttons. Everything else — camera,
 * notifications, geolocation, HID, USB, openExternal … — is refused, and
 * nothing at all is granted to any other origin.
 */
export const GRANTED_PERMISSIONS: readonly string[] = ['clipboard-sanitized-write'];

export function isPermissionGranted(permission: string, requestingUrlOrOrigin: string | undefined, origins: readonly string[]): boolean {
  if (!GRANTED_PERMISSIONS.includes(permission)) return false;
  return requestingUrlOrOrigin !== undefined && isTrustedUrl(requestingUrlOrOrigin, origins);
}
