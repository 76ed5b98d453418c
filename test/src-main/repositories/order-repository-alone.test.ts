/**
 * orders.insertWithNonceIfCurrent: the unit of its own (Store.writeAlone) of
 * a buy order on the fast path. It inserts the nonce and the order only while
 * the merchant, its link to the channel and the channel keep the versions
 * the claim names (PostgreSQL: the rows' xmin, in one statement; SQLite: the
 * file's row generation, migration 0010): a changed row is 'stale', a used
 * nonce 'replay', an order number or pay token already stored 'taken' — and
 * each of those leaves nothing behind, not even the nonce.
 */
import { describe, expect, it } from 'vitest';
import { createOrderRepository, type CurrentRowsClaim, type NewOrderRow } from '../../../src-main/repositories/order-repository';
import type { MerchantConsoleService } from '../../../src-main/service';
import { read, rowCount, seedMerchant, testService, write } from '../../support/service-harness';
import { TEST_ENGINE } from '../../support/test-engine';

const orders = createOrderRepository();
const NOW = 1_800_000_000;
let seq = 0;

function orderRow(merchantId: number, channelId: number, over: Partial<NewOrderRow> = {}): NewOrderRow {
  const n = ++seq;
  return {
    order_no: `B${NOW}${String(n).padStart(14, '0')}`,
    merchant_id: merchantId,
    channel_id: channelId,
    order_type: 1,
    status: 'pending',
    pay_method: 'alipay',
    cny_amount: 10_050,
    service_rate: '0.006',
    passage_rate: '0.002',
    deposit_rate: 50,
    base_rate: 30,
    service_amount: 60,
    passage_amount: 0,
    deposit_amount: 50,
    channel_amount: 0,
    merchant_actual_amount: 9_940,
    customer_name: '张三',
    payment_method_id: null,
    payment_method_snapshot: null,
    customer_payment_method: null,
    alpha_data_enc: null,
    pay_token: `tok_${String(n).padStart(28, '0')}`,
    pay_url: `http://127.0.0.1/pay/tok_${n}`,
    expires_at: NOW + 900,
    createtime: NOW,
    ...over,
  };
}

interface Versions {
  merchantVersion: string;
  linkVersion: string;
  channelVersion: string;
}

/** The versions the services read with the rows (as the request-auth and channel services cache them). */
function versionsOf(service: MerchantConsoleService, merchantId: number, channelId: number): Promise<Versions> {
  return read(service, async (tx) =>
    (await tx.get<Versions>(
      TEST_ENGINE === 'postgres'
        ? `SELECT m.xmin::text AS "merchantVersion", l.xmin::text AS "linkVersion", c.xmin::text AS "channelVersion"
           FROM merchants m JOIN merchant_channels l ON l.merchant_id = m.id JOIN channels c ON c.id = l.channel_id
           WHERE m.id = ? AND c.id = ?`
        : `SELECT g.generation AS merchantVersion, g.generation AS linkVersion, g.generation AS channelVersion
           FROM merchant_channels l JOIN row_generation g ON g.id = 1 WHERE l.merchant_id = ? AND l.channel_id = ?`,
      [merchantId, channelId],
    ))!,
  );
}

/** A merchant whose merchant, link and channel rows were last written by three different transactions (three versions). */
async function setup() {
  const service = await testService();
  const m = await seedMerchant(service);
  const channelId = m.channels.gamma;
  await write(service, (tx) => service.services.channels.update(tx, { id: channelId, name: 'gamma, renamed' }));
  await write(service, (tx) => tx.run('UPDATE merchant_channels SET createtime = createtime + 1 WHERE merchant_id = ? AND channel_id = ?', [m.id, channelId]));
  await write(service, (tx) => service.services.merchants.update(tx, { id: m.id, name: 'Renamed' }));
  const versions = await versionsOf(service, m.id, channelId);
  const claim = (over: Partial<CurrentRowsClaim> = {}): CurrentRowsClaim => ({
    apiKey: m.apiKey,
    nonce: `nonce_${++seq}_abcdef`,
    nonceExpiresAt: NOW + 600,
    merchantId: m.id,
    channelId,
    ...versions,
    ...over,
  });
  const insert = (c: CurrentRowsClaim, row: NewOrderRow) => service.store.writeAlone((tx) => orders.insertWithNonceIfCurrent(tx, c, row));
  const stored = () => read(service, (tx) => tx.all<Record<string, unknown>>('SELECT * FROM orders ORDER BY id'));
  const nonces = () => read(service, (tx) => tx.all<{ api_key: string; nonce: string; expires_at: number }>('SELECT * FROM nonces ORDER BY nonce'));
  return { service, m, channelId, versions, claim, insert, stored, nonces };
}

