/**
 * orderQueryList's fast path, over real HTTP (docs/decisions.md, "Hot
 * path"): a page near the top for a merchant an earlier request verified is
 * a unit of its own (Store.writeAlone, relaxed like a read's nonce, writing
 * it last; one statement on PostgreSQL) that records the nonce only while the row
 * generation the merchant was read at is unchanged (migrations 0010 and
 * 0011) and reads the total and the page. Either way the answers
 * are those of the unit of work:
 *  - the same list and total, with and without filters, for page 1 and for
 *    a deep page (which always takes the unit of work);
 *  - a rotated secret or a disabled merchant after the cache was warmed are
 *    refused as without it, and leave no nonce;
 *  - a replayed request is refused;
 *  - the per-api_key rate limit counts only requests whose signature
 *    verified, also when the statement found the cache stale.
 */
import { describe, expect, it } from 'vitest';
import { createMerchantClient } from '../../../src-shared/client/merchant-client';
import { ErrorCode } from '../../../src-shared/errors';
import type { RateLimitConfig } from '../../../src-main/http/rate-limit';
import { clientFor, manualClock, rowCount, seedMerchant, testListener, testService, write } from '../../support/service-harness';

const PREFIX = '/addons/paychannel/merchant';
/** What one list request on the fast path adds to stats.alone. */
const ONE = 1;

async function setup(options: { rateLimits?: RateLimitConfig; orders?: number } = {}) {
  const clock = manualClock(1_800_000_000);
  const service = await testService({ clock });
  const listener = await testListener(service, options.rateLimits ? { rateLimits: options.rateLimits } : {});
  const m = await seedMerchant(service, 'List alone', { balance: 1_000_000 });
  const client = clientFor(listener, m, { now: clock.now });
  for (let i = 0; i < (options.orders ?? 0); i++) {
    const res = await client.createOrder({ order_type: 1, cny_amount: `${10 + (i % 7)}.00`, paychannel_id: m.channels.gamma, paychannel_paymethod: i % 2 ? 'alipay' : 'wxpay' });
    expect(res.body.code).toBe(1);
    // Spread over three days, so a time filter cuts days.
    clock.advance(3 * 86_400 / (options.orders ?? 1));
  }
  /**
   * fn's result, how many units of their own it ran (stats.alone, which
   * counts one that found the cache stale too), relaxed commits, and units
   * committed (stats.writes: the fast path alone is 1).
   */
  const counting = async <T>(fn: () => Promise<T>): Promise<[T, number, number, number]> => {
    const before = { alone: service.store.stats.alone, relaxed: service.store.stats.relaxedCommits, writes: service.store.stats.writes };
    const out = await fn();
    const { stats } = service.store;
    return [out, stats.alone - before.alone, stats.relaxedCommits - before.relaxed, stats.writes - before.writes];
  };
  return { clock, service, listener, m, client, counting };
}

