/**
 * The browser transport of the console on the embedded listener
 * (docs/console.md):
 *   GET  /console/…              the built console (static): the sign-in page until a session exists
 *   POST /console/sign-in, /console/sign-in/totp, /console/setup, /console/password, /console/logout
 *                                signing in and out (src-shared/console-api/sign-in-contract.ts)
 *   POST /console-api/<method>   the console API contract, for the session's account
 * Every console request must name a Host this listener answers to; every
 * POST must be same-origin (Origin = this host, JSON content type) on top of
 * the SameSite=Strict cookie. Sessions and their accounts are read from the
 * store on every request, so a change by the CLI or another instance (an
 * account disabled, its sessions ended) applies at once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ErrorCode, httpStatusOf, SUCCESS_CODE, type ErrorCode as ErrorCodeType } from '../../src-shared/errors';
import { CONSOLE_HTTP_PREFIX } from '../../src-shared/console-api/methods';
import { signInContract, type SignInCall, type SignInResponse } from '../../src-shared/console-api/sign-in-contract';
import { parseOrThrow } from '../../src-shared/validation/parse';
import type { z } from 'zod';
import { hashPassword } from '../auth/password-hash';
import type { AccountCaller } from '../console-api/caller';
import { dispatchConsoleCall, type ConsoleHandlers } from '../console-api/console-handlers';
import type { MerchantConsoleService } from '../service';
import { CONSOLE_SESSION_MAX_AGE, sessionExpired, type ClientInfo, type ConsoleSession } from '../services/console-auth-service';
import { errorEnvelope, successEnvelope } from './envelope';
import { pages } from './console-pages';

export const CONSOLE_PATH = '/console/';
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

/** Who sends a console request, as the audit trail and sign-in throttling see it (the proxy's client address with --trust-proxy). */
function clientOf(request: FastifyRequest): ClientInfo {
  const ua = request.headers['user-agent'];
  return { address: request.ip ?? null, userAgent: typeof ua === 'string' ? ua.slice(0, 256) : null };
}

function callerOf(session: ConsoleSession, client: ClientInfo): AccountCaller {
  return {
    kind: 'account',
    accountId: session.account.id,
    login: session.account.login,
    role: session.account.role,
    merchantIds: session.merchantIds,
    sessionId: session.id,
    stage: session.stage,
    address: client.address,
    userAgent: client.userAgent,
  };
}

