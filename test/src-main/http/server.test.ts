import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src-shared/errors';
import { RATE_LIMITS_OFF } from '../../../src-main/http/rate-limit';
import { buildHttpApp, redactUrl } from '../../../src-main/http/server';
import type { BuyOrderView } from '../../../src-shared/schemas/merchant-api';
import { rawRequest } from '../../support/http-raw';
import { clientFor, seedMerchant, testListener, testService } from '../../support/service-harness';
import { captureLog } from '../../support/log-capture';
import { checkAnswersAgainstOpenApi, responseChecker } from '../../support/openapi-conformance';
import { openApiDocumentOf } from '../../../src-main/http/openapi/reference-routes';

/** The responses one connection received, in order: status and body of each. */
function splitResponses(raw: string): { status: number; body: string }[] {
  const out: { status: number; body: string }[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const head = /^HTTP\/1\.1 (\d{3})[^\r]*\r\n([\s\S]*?)\r\n\r\n/.exec(rest);
    if (!head) throw new Error(`not an HTTP response: ${rest.slice(0, 80)}`);
    const length = Number(/content-length: *(\d+)/i.exec(head[2]!)?.[1] ?? 0);
    const start = head[0].length;
    out.push({ status: Number(head[1]), body: rest.slice(start, start + length) });
    rest = rest.slice(start + length);
  }
  return out;
}

describe('answers', () => {
  it('are written as the handler made them, and the conformance check of every test answer refuses a member the document lacks', async () => {
    const service = await testService();
    const app = buildHttpApp(service, { console: false, rateLimits: RATE_LIMITS_OFF });
    // A response schema is documentation, not a filter: a member it lacks is sent, not silently dropped.
    app.get('/test/view', { schema: { response: { 200: { type: 'object', properties: { a: { type: 'integer' } } } } } }, async () => ({ a: 1, extra: 'x' }));
    const view = await app.inject({ method: 'GET', url: '/test/view' });
    expect(view.body).toBe('{"a":1,"extra":"x"}');

    // Which is what lets the check every test listener runs (service-harness) see a view that got its shape wrong.
    const check = responseChecker(openApiDocumentOf(app));
    const page = { code: 1, msg: 'success', data: { list: [], total: 0, page: 1, limit: 20 } };
    const sent = (body: unknown) => ({
      method: 'POST',
      routeUrl: '/addons/paychannel/merchant/orderQueryList',
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify(body),
    });
    expect(check(sent(page))).toBeUndefined();
    expect(check(sent({ ...page, data: { ...page.data, merchant_id: 7 } }))).toMatch(/must NOT have additional properties.*merchant_id/);
    await app.close();
  });
});

describe('a path parameter longer than the router takes', () => {
  it('is a 404 envelope naming the url, not a server error', async () => {
    const service = await testService();
    const listener = await testListener(service);
    const long = 'A'.repeat(101);
    for (const [method, path] of [
      ['GET', `/pay/${long}`],
      ['POST', `/pay/${long}/pay`],
      ['POST', `/channel/notify/${'1'.repeat(101)}`],
    ] as const) {
      const res = await fetch(`${listener.url}${path}`, { method, headers: { 'content-type': 'application/json' }, ...(method === 'POST' ? { body: '{}' } : {}) });
      expect({ path, status: res.status, body: await res.json() }).toEqual({
        path,
        status: 404,
        body: { code: ErrorCode.NOT_FOUND, msg: 'url: a path parameter is longer than 100 characters; no such endpoint', data: null },
      });
    }
    // At the limit the route still answers (the checkout's own page for an unknown token).
    const atLimit = await fetch(`${listener.url}/pay/${'A'.repeat(100)}`);
    expect(atLimit.status).toBe(404);
    expect(atLimit.headers.get('content-type')).toMatch(/^text\/html/);
  });
});

describe('listener shutdown', () => {
  it('answers a request that arrives while it drains with the envelope: 503, code 5030', async () => {
    const service = await testService();
    const app = buildHttpApp(service, { console: false, rateLimits: RATE_LIMITS_OFF, setup: checkAnswersAgainstOpenApi });
    let routed!: () => void;
    const firstRouted = new Promise<void>((resolve) => (routed = resolve));
    app.post('/test/in-flight', { onRequest: (_request, _reply, done) => (routed(), done()) }, async () => ({ ok: true }));
    let draining!: () => void;
    const closeStarted = new Promise<void>((resolve) => (draining = resolve));
    app.addHook('preClose', (done) => (draining(), done()));
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as net.AddressInfo;

    const socket = net.connect(port, '127.0.0.1');
    let raw = '';
    socket.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    const socketClosed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    // A request whose body is still on its way when the shutdown starts keeps the connection busy…
    socket.write(`POST /test/in-flight HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n`);
    await firstRouted;
    const closed = app.close();
    await closeStarted;
    // …so a second request can still arrive on it after the drain began.
    socket.write(`{}GET /addons/paychannel/channel/alpha/provinceList HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    await socketClosed;
    await closed;

    const [first, second] = splitResponses(raw);
    expect(first).toMatchObject({ status: 200 });
    expect(second!.status).toBe(503);
    expect(JSON.parse(second!.body)).toEqual({ code: ErrorCode.UNAVAILABLE, msg: expect.stringMatching(/^service: /), data: null });
  });
});

describe('a client that gives up mid-request', () => {
  it('is not a server error: no error-level log line, no stack', async () => {
    const log = captureLog('debug');
    const listener = await testListener(await testService(), { console: false, logger: log.logger });
    const { port } = new URL(listener.url);
    for (const path of ['/addons/paychannel/merchant/createOrder', '/channel/notify/1', '/pay/AAAAAAAAbbbbbbbbCCCCCCCCdddddddd/pay']) {
      const socket = net.connect(Number(port), '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      const type = path.startsWith('/pay/') ? 'application/x-www-form-urlencoded' : 'application/json';
      // Headers promise 1,000 bytes; 10 arrive, then the client hangs up.
      socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: ${type}\r\nContent-Length: 1000\r\n\r\n{"a":"bcd"`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.destroy();
    }
    // The service notices the hang-up asynchronously.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(log.errors()).toEqual([]);
    expect(JSON.stringify(log.lines())).not.toContain('"stack"');
  });
});

