import Fastify from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RATE_LIMITS_OFF } from '../../../src-main/http/rate-limit';
import { lazyRequestLogger } from '../../../src-main/http/request-logger';
import { buildHttpApp } from '../../../src-main/http/server';
import { captureLog } from '../../support/log-capture';
import { testService } from '../../support/service-harness';

/** Fastify's own pino logger, writing to a captured stream. */
function pinoAt(level: string) {
  const log = captureLog(level);
  const app = Fastify({ logger: log.logger });
  return { root: app.log, log, app };
}

afterEach(() => vi.restoreAllMocks());

describe('lazyRequestLogger', () => {
  it('makes no child for calls at levels the logger does not write', async () => {
    const { root, log, app } = pinoAt('warn');
    const child = vi.spyOn(root, 'child');
    const requestLog = lazyRequestLogger(root, { reqId: 'req-1' }, {});
    requestLog.info({ req: 1 }, 'incoming request');
    requestLog.debug('details');
    requestLog.trace('more');
    expect(child).not.toHaveBeenCalled();
    expect(log.lines()).toEqual([]);
    expect(requestLog.level).toBe('warn');
    await app.close();
  });

  it('makes the child once, with the bindings, when the request first logs at an enabled level', async () => {
    const { root, log, app } = pinoAt('warn');
    const child = vi.spyOn(root, 'child');
    const requestLog = lazyRequestLogger(root, { reqId: 'req-7' }, {});
    requestLog.warn({ code: 'X' }, 'first');
    requestLog.error(new Error('boom'), 'second');
    requestLog.info('not written');
    expect(child).toHaveBeenCalledTimes(1);
    expect(child).toHaveBeenCalledWith({ reqId: 'req-7' }, {});
    expect(log.lines()).toMatchObject([
      { level: 40, reqId: 'req-7', code: 'X', msg: 'first' },
      { level: 50, reqId: 'req-7', msg: 'second', err: { message: 'boom' } },
    ]);
    // Its own children carry both sets of bindings.
    requestLog.child({ part: 'inner' }).warn('third');
    expect(log.lines()[2]).toMatchObject({ reqId: 'req-7', part: 'inner', msg: 'third' });
    await app.close();
  });

  it('follows a level change of the root logger', async () => {
    const { root, log, app } = pinoAt('warn');
    const requestLog = lazyRequestLogger(root, { reqId: 'req-2' }, {});
    root.level = 'info';
    requestLog.info('now written');
    expect(log.lines()).toMatchObject([{ level: 30, reqId: 'req-2', msg: 'now written' }]);
    await app.close();
  });

  it("gives pino's child at once for a route's own level or serializers", async () => {
    const { root, app } = pinoAt('warn');
    const child = vi.spyOn(root, 'child');
    lazyRequestLogger(root, { reqId: 'req-3' }, { level: 'debug' });
    lazyRequestLogger(root, { reqId: 'req-4' }, { serializers: { req: (r: unknown) => r } });
    expect(child).toHaveBeenCalledTimes(2);
    await app.close();
  });
});

describe('the listener with a logger', () => {
  const signedBody = JSON.stringify({ api_key: 'mk_unknown', timestamp: 1, nonce: 'nonce-0001', signature: 'AB' });

  it('at warn: requests that log nothing make no child logger', async () => {
    const log = captureLog('warn');
    const app = buildHttpApp(await testService(), { console: false, logger: log.logger, rateLimits: RATE_LIMITS_OFF });
    const child = vi.spyOn(app.log, 'child');
    for (let i = 0; i < 5; i++) {
      const answer = await app.inject({ method: 'POST', url: '/addons/paychannel/merchant/orderQueryList', headers: { 'content-type': 'application/json' }, payload: signedBody });
      expect(answer.statusCode).toBe(401);
    }
    expect(child).not.toHaveBeenCalled();
    expect(log.lines()).toEqual([]);
    await app.close();
  });

  it('at info: each request logs its own reqId on its incoming and completed lines', async () => {
    const log = captureLog('info');
    const app = buildHttpApp(await testService(), { console: false, logger: log.logger, rateLimits: RATE_LIMITS_OFF });
    for (let i = 0; i < 3; i++) {
      await app.inject({ method: 'POST', url: '/addons/paychannel/merchant/orderQueryList', headers: { 'content-type': 'application/json' }, payload: signedBody });
    }
    const lines = log.lines().filter((l) => l.msg === 'incoming request' || l.msg === 'request completed');
    expect(lines).toHaveLength(6);
    const ids = lines.map((l) => l.reqId);
    expect(new Set(ids).size).toBe(3);
    for (let i = 0; i < 6; i += 2) {
      expect(lines[i]).toMatchObject({ msg: 'incoming request', reqId: ids[i] });
      expect(lines[i + 1]).toMatchObject({ msg: 'request completed', reqId: ids[i], res: { statusCode: 401 } });
    }
    await app.close();
  });
});
