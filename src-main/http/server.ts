/**
 * The embedded HTTP listener (Fastify): bound to 127.0.0.1 by default, JSON
 * bodies only, 64 KiB limit, lossless JSON parsing, one error mapping.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { BODY_LIMIT_BYTES, DEFAULT_BASE_PATH, DEFAULT_HOST, DEFAULT_PORT } from '../../src-shared/constants';
import { AppError, ErrorCode } from '../../src-shared/errors';
import { JsonSyntaxError, parseJsonLossless } from '../../src-shared/json/lossless-json';
import { lazyRequestLogger } from './request-logger';
import type { MerchantConsoleService } from '../service';
import { errorEnvelope } from './envelope';
import { installErrorHandling, MAX_PATH_PARAM_LENGTH, toAppError } from './errors';
import { createRateLimiter, DEFAULT_RATE_LIMITS, type RateLimitConfig } from './rate-limit';
import { registerMerchantRoute } from './merchant-route';
import { merchantRoutes } from './routes/merchant-routes';
import { registerRegionRoutes } from './routes/region-routes';
import { createConsoleHandlers, type ConsoleRuntimeInfo } from '../console-api/console-handlers';
import type { ListenerSettings } from '../../src-shared/schemas/console';
import { packageVersion } from '../version';
import { defaultConsoleDir, registerConsoleRoutes } from './console-routes';
import { registerChannelRoutes } from './routes/channel-routes';
import { registerCheckoutRoutes } from './routes/checkout-routes';
import { isIP } from 'node:net';
import { collectRouteDocs } from './openapi/route-doc';
import { registerReferenceRoutes } from './openapi/reference-routes';

export type LoggerOption = boolean | { level: string; stream?: { write(line: string): void } };

export interface ListenerOptions {
  host?: string;
  port?: number;
  /** Prefix of the merchant endpoints, default /addons/paychannel. */
  basePath?: string;
  /** Fastify logger: false (tests), or pino options (a `stream` lets tests read the lines). Request bodies are never logged. */
  logger?: LoggerOption;
  /** Public base URL for pay pages; default http://host:port as bound. */
  publicUrl?: string;
  /** The browser console (/console/, /console-api/; docs/console.md): on unless false. */
  console?: false | { dir?: string; version?: string };
  /** Per client address and per api_key limits; default DEFAULT_RATE_LIMITS, RATE_LIMITS_OFF to disable. */
  rateLimits?: RateLimitConfig;
  /**
   * Addresses/CIDRs of reverse proxies whose X-Forwarded-For (and -Host, -Proto) is believed; the client
   * address (per-address rate limit, logs) is then the one the proxy reports. Default: none, the TCP peer.
   */
  trustProxy?: readonly string[];
  /** Runs on the app before any route is added (tests check every response against the OpenAPI document here). */
  setup?: (app: FastifyInstance) => void;
}

/** `10.0.0.1,10.0.0.0/8,::1` → checked list for `trustProxy`; throws naming the bad entry. */
export function parseTrustProxy(text: string): string[] {
  const entries = text.split(',').map((e) => e.trim()).filter((e) => e !== '');
  if (entries.length === 0) throw new Error('trust proxy: give one or more IP addresses or CIDR ranges, comma-separated');
  for (const entry of entries) {
    const [address, prefix, extra] = entry.split('/');
    const family = isIP(address ?? '');
    const prefixOk = prefix === undefined || (/^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32));
    if (family === 0 || !prefixOk || extra !== undefined) throw new Error(`trust proxy: ${JSON.stringify(entry)} is not an IP address or CIDR range`);
  }
  return entries;
}

export function normaliseBasePath(basePath: string): string {
  const trimmed = basePath.trim().replace(/\/+$/, '');
  if (trimmed === '') return '';
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(trimmed)) throw new Error(`base path ${JSON.stringify(basePath)} must look like /segment/segment`);
  return trimmed;
}

/**
 * `--public-url`: where browsers and payers reach this listener (a reverse
 * proxy). pay_url and the console login URL start with it, so it must be an
 * absolute http(s) URL without credentials, query or fragment.
 */
