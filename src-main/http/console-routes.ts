/**
 * The browser transport of the console on the embedded listener
 * (docs/console.md):
 *   GET  /console/login?token=…  exchanges a login token for a session cookie
 *   GET  /console/…              the built console (static), session required
 *   POST /console/logout         ends the session
 *   POST /console-api/<method>   the console API contract, session required
 * Every console request must name a Host this listener answers to; every
 * POST must be same-origin (Origin = this host, JSON content type) on top of
 * the SameSite=Strict cookie. Sessions are read from the store on every
 * request, so `console-token reset` from another process applies at once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ErrorCode, httpStatusOf, SUCCESS_CODE, type ErrorCode as ErrorCodeType } from '../../src-shared/errors';
import { CONSOLE_HTTP_PREFIX, CONSOLE_LOGOUT_PATH } from '../../src-shared/console-api/methods';
import { dispatchConsoleCall, type ConsoleHandlers } from '../console-api/console-handlers';
import type { MerchantConsoleService } from '../service';
import { CONSOLE_SESSION_MAX_AGE, sessionExpired, type ConsoleSession } from '../services/console-auth-service';
import { successEnvelope } from './envelope';
import { pages } from './console-pages';

export const CONSOLE_PATH = '/console/';
export const CONSOLE_LOGIN_PATH = '/console/login';
// The renderer's sign-out posts to it, so the path lives in src-shared.
export { CONSOLE_LOGOUT_PATH };
/** Env override of where the built console is. */
export const CONSOLE_DIR_ENV = 'MERCHANT_CONSOLE_UI_DIR';

/** The renderer's browser build: `<repo>/out/console` (docs/console.md), or $MERCHANT_CONSOLE_UI_DIR. */
export function defaultConsoleDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env[CONSOLE_DIR_ENV];
  if (fromEnv) return path.resolve(fromEnv);
  return fileURLToPath(new URL('../../out/console', import.meta.url));
}

export function consoleBundleBuilt(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'index.html'));
}

/**
 * What the console pages may load: everything from this origin only, no
 * inline or eval'd script. Inline styles are allowed because Naive UI
 * injects its styles at runtime; images may be data:/blob: (QR codes).
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

export const IMMUTABLE_CACHE = 'private, max-age=31536000, immutable';

/** The port browsers reach a public URL on (443/80 when it names none), or undefined without one. */
export function publicPortOf(publicUrl: string | undefined): number | undefined {
  if (!publicUrl) return undefined;
  try {
    const u = new URL(publicUrl);
    return u.port !== '' ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
  } catch {
    return undefined;
  }
}

/**
 * Cookie name per port the browser sees: two listeners on one host (cookies
 * ignore ports) keep their own session; behind a proxy (--public-url) it is
 * the public port, the same on every instance.
 */
export function sessionCookieName(port: number): string {
  return `mc_console_${port}`;
}

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

export interface HostCheck {
  /** The host the listener was bound to (127.0.0.1 by default). */
  bindHost: string;
  /** The port the request arrived on. */
  localPort: number;
  publicUrl?: string | undefined;
}

/**
 * DNS-rebinding guard: the Host header must name this listener — a loopback
 * name or the bound address, on the port the request came in on — or the
 * configured public URL's host. A listener bound to every interface cannot
 * know its names, so it accepts any host there (the SameSite=Strict cookie
 * and the Origin check still apply).
 */
export function hostAllowed(hostHeader: string | undefined, check: HostCheck): boolean {
  if (!hostHeader || hostHeader.length > 255) return false;
  let url: URL;
  try {
    url = new URL(`http://${hostHeader}`);
  } catch {
    return false;
  }
  if (url.host !== hostHeader.toLowerCase() || url.username || url.password || url.pathname !== '/') return false;
  if (check.publicUrl) {
    try {
      if (new URL(check.publicUrl).host === url.host) return true;
    } catch {
      // an unparsable public URL names nothing
    }
  }
  const port = url.port === '' ? 80 : Number(url.port);
  if (port !== check.localPort) return false;
  if (isWildcard(check.bindHost)) return true;
  const bound = check.bindHost.includes(':') && !check.bindHost.startsWith('[') ? `[${check.bindHost}]` : check.bindHost;
  return LOOPBACK_NAMES.has(url.hostname) || url.hostname === bound.toLowerCase();
}

