import { describe, expect, it } from 'vitest';
import { AppError, ErrorCode } from '../../../src-shared/errors';
import { createRateLimiter, formatRateLimitRule, parseRateLimitRule, RATE_LIMITS_OFF } from '../../../src-main/http/rate-limit';
import { parseTrustProxy } from '../../../src-main/http/server';
import { clientFor, rowCount, seedMerchant, testListener, testService } from '../../support/service-harness';

describe('rate limit rules', () => {
  it.each([
    ['off', null],
    ['0', null],
    ['100', { limit: 100, periodSeconds: 1 }],
    ['100/s', { limit: 100, periodSeconds: 1 }],
    ['600/min', { limit: 600, periodSeconds: 60 }],
    ['600/m', { limit: 600, periodSeconds: 60 }],
    ['5000/h', { limit: 5000, periodSeconds: 3600 }],
  ])('parses %s', (text, rule) => {
    expect(parseRateLimitRule(text)).toEqual(rule);
  });

  it.each(['', '-1', '1.5', '10/d', 'ten', '10/s/s', '1e3'])('refuses %j', (text) => {
    expect(() => parseRateLimitRule(text)).toThrow(/must be off, N, N\/s, N\/min or N\/h/);
  });

  it('formats what it parses', () => {
    for (const text of ['off', '100/s', '600/min', '5000/h']) expect(formatRateLimitRule(parseRateLimitRule(text))).toBe(text);
  });
});

describe('token bucket', () => {
  it('allows a burst of N, then refuses with the seconds until the next token, then refills', () => {
    let t = 0;
    const limiter = createRateLimiter({ limit: 3, periodSeconds: 60 }, 'api_key', () => t);
    for (let i = 0; i < 3; i++) limiter.take('k');
    let refused: unknown;
    try {
      limiter.take('k');
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe(ErrorCode.RATE_LIMITED);
    expect((refused as AppError).httpStatus).toBe(429);
    expect((refused as AppError).detail).toEqual({ retryAfter: 20 }); // one token per 20 s
    limiter.take('other'); // buckets are per key
    t += 19_000;
    expect(() => limiter.take('k')).toThrow(AppError);
    t += 1_000;
    limiter.take('k');
    expect(() => limiter.take('k')).toThrow(AppError);
  });

  it('keeps memory bounded under a flood of distinct keys', () => {
    let t = 0;
    const limiter = createRateLimiter({ limit: 10, periodSeconds: 1 }, 'client address', () => t);
    for (let i = 0; i < 120_000; i++) {
      limiter.take(`10.0.${i >> 8}.${i & 255}`);
      t += 0.001;
    }
    expect(limiter.size).toBeLessThanOrEqual(50_000);
    expect(limiter.size).toBeGreaterThan(0);
  });
});

describe('rate limits over HTTP', () => {
  it('limits every route of the listener per client address, with a 429 envelope and Retry-After', async () => {
    const service = await testService();
    const listener = await testListener(service, { rateLimits: { perAddress: { limit: 4, periodSeconds: 60 }, perApiKey: null } });
    const statuses: number[] = [];
    for (const path of ['/nope', '/addons/paychannel/channel/alpha/provinceList', '/addons/paychannel/merchant/getPayChannels', '/x']) {
      statuses.push((await fetch(listener.url + path, { method: 'GET' })).status);
    }
    expect(statuses.every((s) => s !== 429)).toBe(true);
    for (const path of ['/nope', '/addons/paychannel/channel/alpha/regionData', '/addons/paychannel/merchant/createOrder']) {
      const res = await fetch(listener.url + path, { method: path.includes('merchant') ? 'POST' : 'GET' });
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('15');
      const body = (await res.json()) as { code: number; msg: string; data: unknown };
      expect(body).toEqual({ code: ErrorCode.RATE_LIMITED, msg: expect.stringContaining('client address'), data: null });
    }
  });

  it('behind a trusted proxy, counts the client address it forwards; forwarded headers from anyone else are ignored', async () => {
    const service = await testService();
    const perAddress = { limit: 2, periodSeconds: 60 };
    const get = (url: string, forwardedFor: string) =>
      fetch(`${url}/addons/paychannel/channel/alpha/provinceList`, { headers: { 'x-forwarded-for': forwardedFor } }).then((r) => r.status);

    const proxied = await testListener(service, { rateLimits: { perAddress, perApiKey: null }, trustProxy: ['127.0.0.1'] });
    expect([await get(proxied.url, '203.0.113.1'), await get(proxied.url, '203.0.113.1'), await get(proxied.url, '203.0.113.1')]).toEqual([200, 200, 429]);
    // Another client behind the same proxy has its own bucket.
    expect(await get(proxied.url, '203.0.113.2')).toBe(200);

    // Not a trusted peer: X-Forwarded-For is a forgery like any other header, and the TCP peer is counted.
    const direct = await testListener(service, { rateLimits: { perAddress, perApiKey: null }, trustProxy: ['10.9.9.9'] });
    expect([await get(direct.url, '203.0.113.1'), await get(direct.url, '203.0.113.2'), await get(direct.url, '203.0.113.3')]).toEqual([200, 200, 429]);
  });

  it.each([
    ['127.0.0.1', ['127.0.0.1']],
    [' 10.0.0.0/8, ::1 ,fd00::/8', ['10.0.0.0/8', '::1', 'fd00::/8']],
  ])('parses trusted proxies %j', (text, list) => {
    expect(parseTrustProxy(text)).toEqual(list);
  });

  it.each(['', 'proxy.example.com', '10.0.0.0/33', '::1/129', '10.0.0.1/8/1', '10.0.0.0/x', '300.1.1.1'])('refuses trusted proxy %j', (text) => {
    expect(() => parseTrustProxy(text)).toThrow(/^trust proxy: /);
  });

  it('limits verified requests per api_key; forged requests with the public api_key do not use the quota', async () => {
    const service = await testService();
    const a = await seedMerchant(service, 'A');
    const b = await seedMerchant(service, 'B');
    const listener = await testListener(service, { rateLimits: { perApiKey: { limit: 3, periodSeconds: 60 }, perAddress: null } });
    const clientA = clientFor(listener, a);
    const forger = clientFor(listener, { ...a, apiSecret: 'sk_not_the_secret_at_all_0000000000000' });
    for (let i = 0; i < 10; i++) expect((await forger.getPayChannels()).status).toBe(401);
    for (let i = 0; i < 3; i++) expect((await clientA.getPayChannels()).body.code).toBe(1);
    const noncesBefore = await rowCount(service, 'nonces');
    const limited = await clientA.orderQueryList();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('20');
    expect(limited.body).toEqual({ code: ErrorCode.RATE_LIMITED, msg: expect.stringContaining('api_key'), data: null });
    // Refused before its nonce was consumed: the client may retry the same request later.
    expect(await rowCount(service, 'nonces')).toBe(noncesBefore);
    expect((await clientFor(listener, b).getPayChannels()).body.code).toBe(1);
  });

  it('is off when asked (benchmarks)', async () => {
    const service = await testService();
    const m = await seedMerchant(service);
    const listener = await testListener(service, { rateLimits: RATE_LIMITS_OFF });
    const client = clientFor(listener, m);
    // More than the default burst of 200 per address and 100 per api_key, at once.
    const results = await Promise.all(Array.from({ length: 250 }, () => client.getPayChannels()));
    expect(results.filter((r) => r.status === 200)).toHaveLength(250);
  });
});