export function normalisePublicUrl(publicUrl: string): string {
  let url: URL;
  try {
    url = new URL(publicUrl.trim());
  } catch {
    throw new Error(`public URL ${JSON.stringify(publicUrl)} must be an absolute http(s) URL such as https://pay.example.com`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`public URL ${JSON.stringify(publicUrl)} must be http or https`);
  if (url.username || url.password || url.search || url.hash || publicUrl.includes('?') || publicUrl.includes('#')) {
    throw new Error(`public URL ${JSON.stringify(publicUrl)} must have no user, password, query or fragment`);
  }
  return url.href.replace(/\/+$/, '');
}

export function buildHttpApp(service: MerchantConsoleService, options: ListenerOptions = {}, consoleRuntime?: ConsoleRuntimeInfo): FastifyInstance {
  const app = Fastify({
    bodyLimit: BODY_LIMIT_BYTES,
    // Forwarded headers only from the proxies named; anyone else could forge them.
    trustProxy: options.trustProxy && options.trustProxy.length > 0 ? [...options.trustProxy] : false,
    logger: withRedactedUrls(options.logger ?? false),
    // request.log made only when a request logs (at the default level, warn, most never do).
    ...(options.logger ? { childLoggerFactory: lazyRequestLogger } : {}),
    // Fastify's own drain answer is not the envelope; requests that arrive while closing get 5030 below.
    return503OnClosing: false,
    // find-my-way's compiled matcher instead of a tree walk per request: the same matching, a lookup of these
    // routes in about half the time (docs/benchmarks.md, "Evening on 2026-11-30").
    routerOptions: { compile: true, maxParamLength: MAX_PATH_PARAM_LENGTH },
    // Slow-loris and hung clients must not pin connections forever.
    requestTimeout: 30_000,
    connectionTimeout: 30_000,
    keepAliveTimeout: 5_000,
    forceCloseConnections: 'idle',
    // What the HTTP parser refuses before any route (a 20 KB query string, a
    // broken request line) still gets the envelope, then the socket closes.
    clientErrorHandler: writeClientError,
    // A malformed URL (`/channel/notify/%`) is refused by the router itself: same envelope.
    frameworkErrors: (error, _request, reply) => {
      const appError = toAppError(error);
      void (reply as unknown as FastifyReply).status(appError.httpStatus).send(errorEnvelope(appError));
    },
  });

  // Answers are written with JSON.stringify, not fast-json-stringify from the response schemas: in a
  // serving process its piecewise string (flattened again to be written) cost about 9 µs more per list
  // page (docs/benchmarks.md, "Answers with JSON.stringify, rows from raw arrays"). The shape comes from the typed views
  // (toOrderView and the rest), and every answer of a test listener is checked against the OpenAPI
  // document, extra members refused (test/support/openapi-conformance.ts): a view that gets its shape
  // wrong shows there instead of being stripped silently.
  app.setSerializerCompiler(() => serializeJson);

  // Every route from here on is recorded for the OpenAPI document ({base_path}/openapi.json).
  collectRouteDocs(app);
  options.setup?.(app);

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // The body is read as UTF-8: another declared charset would be misread, not converted. Two
    // charsets are refused whatever they say: another reader (a proxy, a log) may believe the other one.
    const charsets = charsetsOf(request.headers['content-type'] ?? '');
    if (charsets.length > 1) {
      done(new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, `Content-Type: charset must be given once, not ${charsets.length} times`), undefined);
      return;
    }
    const charset = charsets[0];
    if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
      done(new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, `Content-Type: charset must be utf-8, not ${charset.slice(0, 32)}`), undefined);
      return;
    }
    try {
      done(null, parseJsonLossless(body as string));
    } catch (err) {
      if (err instanceof JsonSyntaxError) done(new AppError(ErrorCode.MALFORMED_JSON, `body: malformed JSON (${err.message})`), undefined);
      else done(err as Error, undefined);
    }
  });
  installErrorHandling(app);

  // A request that still arrives on an open connection while the listener drains.
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  // First thing on every request of the listener, before the body is read: refused while closing, then
  // counted per client address, then a POST with nothing to parse refused. (A callback, not async: no promise
  // per request for checks that rarely fail; one hook for all three, as each kind of hook a request goes
  // through is a step of Fastify's more for every request.)
  const limits = options.rateLimits ?? DEFAULT_RATE_LIMITS;
  const byAddress = limits.perAddress ? createRateLimiter(limits.perAddress, 'client address') : undefined;
  app.addHook('onRequest', (request, _reply, done) => {
    if (closing) {
      done(new AppError(ErrorCode.UNAVAILABLE, 'service: shutting down; try again shortly'));
      return;
    }
    try {
      byAddress?.take(request.ip);
    } catch (err) {
      done(err as Error);
      return;
    }
    // A POST with neither a body nor a Content-Type would reach its route with no body (Fastify runs no parser
    // for it); it still needs the JSON content type. (Any other POST goes through the JSON parser, or is refused
    // as another media type; on a missing path the error handler answers 404 instead.)
    if (request.method === 'POST' && isBodylessWithoutType(request.headers)) {
      done(new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'Content-Type: must be application/json'));
      return;
    }
    done();
  });
  const byApiKey = limits.perApiKey ? createRateLimiter(limits.perApiKey, 'api_key') : undefined;

  const prefix = normaliseBasePath(options.basePath ?? DEFAULT_BASE_PATH);
  for (const route of merchantRoutes(service)) {
    registerMerchantRoute(app, service, prefix, route, byApiKey ? { checkApiKey: (apiKey) => byApiKey.take(apiKey), uncountApiKey: (apiKey) => byApiKey.giveBack(apiKey) } : {});
  }
  registerReferenceRoutes(app, prefix, { serverUrl: options.publicUrl ?? '/', version: packageVersion() });
  // Region endpoints sit at the host root, independent of the merchant base path.
  registerRegionRoutes(app, service.services.regions);
  if (options.console !== false) {
    const runtime = consoleRuntime ?? { version: options.console?.version ?? packageVersion(), listenerUrl: () => null };
    registerConsoleRoutes(app, service, {
      handlers: createConsoleHandlers(service, runtime),
      consoleDir: options.console?.dir ?? defaultConsoleDir(),
      bindHost: options.host ?? DEFAULT_HOST,
      publicUrl: options.publicUrl,
    });
  }
  // Payment channels: notifications in, and the sandbox channel's hosted checkout (host root, like pay_url).
  registerChannelRoutes(app, service);
  registerCheckoutRoutes(app, service);
  return app;
}

