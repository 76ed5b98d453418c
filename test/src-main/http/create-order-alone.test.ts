/**
 * createOrder's fast path for buy orders, over real HTTP (docs/decisions.md,
 * "Hot path"): once a request of the merchant went through the unit of work
 * (which caches the merchant and the linked channel with the row generation
 * they were read at, migrations 0010 and 0011), the next buy order without
 * an Idempotency-Key is a unit of its own (Store.writeAlone, counted in
 * stats.alone; one statement on PostgreSQL) that stores the nonce and the
 * order only while that generation is unchanged. Either way the answers and
 * what is stored must be those of the unit of work:
 *  - the rows stored, and one nonce per request;
 *  - after the cache was warmed: a rotated secret, a disabled merchant
 *    (also by another connection: an admin command, psql, sqlite3), a
 *    channel whose fee changed or that was disabled or unlinked, an amount
 *    outside the channel's limits, a replayed request — each refused or
 *    accepted exactly as without the cache;
 *  - sell orders and Idempotency-Key requests never take the fast path;
 *  - a request that finds the cache stale and falls back to the unit of
 *    work counts once against the per-api_key rate limit.
 */
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { computeSignature } from '../../../src-shared/client/sign';
import { newNonce, type MerchantClient } from '../../../src-shared/client/merchant-client';
import { ErrorCode } from '../../../src-shared/errors';
import type { RateLimitConfig } from '../../../src-main/http/rate-limit';
import type { PostgresStore } from '../../../src-main/store/postgres/postgres-store';
import type { SqliteStore } from '../../../src-main/store/sqlite/sqlite-store';
import type { WriteTx } from '../../../src-main/store/store';
import { clientFor, manualClock, read, rowCount, seedMerchant, testListener, testService, write } from '../../support/service-harness';
import { TEST_ENGINE } from '../../support/test-engine';

const PREFIX = '/addons/paychannel/merchant';
/** What one buy order on the fast path adds to stats.alone. */
const ONE = 1;

interface Answer {
  status: number;
  body: { code: number; msg: string; data: Record<string, unknown> | null; time?: string };
}

type OrderColumns = Record<string, unknown> & { id: number; order_no: string; pay_token: string; pay_url: string };

async function setup(options: { rateLimits?: RateLimitConfig } = {}) {
  const clock = manualClock(1_800_000_000);
  const service = await testService({ clock });
  const listener = await testListener(service, options.rateLimits ? { rateLimits: options.rateLimits } : {});
  const m = await seedMerchant(service, 'Alone', { balance: 1_000_000 });
  const client = clientFor(listener, m, { now: clock.now });
  const url = `${listener.url}${PREFIX}/createOrder`;
  const buy = { order_type: 1, cny_amount: '100.00', paychannel_id: m.channels.gamma, paychannel_paymethod: 'alipay', customer_name: '张三' };

  /** POSTs a signed body as it is (the same body twice is a replay). */
  const post = async (body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Answer> => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Answer['body'] };
  };
  /** A freshly signed buy order (new nonce), and its nonce. */
  const create = async (over: Record<string, unknown> = {}, c: MerchantClient = client, headers: Record<string, string> = {}) => {
    const body = c.signBody({ ...buy, ...over });
    return { ...(await post(body, headers)), nonce: body.nonce as string };
  };
  /**
   * fn's result, how many units of their own it ran (stats.alone, which
   * counts one that found the cache stale too) and how many units were
   * committed (stats.writes): the fast path alone is 1 and 1, a stale one
   * and the unit of work after it 1 and 2.
   */
  const counting = async <T>(fn: () => Promise<T>): Promise<[T, number, number]> => {
    const before = { alone: service.store.stats.alone, writes: service.store.stats.writes };
    const out = await fn();
    return [out, service.store.stats.alone - before.alone, service.store.stats.writes - before.writes];
  };
  const orders = () => read(service, (tx) => tx.all<OrderColumns>('SELECT * FROM orders ORDER BY id'));
  const nonces = () => read(service, (tx) => tx.all<{ api_key: string; nonce: string; expires_at: number }>('SELECT api_key, nonce, expires_at FROM nonces ORDER BY nonce'));
  const counts = async () => ({ orders: await rowCount(service, 'orders'), nonces: await rowCount(service, 'nonces') });
  /** Warms the caches (the unit of work), then checks the next order takes the fast path. */
  const warm = async () => {
    const [first, viaUnit] = await counting(() => create());
    expect(first.body.code).toBe(1);
    expect(viaUnit).toBe(0);
    const [second, alone, units] = await counting(() => create());
    expect(second.body.code).toBe(1);
    expect([alone, units]).toEqual([ONE, 1]);
  };
  return { clock, service, listener, m, client, url, buy, post, create, counting, orders, nonces, counts, warm };
}