/**
 * CSRF guard for console POSTs, on top of the SameSite=Strict cookie: the
 * browser's Origin must be this very host — or the public URL's origin, for a
 * reverse proxy that passes its own Host upstream —, a fetch metadata header
 * (when sent) must say same-origin, and the body must be JSON (which a
 * cross-site form or a "simple" request cannot send).
 */
export function checkSameOriginPost(request: FastifyRequest, publicOrigin?: string): void {
  const host = request.headers.host;
  const origin = request.headers.origin?.toLowerCase();
  const sameHost = !!host && (origin === `http://${host.toLowerCase()}` || origin === `https://${host.toLowerCase()}`);
  if (!origin || (!sameHost && origin !== publicOrigin)) {
    throw new AppError(ErrorCode.FOREIGN_ORIGIN, 'Origin: console calls must come from the console page itself (same origin)');
  }
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') {
    throw new AppError(ErrorCode.FOREIGN_ORIGIN, `Sec-Fetch-Site: ${String(site).slice(0, 32)} requests are refused; same-origin only`);
  }
  const type = request.headers['content-type'];
  if (!type || !/^application\/json\s*(;|$)/i.test(type)) {
    throw new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'Content-Type: must be application/json');
  }
}

function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).origin.toLowerCase();
  } catch {
    return undefined;
  }
}

export interface ConsoleRoutesOptions {
  handlers: ConsoleHandlers;
  /** The built console; served when it has an index.html, else a "build it" page. */
  consoleDir: string;
  bindHost: string;
  publicUrl?: string | undefined;
}

function localPortOf(request: FastifyRequest): number {
  return request.socket.localPort ?? 0;
}