describe('a request the parser refuses', () => {
  it('gets one 431 answer and a clean close while the client is still sending, never a reset', async () => {
    const service = await testService();
    const app = buildHttpApp(service, { console: false, rateLimits: RATE_LIMITS_OFF, setup: checkAnswersAgainstOpenApi });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as net.AddressInfo;
    const serverSockets: Promise<boolean>[] = [];
    app.server.on('connection', (s: net.Socket) => serverSockets.push(new Promise((resolve) => s.on('close', resolve))));

    // Far over the 16 KiB limit: the parser fails on the first chunk and
    // again on each later one, while the rest is still arriving.
    const socket = net.connect(port, '127.0.0.1');
    let raw = '';
    socket.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    const outcome = new Promise<string>((resolve) => {
      socket.on('error', (err: NodeJS.ErrnoException) => resolve(`error ${err.code}`));
      socket.on('end', () => {
        socket.end();
        resolve('end');
      });
    });
    socket.write(`GET /addons/paychannel/channel/alpha/provinceList?x=${'a'.repeat(500_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);

    expect(await outcome).toBe('end');
    const serverHadError = await serverSockets[0];
    await app.close();
    const responses = splitResponses(raw);
    expect(responses.map((r) => r.status)).toEqual([431]);
    expect(JSON.parse(responses[0]!.body)).toMatchObject({ code: ErrorCode.HEADERS_TOO_LARGE, data: null });
    // Closed with unread input, or after a failed second answer, the socket would send a reset.
    expect(serverHadError).toBe(false);
  });
});

describe('request log URLs', () => {
  it.each([
    ['/console/login?token=abc.def', '/console/login?token=[redacted]'],
    // After the ?, a # is part of the value the router hands over: all of it is redacted.
    ['/console/login?x=1&TOKEN=abc.def#f', '/console/login?x=1&TOKEN=[redacted]'],
    ['/pay/AAAAAAAAbbbbbbbbCCCCCCCCdddddddd', '/pay/[redacted]'],
    ['/pay/AAAAAAAAbbbbbbbbCCCCCCCCdddddddd/pay', '/pay/[redacted]/pay'],
    ['/pay/AAAA?x=1', '/pay/[redacted]?x=1'],
    ['/addons/paychannel/merchant/orderQueryList', '/addons/paychannel/merchant/orderQueryList'],
    ['/channel/notify/3', '/channel/notify/3'],
    ['/x/pay/abc', '/x/pay/abc'],
    // What the router decodes is redacted too: fast-querystring decodes names, find-my-way the path.
    ['/console/login?%74oken=abc.def', '/console/login?%74oken=[redacted]'],
    ['/console/login?x=1&T%6F%6bEN=abc.def', '/console/login?x=1&T%6F%6bEN=[redacted]'],
    ['/console/login?token=a&token=b', '/console/login?token=[redacted]&token=[redacted]'],
    // The router takes what follows a # as the query string as well.
    ['/console/login#token=abc.def', '/console/login#token=[redacted]'],
    ['/%70ay/AAAAAAAAbbbbbbbbCCCCCCCCdddddddd', '/%70ay/[redacted]'],
    ['/%70%61%79/AAAAAAAAbbbbbbbbCCCCCCCCdddddddd/fail?x=1', '/%70%61%79/[redacted]/fail?x=1'],
    ['/pay/%41AAAAAAAbbbbbbbbCCCCCCCCdddddddd', '/pay/[redacted]'],
  ])('%s → %s', (url, logged) => {
    expect(redactUrl(url)).toBe(logged);
  });

  it('keeps percent-encoded login and pay tokens out of the request log of a real listener', async () => {
    const log = captureLog('info');
    const service = await testService();
    const listener = await testListener(service, { logger: log.logger });
    const host = new URL(listener.url).host;
    // A real one-time link token, sent where a careless client might put it: in an encoded query parameter.
    const login = (await service.store.write((tx) => service.services.consoleAuth.issueSetupLink(tx)))!.credential;
    await rawRequest(listener.url, 'HEAD', `/console/login?%74oken=${encodeURIComponent(login)}`, { headers: { host } });

    const m = await seedMerchant(service);
    const created = await clientFor(listener, m).createOrder({ order_type: 1, cny_amount: '10.00', paychannel_id: m.channels.beta, paychannel_paymethod: 'alipay' });
    const payToken = new URL((created.body.data as BuyOrderView).pay_url).pathname.split('/')[2]!;
    const page = await rawRequest(listener.url, 'GET', `/%70ay/${payToken}`, { headers: { host } });
    expect(page.status).toBe(200);

    const logged = JSON.stringify(log.lines());
    expect(logged).toContain('/console/login?%74oken=[redacted]');
    expect(logged).toContain('/%70ay/[redacted]');
    expect(logged).not.toContain(login.split('.').at(-1)!);
    expect(logged).not.toContain(payToken);
  });
});