/** What Fastify takes for a request without a body to parse: no Content-Type, no Transfer-Encoding, no or a zero Content-Length. */
function isBodylessWithoutType(headers: FastifyRequest['headers']): boolean {
  if (headers['content-type'] !== undefined || headers['transfer-encoding'] !== undefined) return false;
  const length = headers['content-length'];
  return length === undefined || length === '0';
}

/**
 * Request log lines keep Fastify's fields but not the value of a `token`
 * query parameter: the console login URL carries its single-use token there,
 * and a HEAD or a refused GET leaves that token valid.
 */
function withRedactedUrls(logger: LoggerOption): false | { level?: string; stream?: { write(line: string): void }; serializers: Record<string, (value: FastifyRequest) => unknown> } {
  if (logger === false) return false;
  return {
    ...(logger === true ? {} : logger),
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: redactUrl(request.url),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
  };
}

/**
 * A request URL fit for the log: bearer credentials in it are replaced — a
 * console login token (`?token=`) and a checkout page's pay token
 * (`/pay/<token>…`, which lets anyone press Pay or Fail on a sandbox order).
 * Names are compared as the router reads them, percent-decoded
 * (`?%74oken=`, `/%70ay/`), else an encoded spelling would reach the route and
 * leave the token in clear in the log. Case is ignored: redacting too much is harmless.
 */