describe(`insertWithNonceIfCurrent (${TEST_ENGINE})`, () => {
  it.runIf(TEST_ENGINE === 'postgres')('PostgreSQL: the three rows have versions of their own (a claim that mixes them up is caught)', async () => {
    const { versions } = await setup();
    expect(new Set(Object.values(versions)).size).toBe(3);
  });

  it.runIf(TEST_ENGINE === 'sqlite')('SQLite: one generation stands for the three rows; a claim with another in any place is stale', async () => {
    const { m, channelId, versions, claim, insert, stored, nonces } = await setup();
    expect(new Set(Object.values(versions)).size).toBe(1);
    expect(versions.merchantVersion).toMatch(/^[0-9a-f]{16}$/);
    for (const place of ['merchantVersion', 'linkVersion', 'channelVersion'] as const) {
      expect(await insert(claim({ [place]: '0123456789abcdef' }), orderRow(m.id, channelId))).toBe('stale');
    }
    expect(await stored()).toEqual([]);
    expect(await nonces()).toEqual([]);
  });

  it('with the current versions: stores the nonce and the order, and answers the stored row', async () => {
    const { service, m, channelId, claim, insert, stored, nonces } = await setup();
    const c = claim();
    const row = orderRow(m.id, channelId);
    const alone = service.store.stats.alone;
    const out = await insert(c, row);
    expect(out).toEqual({ ...row, id: expect.any(Number), updatetime: row.createtime });
    expect(service.store.stats.alone).toBe(alone + 1);
    expect(await stored()).toEqual([out]);
    expect(await nonces()).toEqual([{ api_key: m.apiKey, nonce: c.nonce, expires_at: c.nonceExpiresAt }]);
    // The order counters' trigger ran as for any insert.
    expect(await read(service, (tx) => tx.get('SELECT sum(n) AS n FROM order_counts WHERE merchant_id = ?', [m.id]))).toEqual({ n: 1 });
    // A second order with a nonce of its own: both stored.
    const second = await insert(claim(), orderRow(m.id, channelId));
    expect(second).toMatchObject({ id: expect.any(Number) });
    expect(await rowCount(service, 'orders')).toBe(2);
    expect(await rowCount(service, 'nonces')).toBe(2);
  });

  it.runIf(TEST_ENGINE === 'postgres').each([
    ['merchant', (v: Versions) => ({ merchantVersion: v.linkVersion })],
    ['link', (v: Versions) => ({ linkVersion: v.channelVersion })],
    ['channel', (v: Versions) => ({ channelVersion: v.merchantVersion })],
    ['link and channel swapped', (v: Versions) => ({ linkVersion: v.channelVersion, channelVersion: v.linkVersion })],
    ['merchant, not a version at all', () => ({ merchantVersion: '0' })],
  ])('a wrong %s version: stale, and neither nonce nor order', async (_name, wrong) => {
    const { m, channelId, versions, claim, insert, stored, nonces } = await setup();
    expect(await insert(claim(wrong(versions)), orderRow(m.id, channelId))).toBe('stale');
    expect(await stored()).toEqual([]);
    expect(await nonces()).toEqual([]);
  });

  it('stale once a row is updated after it was read (merchant, channel, link), or the link is gone', async () => {
    const { service, m, channelId, claim, insert, stored, nonces } = await setup();
    const row = () => orderRow(m.id, channelId);
    // Versions read now, staked after each change.
    const before = claim();
    await write(service, (tx) => service.services.merchants.update(tx, { id: m.id, name: 'Renamed again' }));
    expect(await insert({ ...before, nonce: 'nonce_merchant_changed' }, row())).toBe('stale');
    const afterMerchant = await versionsOf(service, m.id, channelId);
    await write(service, (tx) => service.services.channels.update(tx, { id: channelId, service_rate: '0.01' }));
    expect(await insert(claim(afterMerchant), row())).toBe('stale');
    const afterChannel = await versionsOf(service, m.id, channelId);
    await write(service, (tx) => tx.run('UPDATE merchant_channels SET service_rate = ? WHERE merchant_id = ? AND channel_id = ?', ['0.02', m.id, channelId]));
    expect(await insert(claim(afterChannel), row())).toBe('stale');
    const current = await versionsOf(service, m.id, channelId);
    await write(service, (tx) => service.services.channels.unlink(tx, m.id, channelId));
    expect(await insert(claim(current), row())).toBe('stale');
    // Another merchant's id with these versions: not its rows.
    const other = await seedMerchant(service, 'Other');
    expect(await insert(claim({ ...current, merchantId: other.id }), row())).toBe('stale');
    expect(await stored()).toEqual([]);
    expect(await nonces()).toEqual([]);
  });

  it('stale for a merchant and channel that are not linked, with versions current otherwise', async () => {
    const { service, m, channelId, claim, insert, stored, nonces } = await setup();
    const other = await seedMerchant(service, 'Other');
    expect(await read(service, (tx) => tx.get('SELECT count(*) AS n FROM merchant_channels WHERE merchant_id = ? AND channel_id = ?', [other.id, channelId]))).toEqual({ n: 0 });
    // The merchant's versions and the channel's as they are now (on SQLite: the one generation).
    const mine = await versionsOf(service, m.id, channelId);
    const theirs = await versionsOf(service, other.id, other.channels.gamma);
    const c = claim({ merchantId: other.id, apiKey: other.apiKey, merchantVersion: theirs.merchantVersion, linkVersion: mine.linkVersion, channelVersion: mine.channelVersion });
    expect(await insert(c, orderRow(other.id, channelId))).toBe('stale');
    // An order of another merchant than the claim's: stale too.
    expect(await insert(claim({ ...mine }), orderRow(other.id, channelId))).toBe('stale');
    expect(await stored()).toEqual([]);
    expect(await nonces()).toEqual([]);
  });

  it('a nonce used already: replay, no order, and the stored nonce unchanged', async () => {
    const { m, channelId, claim, insert, stored, nonces } = await setup();
    const c = claim();
    const first = await insert(c, orderRow(m.id, channelId));
    expect(first).toMatchObject({ id: expect.any(Number) });
    expect(await insert({ ...c, nonceExpiresAt: c.nonceExpiresAt + 100 }, orderRow(m.id, channelId))).toBe('replay');
    expect(await stored()).toEqual([first]);
    expect(await nonces()).toEqual([{ api_key: m.apiKey, nonce: c.nonce, expires_at: c.nonceExpiresAt }]);
  });

  it('an order number or pay token stored already: taken, and nothing stored (no nonce)', async () => {
    const { service, m, channelId, claim, insert, stored, nonces } = await setup();
    const first = await insert(claim(), orderRow(m.id, channelId));
    const firstRow = first as NewOrderRow;
    const noncesBefore = await nonces();
    expect(noncesBefore).toHaveLength(1);
    const alone = service.store.stats.alone;

    const sameNo = claim();
    expect(await insert(sameNo, orderRow(m.id, channelId, { order_no: firstRow.order_no }))).toBe('taken');
    const sameToken = claim();
    expect(await insert(sameToken, orderRow(m.id, channelId, { pay_token: firstRow.pay_token }))).toBe('taken');
    expect(await stored()).toEqual([first]);
    expect(await nonces()).toEqual(noncesBefore);
    // A 'taken' answer is a unit of its own like any other (nothing of it was stored).
    expect(service.store.stats.alone).toBe(alone + 2);

    // The same nonce is still free: the retry with a new order number succeeds.
    const retried = await insert(sameNo, orderRow(m.id, channelId));
    expect(retried).toMatchObject({ id: expect.any(Number) });
    expect(await rowCount(service, 'orders')).toBe(2);
    expect((await nonces()).map((n) => n.nonce)).toContain(sameNo.nonce);
  });
});