function sendPage(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply.status(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(html);
}

export function registerConsoleRoutes(app: FastifyInstance, service: MerchantConsoleService, options: ConsoleRoutesOptions): void {
  const { consoleAuth } = service.services;
  const { store } = service;
  /**
   * The session a cookie names (read afresh every time, so a reset from the
   * CLI or another instance applies at once). Moving last_seen_at on, or
   * removing an expired session, is a relaxed write: losing it to a power
   * cut only shortens or lengthens an idle timeout.
   */
  async function verifySession(credential: string | undefined): Promise<ConsoleSession> {
    const session = await store.read((tx) => consoleAuth.checkSession(tx, credential));
    if (session.touch !== 'none') await store.write((tx) => consoleAuth.touchSession(tx, session), { durable: false });
    if (session.touch === 'expired') throw sessionExpired();
    return session;
  }
  const secureCookie = options.publicUrl?.startsWith('https:') === true;
  const publicOrigin = originOf(options.publicUrl);
  const hostCheck = (request: FastifyRequest) =>
    hostAllowed(request.headers.host, { bindHost: options.bindHost, localPort: localPortOf(request), publicUrl: options.publicUrl });
  // Behind a proxy the browser sees the public URL's port, and every instance must name the cookie alike.
  const publicPort = publicPortOf(options.publicUrl);
  const cookieName = (request: FastifyRequest) => sessionCookieName(publicPort ?? localPortOf(request));
  const sessionOf = (request: FastifyRequest) => request.cookies[cookieName(request)];

  app.register(async (scope) => {
    await scope.register(fastifyCookie, { hook: 'onRequest' });

    scope.addHook('onRequest', async (request, reply) => {
      reply.headers(SECURITY_HEADERS);
      // Console pages and API answers are per-session: never stored by caches (assets override below).
      reply.header('cache-control', 'no-store');
      if (!hostCheck(request)) {
        if (request.url.startsWith(CONSOLE_HTTP_PREFIX)) throw new AppError(ErrorCode.FOREIGN_ORIGIN, 'Host: not an address of this listener');
        return sendPage(reply, 403, pages.hostRefused());
      }
      return undefined;
    });

    // ---------------------------------------------------------------- the API
    scope.register(async (api) => {
      api.addHook('onRequest', async (request) => {
        checkSameOriginPost(request, publicOrigin);
        await verifySession(sessionOf(request));
      });
      api.post(`${CONSOLE_HTTP_PREFIX}:method`, async (request, reply) => {
        const { method } = request.params as { method: string };
        const envelope = await dispatchConsoleCall(options.handlers, method, request.body, {
          error: ({ err }) => request.log.error({ err, method }, 'console call failed'),
        });
        const status = envelope.code === SUCCESS_CODE ? 200 : httpStatusOf(envelope.code as ErrorCodeType);
        return reply.status(status).send(envelope);
      });
    });

    // ---------------------------------------------------------------- login / logout
    // GET only: Fastify would answer HEAD with this handler too, and a HEAD (a link checker, a
    // preview fetcher, curl -I) would spend the single-use token and open a session nobody holds.
    scope.get(CONSOLE_LOGIN_PATH, { exposeHeadRoute: false }, async (request, reply) => {
      const token = (request.query as Record<string, unknown>).token;
      if (typeof token !== 'string' || token === '') {
        try {
          await verifySession(sessionOf(request));
          return reply.redirect('./', 303);
        } catch {
          return sendPage(reply, 401, pages.signInFirst());
        }
      }
      let session;
      try {
        session = await store.write((tx) => consoleAuth.exchangeLoginToken(tx, token));
      } catch (err) {
        if (err instanceof AppError) return sendPage(reply, 401, pages.loginFailed());
        throw err;
      }
      reply.setCookie(cookieName(request), session.credential, {
        httpOnly: true,
        sameSite: 'strict',
        path: '/',
        secure: secureCookie,
        maxAge: CONSOLE_SESSION_MAX_AGE,
      });
      // A page, not a redirect: navigating from here is same-site, so the
      // Strict cookie goes along even when the link was opened from another site.
      return sendPage(reply, 200, pages.signedIn());
    });

    scope.post(CONSOLE_LOGOUT_PATH, async (request, reply) => {
      checkSameOriginPost(request, publicOrigin);
      const credential = sessionOf(request);
      await store.write((tx) => consoleAuth.endSession(tx, credential));
      reply.clearCookie(cookieName(request), { path: '/', httpOnly: true, sameSite: 'strict', secure: secureCookie });
      return reply.send(successEnvelope(null, 'signed out'));
    });

    // ---------------------------------------------------------------- the built console
    scope.register(async (site) => {
      site.addHook('onRequest', async (request, reply) => {
        if (!consoleBundleBuilt(options.consoleDir)) return sendPage(reply, 503, pages.notBuilt());
        try {
          await verifySession(sessionOf(request));
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          const wantsPage = request.url === '/console' || request.url.startsWith('/console/?') || request.url === CONSOLE_PATH || /\.html?(\?|$)/.test(request.url);
          if (wantsPage) return sendPage(reply, 401, pages.signInFirst());
          return reply.status(401).type('text/plain; charset=utf-8').send('sign in to the console first');
        }
        return undefined;
      });
      // What the static layer refuses is the client's doing, not a server error: a path outside the
      // build or a dotfile is simply not there (the listener's 404, nothing logged); a range or a
      // precondition that does not hold gets its own status. Anything else goes on to the listener's handler.
      site.setErrorHandler(async (err, _request, reply) => {
        const status = staticRefusalStatus(err);
        if (status === undefined) throw err;
        if (status === 412 || status === 416) return reply.status(status).type('text/plain; charset=utf-8').send(status === 412 ? 'precondition failed' : 'range not satisfiable');
        return reply.callNotFound();
      });
      await site.register(fastifyStatic, {
        root: options.consoleDir,
        prefix: '/console',
        redirect: true,
        wildcard: true,
        index: ['index.html'],
        dotfiles: 'deny',
        cacheControl: false,
        decorateReply: false,
        suppressWarning: true,
        // Hashed assets never change; everything else is checked every time.
        setHeaders(res, filePath) {
          const rel = path.relative(options.consoleDir, filePath).split(path.sep);
          res.header('cache-control', rel[0] === 'assets' && rel.length > 1 ? IMMUTABLE_CACHE : path.basename(filePath) === 'index.html' ? 'no-store' : 'no-cache');
        },
      });
    });
  });
}

/**
 * The HTTP status of a refusal by @fastify/static or the `send` module under it
 * (a traversal, a dotfile, a malformed path, an unsatisfiable range), else undefined.
 */
function staticRefusalStatus(err: unknown): number | undefined {
  const e = err as { code?: unknown; statusCode?: unknown; expose?: unknown };
  if (e.code === 'FST_STATIC_FORBIDDEN_PATH') return 403;
  // `send` refuses with http-errors, which mark client errors `expose`.
  if (e.expose === true && typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return e.statusCode;
  return undefined;
}

/** The URL that signs a browser in: serve prints it, `console-token new|reset` too. */
export function consoleLoginUrl(listenerUrl: string, credential: string): string {
  return `${listenerUrl.replace(/\/+$/, '')}${CONSOLE_LOGIN_PATH}?token=${encodeURIComponent(credential)}`;
}
