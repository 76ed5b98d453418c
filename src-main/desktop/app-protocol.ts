/**
 * The app:// protocol: production pages come from out/renderer through this
 * handler instead of file:// (file:// pages share one origin with every file
 * on disk and get extra privileges). Only GET/HEAD of files inside the
 * renderer folder; anything resolving outside it is refused.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { protocol } from 'electron';
import { APP_HOST, APP_SCHEME } from './content-security';

/** Must run before app 'ready': a standard, secure scheme gets an origin, storage (IndexedDB) and fetch. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    {
      scheme: APP_SCHEME,
      privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true },
    },
  ]);
}

const MIME_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  // Module scripts are refused unless served with a JavaScript MIME type.
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.wasm': 'application/wasm',
};

export function mimeTypeOf(file: string): string {
  return MIME_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * The file a URL path names inside `root`, or null when it would leave
 * `root` (../, encoded separators, absolute paths, NUL) or cannot be decoded.
 * A path ending in / names its index.html.
 */
export function resolveInsideRoot(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  // Refuse, rather than clamp, anything that tries to walk up (also ..\ for Windows).
  if (decoded.split(/[\\/]/).includes('..')) return null;
  if (decoded === '' || decoded.endsWith('/')) decoded += 'index.html';
  const base = path.resolve(root);
  const file = path.resolve(base, '.' + (decoded.startsWith('/') ? decoded : '/' + decoded));
  const relative = path.relative(base, file);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return null;
  return file;
}

export interface AppProtocolOptions {
  /** out/renderer (inside app.asar when packaged: Electron's fs reads it). */
  rootDir: string;
  /** Sent with every response; it governs the documents. */
  contentSecurityPolicy: string;
}

function textResponse(status: number, text: string, csp: string): Response {
  return new Response(text, {
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'content-security-policy': csp, 'x-content-type-options': 'nosniff' },
  });
}

/** The protocol.handle handler, kept free of Electron so tests drive it with plain Requests. */
export function createAppRequestHandler(options: AppProtocolOptions): (request: Request) => Promise<Response> {
  const csp = options.contentSecurityPolicy;
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return textResponse(405, 'method not allowed', csp);
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return textResponse(400, 'bad URL', csp);
    }
    if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return textResponse(404, 'not found', csp);
    const file = resolveInsideRoot(options.rootDir, url.pathname);
    if (!file) return textResponse(403, 'forbidden', csp);
    let body: Buffer;
    try {
      body = await fs.readFile(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') return textResponse(404, 'not found', csp);
      return textResponse(500, 'cannot read file', csp);
    }
    return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), {
      status: 200,
      headers: {
        'content-type': mimeTypeOf(file),
        'content-length': String(body.length),
        'content-security-policy': csp,
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-cache',
      },
    });
  };
}

/** After 'ready': serve app://console/* from the renderer folder. */
export function handleAppProtocol(options: AppProtocolOptions): void {
  protocol.handle(APP_SCHEME, createAppRequestHandler(options));
}