describe('orderQueryList as a unit of its own', () => {
  it('answers every filter and page as the unit of work does; page 1 of a verified merchant is a relaxed unit of its own', async () => {
    const { client, counting, clock, service } = await setup({ orders: 30 });
    // How each unit of its own is asked for: a read's, relaxed and writing only its nonce, last (no savepoint on SQLite),
    // its reads on the durable state while another batch syncs.
    const asked: unknown[] = [];
    const writeAlone = service.store.writeAlone.bind(service.store);
    service.store.writeAlone = (fn, options) => (asked.push(options), writeAlone(fn, options));
    const start = clock.now() - 2 * 86_400;
    const filters: Record<string, unknown>[] = [
      {},
      { limit: 10 },
      { status: 'pending' },
      { order_type: 1, limit: 50 },
      { start_time: start },
      { start_time: start, end_time: clock.now() - 86_400, status: 'pending' },
      { page: 2, limit: 10 },
      { page: 3, limit: 7 },
      { status: 'completed' },
    ];
    // The merchant was verified by its first createOrder (through the unit of work): already a unit of its own.
    const [first, firstAlone, , firstUnits] = await counting(() => client.orderQueryList({}));
    expect(first.body.code).toBe(1);
    expect([firstAlone, firstUnits]).toEqual([ONE, 1]);
    for (const f of filters) {
      const [alone, units, relaxed, committed] = await counting(() => client.orderQueryList(f));
      expect(alone.body.code, JSON.stringify(f)).toBe(1);
      expect([units, committed], JSON.stringify(f)).toEqual([ONE, 1]);
      // The nonce of a read does not wait for its own flush, in a unit of its own as in a unit of work.
      expect(relaxed, JSON.stringify(f)).toBe(1);
      if (f.start_time === undefined) expect(alone.body.data?.total, JSON.stringify(f)).toBe(f.status === 'completed' ? 0 : 30);
    }
    // The same answers by the unit of work: a deep page (offset 200 and more) never takes a unit of its own.
    const deep = await counting(() => client.orderQueryList({ page: 21, limit: 10 }));
    expect(deep[0].body).toMatchObject({ code: 1, data: { list: [], total: 30, page: 21, limit: 10 } });
    expect(deep[1]).toBe(0);
    expect(asked).toEqual(Array(1 + filters.length).fill({ durable: false, writesLast: true, fromDurableSnapshot: true }));
  });

  it('gives the list and total the unit of work gives, row for row', async () => {
    const { service, m, client, counting, clock } = await setup({ orders: 25 });
    const start = clock.now() - 2 * 86_400;
    const cases: Record<string, unknown>[] = [{}, { limit: 10, page: 2 }, { order_type: 1, status: 'pending' }, { start_time: start, end_time: clock.now() - 3_600 }];
    await client.orderQueryList({});
    for (const f of cases) {
      const [alone, units] = await counting(() => client.orderQueryList(f));
      expect(units).toBe(ONE);
      // The unit of work's answer for the same query, straight from the service.
      const q = { page: 1, limit: 20, ...f } as Parameters<typeof service.services.orders.list>[2];
      const expected = await service.store.read((tx) => service.services.orders.list(tx, m.id, q));
      expect(alone.body.data, JSON.stringify(f)).toEqual(JSON.parse(JSON.stringify(expected)));
    }
  });

  it('refuses a rotated secret and a disabled merchant after the cache was warmed, leaving no nonce; a replay is refused', async () => {
    const { service, m, client, listener, counting, clock } = await setup({ orders: 2 });
    expect((await client.orderQueryList({})).body.code).toBe(1);
    expect((await client.orderQueryList({})).body.code).toBe(1);

    // The same signed body twice: the second is a replay, in a unit of its own too.
    const body = client.signBody({ limit: 10 });
    const post = (b: Record<string, unknown>) =>
      fetch(`${listener.url}${PREFIX}/orderQueryList`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) }).then(
        async (r) => ({ status: r.status, body: (await r.json()) as { code: number; msg: string } }),
      );
    const [once, units] = await counting(() => post(body));
    expect(once.body.code).toBe(1);
    expect(units).toBe(ONE);
    expect(await post(body)).toMatchObject({ status: 401, body: { code: ErrorCode.AUTH_NONCE_REUSED } });

    const rotated = await write(service, (tx) => service.services.merchants.rotateSecret(tx, m.id));
    let nonces = await rowCount(service, 'nonces');
    expect(await client.orderQueryList({})).toMatchObject({ status: 401, body: { code: ErrorCode.AUTH_BAD_SIGNATURE } });
    expect(await rowCount(service, 'nonces')).toBe(nonces);
    const renewed = createMerchantClient({ baseUrl: listener.url, apiKey: m.apiKey, apiSecret: rotated.api_secret, now: clock.now });
    expect((await renewed.orderQueryList({})).body).toMatchObject({ code: 1, data: { total: 2 } });
    const [again, unitsAgain] = await counting(() => renewed.orderQueryList({}));
    expect(again.body.code).toBe(1);
    expect(unitsAgain).toBe(ONE);

    await write(service, (tx) => service.services.merchants.update(tx, { id: m.id, enabled: false }));
    nonces = await rowCount(service, 'nonces');
    expect(await renewed.orderQueryList({})).toMatchObject({ status: 401, body: { code: ErrorCode.AUTH_UNKNOWN_KEY } });
    expect(await rowCount(service, 'nonces')).toBe(nonces);
  });

  it('counts against the per-api_key limit only requests whose signature verified, also when the statement found the cache stale', async () => {
    const { service, m, client, listener, clock } = await setup({ rateLimits: { perApiKey: { limit: 3, periodSeconds: 3600 }, perAddress: null } });
    expect((await client.orderQueryList({})).body.code).toBe(1);
    expect((await client.orderQueryList({})).body.code).toBe(1);
    const rotated = await write(service, (tx) => service.services.merchants.rotateSecret(tx, m.id));
    // Signed with the revoked secret: refused (401), and not counted (it was not the merchant's request).
    expect(await client.orderQueryList({})).toMatchObject({ status: 401, body: { code: ErrorCode.AUTH_BAD_SIGNATURE } });
    const renewed = createMerchantClient({ baseUrl: listener.url, apiKey: m.apiKey, apiSecret: rotated.api_secret, now: clock.now });
    expect((await renewed.orderQueryList({})).body.code).toBe(1);
    expect(await renewed.orderQueryList({})).toMatchObject({ status: 429, body: { code: ErrorCode.RATE_LIMITED } });
  });
});