export function redactUrl(url: string): string {
  // find-my-way ends the path at the first ? or #; the rest is the query string (fast-querystring, split on &).
  const cut = url.slice(1).search(/[?#]/) + 1;
  const pathPart = cut === 0 ? url : url.slice(0, cut);
  const segments = pathPart.split('/');
  if (segments.length > 2 && segments[0] === '' && percentDecoded(segments[1]!).toLowerCase() === 'pay') segments[2] = '[redacted]';
  if (cut === 0) return segments.join('/');
  const query = url
    .slice(cut + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq === -1 ? pair : pair.slice(0, eq);
      return percentDecoded(name.replaceAll('+', ' ')).toLowerCase() === 'token' && eq !== -1 ? `${name}=[redacted]` : pair;
    });
  return `${segments.join('/')}${url[cut]}${query.join('&')}`;
}

/** Every well-formed %XX escape decoded, as one byte each (enough to spell an ASCII name); bad escapes kept. */
function percentDecoded(text: string): string {
  return text.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

const serializeJson = (data: unknown): string => JSON.stringify(data);

const CHARSET_PARAMETER = /;\s*charset\s*=\s*"?([^";\s]*)/gi;
const NO_CHARSETS: readonly string[] = [];
/** The charset parameters of a Content-Type, in order (exec on one shared pattern: matchAll compiled a copy of it per request). */
function charsetsOf(contentType: string): readonly string[] {
  // No parameters at all (the usual `application/json`): nothing to match, no pattern run.
  if (!contentType.includes(';')) return NO_CHARSETS;
  const found: string[] = [];
  CHARSET_PARAMETER.lastIndex = 0;
  for (let m = CHARSET_PARAMETER.exec(contentType); m !== null; m = CHARSET_PARAMETER.exec(contentType)) found.push(m[1]!);
  return found;
}

/** How long a refused client may go on sending after its answer before the connection is cut. */
const REFUSED_LINGER_MS = 2_000;

function writeClientError(err: NodeJS.ErrnoException, socket: import('node:stream').Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // The parser fails again on every later chunk of a refused request: answer
  // once (a second end() fails and destroys the socket with its input unread).
  if (socket.writableEnded) return;
  // A client too slow to send its request within requestTimeout gets no answer.
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    socket.destroy();
    return;
  }
  const appError =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new AppError(ErrorCode.HEADERS_TOO_LARGE, 'request: the request line and headers are larger than 16 KiB')
      : new AppError(ErrorCode.MALFORMED_REQUEST, 'request: not a well-formed HTTP request');
  const body = JSON.stringify(errorEnvelope(appError));
  const reason = appError.httpStatus === 431 ? 'Request Header Fields Too Large' : 'Bad Request';
  socket.end(
    `HTTP/1.1 ${appError.httpStatus} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  // The rest of the request is read and dropped until the client closes:
  // closing with input unread sends a reset, which can cost the client the
  // answer. A client that keeps sending is cut off after a while.
  const linger = setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
  socket.once('close', () => clearTimeout(linger));
}

export interface RunningListener {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

/** Starts listening; `url` is where it can be reached (with the real port when 0 was asked). */
export async function startListener(service: MerchantConsoleService, options: ListenerOptions = {}): Promise<RunningListener> {
  // The console reports where this listener answers once it knows its port.
  let listening: { url: string; settings: ListenerSettings } | null = null;
  const runtime: ConsoleRuntimeInfo = {
    version: (options.console !== false && options.console?.version) || packageVersion(),
    listenerUrl: () => listening?.url ?? null,
    listenerInUse: () => listening?.settings ?? null,
  };
  const app = buildHttpApp(service, options, runtime);
  const host = options.host ?? DEFAULT_HOST;
  await app.listen({ host, port: options.port ?? DEFAULT_PORT });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? DEFAULT_PORT);
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  const url = `http://${urlHost}:${port}`;
  listening = { url, settings: { enabled: true, host, port, base_path: normaliseBasePath(options.basePath ?? DEFAULT_BASE_PATH) } };
  service.setPublicUrl(options.publicUrl ?? url);
  // Callbacks never go to this listener: its bound address (a wildcard stands for every local one) and its public URL.
  service.setOwnListeners([`http://${host.includes(':') ? `[${host}]` : host}:${port}`, ...(options.publicUrl ? [options.publicUrl] : [])]);
  return {
    app,
    url,
    close: async () => {
      await app.close();
    },
  };
}