/** A row without what differs between any two orders of the same request (ids, numbers, tokens). */
function sameness(row: OrderColumns): Record<string, unknown> {
  const { id: _id, order_no: _no, pay_token: _token, pay_url: _url, ...rest } = row;
  return rest;
}

describe('createOrder: a buy order as a unit of its own', () => {
  it('the first order takes the unit of work, the next a unit of their own each; the rows stored are the same', async () => {
    const { service, listener, m, create, counting, orders, nonces, clock } = await setup();
    const answers: Answer[] = [];
    const sent: string[] = [];
    const deltas: [number, number][] = [];
    for (let i = 0; i < 4; i++) {
      const [res, alone, units] = await counting(() => create());
      answers.push(res);
      sent.push(res.nonce);
      deltas.push([alone, units]);
    }
    // Each a single unit: the first the unit of work, the others a unit of their own that was current.
    expect(deltas).toEqual([
      [0, 1],
      [ONE, 1],
      [ONE, 1],
      [ONE, 1],
    ]);
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ code: 1, msg: 'Order created' });
    }
    // The answers: the same but for the order number and where the payer goes.
    const views = answers.map((a) => a.body.data!);
    const { order_no: _no, pay_url: _url, ...firstView } = views[0]!;
    for (const view of views) {
      expect(view).toEqual({ ...firstView, order_no: expect.stringMatching(/^B[0-9]{24}$/), pay_url: expect.any(String) });
    }
    expect(new Set(views.map((v) => v.order_no)).size).toBe(4);

    const rows = await orders();
    expect(rows).toHaveLength(4);
    expect(rows.map((r) => r.order_no)).toEqual(views.map((v) => v.order_no));
    // Every column the same as the unit of work's row (the clock stands still: times too), but id, number and token.
    for (const row of rows.slice(1)) expect(sameness(row)).toEqual(sameness(rows[0]!));
    expect(sameness(rows[0]!)).toMatchObject({ merchant_id: m.id, channel_id: m.channels.gamma, status: 'pending', cny_amount: 10_000, service_rate: '0.006', service_amount: 60 });
    for (const [i, row] of rows.entries()) {
      expect(row.pay_url).toBe(`${listener.url}/pay/${row.pay_token}`);
      expect(views[i]!.pay_url).toBe(row.pay_url);
    }
    expect(new Set(rows.map((r) => r.pay_token)).size).toBe(4);

    // One nonce per request, kept as long whichever way it was recorded.
    const stored = await nonces();
    expect(stored.map((n) => n.nonce)).toEqual([...sent].sort());
    expect(new Set(stored.map((n) => `${n.api_key}:${n.expires_at}`))).toEqual(new Set([`${m.apiKey}:${stored[0]!.expires_at}`]));
    expect(stored[0]!.expires_at).toBeGreaterThan(clock.now());

    // The order counters (triggers) and the reads see them all.
    expect(await read(service, (tx) => tx.get('SELECT sum(n) AS n FROM order_counts WHERE merchant_id = ?', [m.id]))).toEqual({ n: 4 });
    const client = clientFor(listener, m, { now: clock.now });
    const detail = await client.orderQueryDetail(views[3]!.order_no as string);
    expect(detail.body.data).toMatchObject({ order_no: views[3]!.order_no, status: 'pending', cny_amount: '100.00' });
  });

  it('a rotated secret: a request signed with the old one is refused (no nonce, no order); the new one creates the order', async () => {
    const { service, listener, m, clock, create, counting, counts, warm } = await setup();
    await warm();
    const before = await counts();
    const rotated = await write(service, (tx) => service.services.merchants.rotateSecret(tx, m.id));

    const [old, alone] = await counting(() => create());
    expect(old.status).toBe(401);
    expect(old.body).toEqual({ code: ErrorCode.AUTH_BAD_SIGNATURE, msg: 'signature: does not match (sign type hmac-sha256)', data: null });
    // The unit of its own ran and found the merchant changed; the unit of work then refused.
    expect(alone).toBe(ONE);
    expect(await counts()).toEqual(before);

    const fresh = clientFor(listener, { ...m, apiSecret: rotated.api_secret }, { now: clock.now });
    const [ok, viaUnit] = await counting(() => create({}, fresh));
    expect(ok.body.code).toBe(1);
    expect(viaUnit).toBe(0);
    expect(await counts()).toEqual({ orders: before.orders + 1, nonces: before.nonces + 1 });
    // The cache holds the new secret now: the old one stays refused, the new one goes fast again.
    const [again, stillUnit] = await counting(() => create());
    expect(again.body.code).toBe(ErrorCode.AUTH_BAD_SIGNATURE);
    expect(stillUnit).toBe(0);
    const [fast, oneStatement, units] = await counting(() => create({}, fresh));
    expect(fast.body.code).toBe(1);
    expect([oneStatement, units]).toEqual([ONE, 1]);
    expect(await counts()).toEqual({ orders: before.orders + 2, nonces: before.nonces + 2 });
  });

  it('after the cache was warmed, a badly signed, tampered or stale request is refused as before: no nonce, no order, no statement', async () => {
    const { listener, m, clock, buy, client, post, create, counting, counts, warm } = await setup();
    await warm();
    const before = await counts();
    const forger = clientFor(listener, { ...m, apiSecret: 'sk_not_the_secret_at_all_0000000000000' }, { now: clock.now });
    const tampered = { ...client.signBody(buy), cny_amount: '200.00' };
    const late = clientFor(listener, m, { now: () => clock.now() - 301 });
    const cases: [() => Promise<Answer>, number, string][] = [
      [() => create({}, forger), ErrorCode.AUTH_BAD_SIGNATURE, 'signature: does not match (sign type hmac-sha256)'],
      [() => post(tampered), ErrorCode.AUTH_BAD_SIGNATURE, 'signature: does not match (sign type hmac-sha256)'],
      [() => create({}, late), ErrorCode.AUTH_STALE_TIMESTAMP, 'timestamp: older than the allowed 300 s'],
    ];
    for (const [send, code, msg] of cases) {
      const [res, alone] = await counting(send);
      expect(res.status, msg).toBe(401);
      expect(res.body, msg).toEqual({ code, msg: expect.stringContaining(msg), data: null });
      expect(alone, msg).toBe(0);
    }
    expect(await counts()).toEqual(before);
    // The cache is untouched by them.
    const [ok, alone] = await counting(() => create());
    expect(ok.body.code).toBe(1);
    expect(alone).toBe(ONE);
  });

  it("the cached channel is checked as the unit of work checks it: a pay method it does not take, another merchant's channel", async () => {
    const { service, listener, m, clock, create, counting, counts, warm } = await setup();
    const only = await seedMerchant(service, 'Alipay only', { payMethods: ['alipay'] });
    const onlyClient = clientFor(listener, only, { now: clock.now });
    const onlyBuy = { paychannel_id: only.channels.gamma };
    // Warm the caches of this merchant and channel (alipay), then ask for a method the channel does not take.
    expect((await create(onlyBuy, onlyClient)).body.code).toBe(1);
    const [fast, fastAlone, fastUnits] = await counting(() => create(onlyBuy, onlyClient));
    expect(fast.body.code).toBe(1);
    expect([fastAlone, fastUnits]).toEqual([ONE, 1]);
    const beforeMethod = await counts();
    const [wx, wxAlone] = await counting(() => create({ ...onlyBuy, paychannel_paymethod: 'wxpay' }, onlyClient));
    expect(wx.status).toBe(400);
    expect(wx.body).toEqual({ code: ErrorCode.VALIDATION, msg: `paychannel_paymethod: channel ${only.channels.gamma} accepts only alipay`, data: null });
    expect(wxAlone).toBe(0);
    expect(await counts()).toEqual({ orders: beforeMethod.orders, nonces: beforeMethod.nonces + 1 });

    // The first merchant, warmed on its own channel, asks for the other merchant's (cached for that one): refused.
    await warm();
    const before = await counts();
    const [other, otherAlone] = await counting(() => create({ paychannel_id: only.channels.gamma }));
    expect(other.status).toBe(400);
    expect(other.body).toEqual({ code: ErrorCode.VALIDATION, msg: `paychannel_id: no enabled channel ${only.channels.gamma} is linked to this merchant`, data: null });
    expect(otherAlone).toBe(0);
    expect(await counts()).toEqual({ orders: before.orders, nonces: before.nonces + 1 });
    expect(await rowCount(service, 'orders')).toBe(before.orders);
    expect((await read(service, (tx) => tx.all<{ merchant_id: number }>('SELECT merchant_id FROM orders WHERE channel_id = ?', [only.channels.gamma]))).every((r) => r.merchant_id === only.id)).toBe(true);
    expect(m.id).not.toBe(only.id);
  });

  it('a merchant disabled after the cache was warmed is refused (no nonce, no order), and served again once enabled', async () => {
    const { service, m, create, counting, counts, warm } = await setup();
    await warm();
    const before = await counts();
    await write(service, (tx) => service.services.merchants.update(tx, { id: m.id, enabled: false }));
    const [res, alone] = await counting(() => create());
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code: ErrorCode.AUTH_UNKNOWN_KEY, msg: 'api_key: unknown or disabled', data: null });
    expect(alone).toBe(ONE);
    expect(await counts()).toEqual(before);
    // Refused again, without the cache now.
    const [again, none] = await counting(() => create());
    expect(again.body.code).toBe(ErrorCode.AUTH_UNKNOWN_KEY);
    expect(none).toBe(0);
    expect(await counts()).toEqual(before);

    await write(service, (tx) => service.services.merchants.update(tx, { id: m.id, enabled: true }));
    expect((await create()).body.code).toBe(1);
    expect(await counts()).toEqual({ orders: before.orders + 1, nonces: before.nonces + 1 });
  });

  it('a merchant disabled by another connection (an admin command, psql, the sqlite3 shell; raw SQL, not the services) is refused as well', async () => {
    const { service, m, create, counting, counts, warm } = await setup();
    await warm();
    const before = await counts();
    if (TEST_ENGINE === 'postgres') {
      const other = await (service.store as PostgresStore).connect();
      try {
        await other.query('UPDATE merchants SET enabled = 0 WHERE id = $1', [m.id]);
      } finally {
        other.release();
      }
    } else {
      const other = new BetterSqlite3((service.store as SqliteStore).file);
      try {
        other.prepare('UPDATE merchants SET enabled = 0 WHERE id = ?').run(m.id);
      } finally {
        other.close();
      }
    }
    const [res, alone] = await counting(() => create());
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code: ErrorCode.AUTH_UNKNOWN_KEY, msg: 'api_key: unknown or disabled', data: null });
    // The unit of its own found the generation changed ('declined'); the unit of work refused.
    expect(alone).toBe(ONE);
    expect(await counts()).toEqual(before);
  });

  it("a fee changed after the cache was warmed (the channel's, then the link's): the next order uses the new fee, the one after goes fast with it", async () => {
    const { service, m, create, counting, orders, warm } = await setup();
    await warm();
    await write(service, (tx) => service.services.channels.update(tx, { id: m.channels.gamma, service_rate: '0.01' }));
    const [res, alone, units] = await counting(() => create());
    expect(res.body.code).toBe(1);
    // R(10000 × 0.01) = 100; deposit R(10000 × 50 / 10000) = 50.
    expect(res.body.data).toMatchObject({ service_amount: 100, deposit_amount: 50, merchant_actual_amount: 10_000 - 100 - 50 });
    expect([alone, units]).toEqual([ONE, 2]); // the declined unit of its own; the unit of work then wrote the order
    const [next, fast, fastUnits] = await counting(() => create());
    expect(next.body.data).toMatchObject({ service_amount: 100, merchant_actual_amount: 9_850 });
    expect([fast, fastUnits]).toEqual([ONE, 1]);
    // The merchant's own rate on the link (it wins over the channel's): changed after warming too.
    await write(service, (tx) => service.services.channels.link(tx, { merchant_id: m.id, channel_id: m.channels.gamma, service_rate: '0.02' }));
    const [linked, linkedAlone, linkedUnits] = await counting(() => create());
    expect(linked.body.data).toMatchObject({ service_amount: 200, merchant_actual_amount: 10_000 - 200 - 50 });
    expect([linkedAlone, linkedUnits]).toEqual([ONE, 2]);
    const [linkedNext, linkedFast, linkedNextUnits] = await counting(() => create());
    expect(linkedNext.body.data).toMatchObject({ service_amount: 200 });
    expect([linkedFast, linkedNextUnits]).toEqual([ONE, 1]);
    const rows = await orders();
    expect(rows.map((r) => [r.service_rate, r.service_amount, r.merchant_actual_amount])).toEqual([
      ['0.006', 60, 9_890],
      ['0.006', 60, 9_890],
      ['0.01', 100, 9_850],
      ['0.01', 100, 9_850],
      ['0.02', 200, 9_750],
      ['0.02', 200, 9_750],
    ]);
    expect(sameness(rows[3]!)).toEqual(sameness(rows[2]!));
    expect(sameness(rows[5]!)).toEqual(sameness(rows[4]!));
  });

  /**
   * Warms the cache, changes the gamma channel or its link with `change`, and sends a buy order on it: refused
   * with 400 naming paychannel_id, in the fast path's attempt, the nonce used and no order.
   */
  async function refusedAfterWarming(s: Awaited<ReturnType<typeof setup>>, change: (tx: WriteTx) => Promise<unknown>) {
    await s.warm();
    const before = await s.counts();
    await write(s.service, change);
    const body = s.client.signBody(s.buy);
    const [res, alone] = await s.counting(() => s.post(body));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: ErrorCode.VALIDATION, msg: `paychannel_id: no enabled channel ${s.m.channels.gamma} is linked to this merchant`, data: null });
    expect(alone).toBe(ONE);
    // As in the unit of work: a refused write keeps its nonce used and nothing else.
    expect(await s.counts()).toEqual({ orders: before.orders, nonces: before.nonces + 1 });
    return { body, res, before };
  }

  it('a channel disabled after the cache was warmed: 400 naming paychannel_id, the nonce consumed as by any refused write, no order', async () => {
    const s = await setup();
    const { service, m, post, warm } = s;
    const { body } = await refusedAfterWarming(s, (tx) => service.services.channels.update(tx, { id: m.channels.gamma, enabled: false }));
    // The same request again is a replay.
    expect((await post(body)).body.code).toBe(ErrorCode.AUTH_NONCE_REUSED);
    // Enabled again: orders are accepted, and the cache is warmed anew.
    await write(service, (tx) => service.services.channels.update(tx, { id: m.channels.gamma, enabled: true }));
    await warm();
  });

  it('a channel unlinked after the cache was warmed: refused like a disabled one', async () => {
    const s = await setup();
    const { service, m, post, client, buy, counting, counts, warm } = s;
    const { res, before } = await refusedAfterWarming(s, (tx) => service.services.channels.unlink(tx, m.id, m.channels.gamma));
    // And again, now without the cache: the same answer.
    const [again, none] = await counting(() => post(client.signBody(buy)));
    expect(again).toEqual(res);
    expect(none).toBe(0);
    expect(await counts()).toEqual({ orders: before.orders, nonces: before.nonces + 2 });
    // Linked again: a new link row, orders accepted (the unit of work first, then units of their own).
    await write(service, (tx) => service.services.channels.link(tx, { merchant_id: m.id, channel_id: m.channels.gamma }));
    await warm();
  });

  it("an amount outside the channel's limits after the cache was warmed: the same refusal as without it", async () => {
    const { service, m, create, counting, counts } = await setup();
    // Without the cache (the first request of the merchant): the answer to compare with.
    const [cold, coldAlone] = await counting(() => create({ cny_amount: '0.99' }));
    expect(cold.status).toBe(400);
    expect(cold.body.msg).toMatch(/^cny_amount: must be between 1\.00 and /);
    expect(coldAlone).toBe(0);
    expect(await counts()).toEqual({ orders: 0, nonces: 1 });

    // That refused request warmed the caches already (merchant and channel as it read them): the next order goes fast.
    const [ok, okAlone] = await counting(() => create());
    expect(ok.body.code).toBe(1);
    expect(okAlone).toBe(ONE);
    const before = await counts();
    const [warmRes, warmAlone] = await counting(() => create({ cny_amount: '0.99' }));
    expect({ status: warmRes.status, body: warmRes.body }).toEqual({ status: cold.status, body: cold.body });
    expect(warmAlone).toBe(0); // refused before any statement: the unit of work says why
    const [over] = await counting(() => create({ cny_amount: '50000.01' }));
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ code: ErrorCode.VALIDATION, msg: expect.stringMatching(/^cny_amount: must be between 1\.00 and 50000\.00 on channel /) });
    // Only the nonces, as the unit of work keeps them for a refused write.
    expect(await counts()).toEqual({ orders: before.orders, nonces: before.nonces + 2 });

    // The limits lowered after warming: an amount the cached channel would take is refused with the new ones.
    await write(service, (tx) => service.services.channels.update(tx, { id: m.channels.gamma, max_amount: 20_000 }));
    const [lowered, alone] = await counting(() => create({ cny_amount: '300.00' }));
    expect(lowered.status).toBe(400);
    expect(lowered.body).toEqual({ code: ErrorCode.VALIDATION, msg: `cny_amount: must be between 1.00 and 200.00 on channel ${m.channels.gamma}`, data: null });
    expect(alone).toBe(ONE);
    expect(await counts()).toEqual({ orders: before.orders, nonces: before.nonces + 3 });
  });

  it('a replayed request after the cache was warmed is refused with AUTH_NONCE_REUSED; one order stored', async () => {
    const { m, clock, url, counting, counts, warm } = await setup();
    await warm();
    const before = await counts();
    const body: Record<string, unknown> = {
      api_key: m.apiKey,
      timestamp: clock.now(),
      nonce: newNonce(),
      order_type: 1,
      cny_amount: '100.00',
      paychannel_id: m.channels.gamma,
      paychannel_paymethod: 'alipay',
    };
    body.signature = computeSignature(body as never, m.apiSecret);
    const text = JSON.stringify(body);
    const rawPost = async () => {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
      return { status: res.status, body: (await res.json()) as Answer['body'] };
    };
    const [first, firstAlone] = await counting(rawPost);
    expect(first.body.code).toBe(1);
    expect(firstAlone).toBe(ONE);
    const [replay, replayAlone] = await counting(rawPost);
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({ code: ErrorCode.AUTH_NONCE_REUSED, msg: 'nonce: already used with this api_key', data: null });
    expect(replayAlone).toBe(ONE); // the statement declined (the nonce is used); the unit of work refused it
    expect(await counts()).toEqual({ orders: before.orders + 1, nonces: before.nonces + 1 });
    // The replay's unit of work cached the merchant again and the link stayed: a third sending is declined by
    // the statement again, then refused.
    const [again, againAlone] = await counting(rawPost);
    expect(again.body.code).toBe(ErrorCode.AUTH_NONCE_REUSED);
    expect(againAlone).toBe(ONE);
  });

  it('a request first answered by the unit of work and replayed on the fast path is refused too', async () => {
    const { client, buy, post, counting, counts } = await setup();
    const body = client.signBody(buy);
    const [first, viaUnit] = await counting(() => post(body)); // warms the caches
    expect(first.body.code).toBe(1);
    expect(viaUnit).toBe(0);
    const [replay, alone] = await counting(() => post(body));
    expect(replay.body).toEqual({ code: ErrorCode.AUTH_NONCE_REUSED, msg: 'nonce: already used with this api_key', data: null });
    expect(alone).toBe(ONE);
    expect(await counts()).toEqual({ orders: 1, nonces: 1 });
  });

  it('sell orders and Idempotency-Key requests never take the fast path', async () => {
    const { m, client, post, create, counting, counts, warm } = await setup();
    await warm();
    const sell = { order_type: 2, cny_amount: '100.00', paychannel_id: m.channels.gamma, paychannel_paymethod: 'bank' };
    for (let i = 0; i < 2; i++) {
      const [res, alone] = await counting(() => post(client.signBody(sell)));
      expect(res.body, res.body.msg).toMatchObject({ code: 1, data: { order_type: 2 } });
      expect(alone).toBe(0);
    }
    for (const key of ['alone-key-1', 'alone-key-2']) {
      const [res, alone] = await counting(() => create({}, undefined, { 'idempotency-key': key }));
      expect(res.body).toMatchObject({ code: 1, data: { order_type: 1 } });
      expect(alone).toBe(0);
    }
    // The key's replay answers the first order, still without the fast path.
    const [replayed, none] = await counting(() => create({}, undefined, { 'idempotency-key': 'alone-key-1' }));
    expect(replayed.body.code).toBe(1);
    expect(none).toBe(0);
    expect(await counts()).toEqual({ orders: 2 + 2 + 2, nonces: 2 + 2 + 3 });
    // The cache was warm all along: a plain buy order goes fast.
    const [buy, alone] = await counting(() => create());
    expect(buy.body.code).toBe(1);
    expect(alone).toBe(ONE);
  });

  it('a request that finds the cache stale and falls back counts once against the per-api_key rate limit', async () => {
    const limit = 5;
    // Per hour: no token comes back while the test runs.
    const { service, m, create, counting, counts } = await setup({ rateLimits: { perApiKey: { limit, periodSeconds: 3600 }, perAddress: null } });
    const deltas: number[] = [];
    const step = async () => {
      const [res, alone] = await counting(() => create());
      deltas.push(alone);
      return res;
    };
    expect((await step()).body.code).toBe(1); // unit of work: warms the caches
    expect((await step()).body.code).toBe(1); // a unit of its own
    await write(service, (tx) => service.services.channels.update(tx, { id: m.channels.gamma, service_rate: '0.01' }));
    const fallback = await step(); // the statement finds the channel changed; the unit of work writes the order
    expect(fallback.body).toMatchObject({ code: 1, data: { service_amount: 100 } });
    expect((await step()).body.code).toBe(1);
    expect((await step()).body.code).toBe(1);
    expect(deltas).toEqual([0, ONE, ONE, ONE, ONE]);
    const before = await counts();
    expect(before).toEqual({ orders: limit, nonces: limit });

    const limited = await step();
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ code: ErrorCode.RATE_LIMITED, msg: expect.stringContaining('api_key'), data: null });
    expect(await counts()).toEqual(before);
  });
});
