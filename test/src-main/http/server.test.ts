import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src-shared/errors';
import { RATE_LIMITS_OFF } from '../../../src-main/http/rate-limit';
import { buildHttpApp, redactUrl } from '../../../src-main/http/server';
import { testService } from '../../support/service-harness';

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

describe('listener shutdown', () => {
  it('answers a request that arrives while it drains with the envelope: 503, code 5030', async () => {
    const service = testService();
    const app = buildHttpApp(service, { console: false, rateLimits: RATE_LIMITS_OFF });
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

describe('request log URLs', () => {
  it.each([
    ['/console/login?token=abc.def', '/console/login?token=[redacted]'],
    ['/console/login?x=1&TOKEN=abc.def#f', '/console/login?x=1&TOKEN=[redacted]#f'],
    ['/pay/AAAAAAAAbbbbbbbbCCCCCCCCdddddddd', '/pay/[redacted]'],
    ['/pay/AAAAAAAAbbbbbbbbCCCCCCCCdddddddd/pay', '/pay/[redacted]/pay'],
    ['/pay/AAAA?x=1', '/pay/[redacted]?x=1'],
    ['/addons/paychannel/merchant/orderQueryList', '/addons/paychannel/merchant/orderQueryList'],
    ['/channel/notify/3', '/channel/notify/3'],
    ['/x/pay/abc', '/x/pay/abc'],
  ])('%s → %s', (url, logged) => {
    expect(redactUrl(url)).toBe(logged);
  });
});