export function registerConsoleRoutes(app: FastifyInstance, service: MerchantConsoleService, options: ConsoleRoutesOptions): void {
  const { consoleAuth, accounts } = service.services;
  const { store } = service;
  /**
   * The session a cookie names, with its account (read afresh every time, so
   * a change from the CLI or another instance applies at once). Moving
   * last_seen_at on, or removing an expired session, is a relaxed write:
   * losing it to a power cut only shortens or lengthens an idle timeout.
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
  const setSessionCookie = (request: FastifyRequest, reply: FastifyReply, credential: string) =>
    reply.setCookie(cookieName(request), credential, { httpOnly: true, sameSite: 'strict', path: '/', secure: secureCookie, maxAge: CONSOLE_SESSION_MAX_AGE });

  /** Registers one call of the sign-in contract: same-origin JSON in, its schema checked, the envelope out. */
  function signInRoute<C extends SignInCall>(
    scope: FastifyInstance,
    call: C,
    handler: (input: z.output<(typeof signInContract)[C]['request']>, request: FastifyRequest, reply: FastifyReply) => Promise<SignInResponse<C>>,
  ): void {
    const spec = signInContract[call];
    scope.post(spec.path, async (request, reply) => {
      checkSameOriginPost(request, publicOrigin);
      const input = parseOrThrow(spec.request, request.body ?? {}, 'request') as z.output<(typeof signInContract)[C]['request']>;
      return reply.send(successEnvelope(await handler(input, request, reply)));
    });
  }

  app.register(async (scope) => {
    await scope.register(fastifyCookie, { hook: 'onRequest' });

    scope.addHook('onRequest', async (request, reply) => {
      reply.headers(SECURITY_HEADERS);
      // Console pages and API answers are per-session: never stored by caches (assets override below).
      reply.header('cache-control', 'no-store');
      if (!hostCheck(request)) {
        if (request.url.startsWith(CONSOLE_HTTP_PREFIX) || request.method === 'POST') throw new AppError(ErrorCode.FOREIGN_ORIGIN, 'Host: not an address of this listener');
        return sendPage(reply, 403, pages.hostRefused());
      }
      return undefined;
    });

    // ---------------------------------------------------------------- the API
    scope.register(async (api) => {
      api.post(`${CONSOLE_HTTP_PREFIX}:method`, async (request, reply) => {
        checkSameOriginPost(request, publicOrigin);
        const client = clientOf(request);
        let caller: AccountCaller;
        try {
          caller = callerOf(await verifySession(sessionOf(request)), client);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          return reply.status(err.httpStatus).send(errorEnvelope(err));
        }
        const { method } = request.params as { method: string };
        const envelope = await dispatchConsoleCall(options.handlers, method, request.body, caller, {
          error: ({ err }) => request.log.error({ err, method }, 'console call failed'),
        });
        const status = envelope.code === SUCCESS_CODE ? 200 : httpStatusOf(envelope.code as ErrorCodeType);
        return reply.status(status).send(envelope);
      });
    });

    // ---------------------------------------------------------------- sign-in, setup, password links, sign-out
    // Password hashing (~0.1 s on the thread pool) runs between units of work, never inside one.
    signInRoute(scope, 'signIn', async (input, request, reply) => {
      const client = clientOf(request);
      const begun = await store.read((tx) => consoleAuth.beginSignIn(tx, input.login, client));
      const passwordOk = begun.wait === 0 && (await consoleAuth.checkPassword(begun.account, input.password));
      const outcome = await store.write((tx) => consoleAuth.finishPasswordSignIn(tx, input.login, begun.account?.id, passwordOk, client));
      if (!outcome.ok) throw outcome.error;
      setSessionCookie(request, reply, outcome.session.credential);
      return { stage: outcome.session.stage };
    });

    signInRoute(scope, 'signInTotp', async (input, request) => {
      const outcome = await store.write((tx) => consoleAuth.finishTotpSignIn(tx, sessionOf(request), input.code, clientOf(request)));
      if (!outcome.ok) throw outcome.error;
      return { stage: outcome.session.stage };
    });

    signInRoute(scope, 'setup', async (input, request, reply) => {
      const client = clientOf(request);
      const hash = await hashPassword(input.password);
      const session = await store.write(async (tx) => {
        await consoleAuth.takeSetupLink(tx, input.token);
        const actor = { kind: 'account' as const, login: input.login, role: 'owner', address: client.address, userAgent: client.userAgent };
        const view = await accounts.create(tx, actor, { login: input.login, display_name: input.display_name, role: 'owner' }, hash);
        return consoleAuth.openSessionFor(tx, await accounts.require(tx, view.id), client);
      });
      setSessionCookie(request, reply, session.credential);
      return { stage: session.stage };
    });

    signInRoute(scope, 'setPassword', async (input, request) => {
      const client = clientOf(request);
      const hash = await hashPassword(input.password);
      await store.write(async (tx) => {
        const accountId = await consoleAuth.takePasswordLink(tx, input.token);
        const account = await accounts.require(tx, accountId);
        const actor = { kind: 'account' as const, accountId, login: account.login, role: account.role, address: client.address, userAgent: client.userAgent };
        await accounts.setPassword(tx, actor, accountId, hash);
      });
      return { password_set: true as const };
    });

    signInRoute(scope, 'signOut', async (_input, request, reply) => {
      const credential = sessionOf(request);
      await store.write((tx) => consoleAuth.endSession(tx, credential, clientOf(request)));
      reply.clearCookie(cookieName(request), { path: '/', httpOnly: true, sameSite: 'strict', secure: secureCookie });
      return null;
    });

    // ---------------------------------------------------------------- the built console
    // The bundle holds no data and no secrets: it is served to anyone, and shows the sign-in page
    // until a session exists; every call it makes is checked (/console-api above).
    scope.register(async (site) => {
      site.addHook('onRequest', async (_request, reply) => {
        if (!consoleBundleBuilt(options.consoleDir)) return sendPage(reply, 503, pages.notBuilt());
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
