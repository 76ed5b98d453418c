/**
 * orders.insertWithNonceIfCurrent: the unit of its own (Store.writeAlone) of
 * a buy order on the fast path. It inserts the nonce and the order only while
 * the row generation (migrations 0010 and 0011) is the one the claim names
 * and the nonce is unused (PostgreSQL: in one statement): a changed
 * merchant, link or channel, or a used nonce, is 'declined', an order number
 * or pay token already stored 'taken' — and each of those leaves nothing
 * behind, not even the nonce.
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

/** The row generation now (what the request-auth and channel services cache the rows with). */
function generationNow(service: MerchantConsoleService): Promise<string> {
  return read(service, async (tx) => (await tx.get<{ generation: string }>('SELECT generation FROM row_generation WHERE id = 1'))!.generation);
}

/** A merchant whose merchant, link and channel rows were last written by three different transactions. */
async function setup() {
  const service = await testService();
  const m = await seedMerchant(service);
  const channelId = m.channels.gamma;
  await write(service, (tx) => service.services.channels.update(tx, { id: channelId, name: 'gamma, renamed' }));
  await write(service, (tx) => tx.run('UPDATE merchant_channels SET createtime = createtime + 1 WHERE merchant_id = ? AND channel_id = ?', [m.id, channelId]));
  await write(service, (tx) => service.services.merchants.update(tx, { id: m.id, name: 'Renamed' }));
  const generation = await generationNow(service);
  const claim = (over: Partial<CurrentRowsClaim> = {}): CurrentRowsClaim => ({
    apiKey: m.apiKey,
    nonce: `nonce_${++seq}_abcdef`,
    nonceExpiresAt: NOW + 600,
    merchantId: m.id,
    channelId,
    generation,
    linkGeneration: generation,
    ...over,
  });
  const insert = (c: CurrentRowsClaim, row: NewOrderRow) => service.store.writeAlone((tx) => orders.insertWithNonceIfCurrent(tx, c, row));
  const stored = () => read(service, (tx) => tx.all<Record<string, unknown>>('SELECT * FROM orders ORDER BY id'));
  const nonces = () => read(service, (tx) => tx.all<{ api_key: string; nonce: string; expires_at: number }>('SELECT api_key, nonce, expires_at FROM nonces ORDER BY nonce'));
  return { service, m, channelId, generation, claim, insert, stored, nonces };
}

describe(`insertWithNonceIfCurrent (${TEST_ENGINE})`, () => {
  it('a claim with another generation for the merchant or the link, or two different ones: declined, and neither nonce nor order', async () => {
    const { m, channelId, generation, claim, insert, stored, nonces } = await setup();
    expect(generation).toMatch(/^[0-9a-f]{16}$/);
    for (const wrong of [{ generation: '0123456789abcdef' }, { linkGeneration: '0123456789abcdef' }, { generation: '0123456789abcdef', linkGeneration: '0123456789abcdef' }]) {
      expect(await insert(claim(wrong), orderRow(m.id, channelId))).toBe('declined');
    }
    expect(await stored()).toEqual([]);
    expect(await nonces()).toEqual([]);
  });

  it('with the current generation: stores the nonce and the order, and answers the stored row', async () => {
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

  it('declined once a row is updated after it was read (merchant, channel, link), or the link is gone', async () => {
    const { service, m, channelId, claim, insert, stored, nonces } = await setup();
    const row = () => orderRow(m.id, channelId);
    // The generation read now, staked after each change.
    const before = claim();
    await write(service, (tx) => service.services.merchants.update(tx, { id: m.id, name: 'Renamed again' }));
    expect(await insert({ ...before, nonce: 'nonce_merchant_changed' }, row())).toBe('declined');
    const afterMerchant = await generationNow(service);
    await write(service, (tx) => service.services.channels.update(tx, { id: channelId, service_rate: '0.01' }));
    expect(await insert(claim({ generation: afterMerchant, linkGeneration: afterMerchant }), row())).toBe('declined');
    const afterChannel = await generationNow(service);
    await write(service, (tx) => tx.run('UPDATE merchant_channels SET service_rate = ? WHERE merchant_id = ? AND channel_id = ?', ['0.02', m.id, channelId]));
    expect(await insert(claim({ generation: afterChannel, linkGeneration: afterChannel }), row())).toBe('declined');
    const current = await generationNow(service);
    await write(service, (tx) => service.services.channels.unlink(tx, m.id, channelId));
    expect(await insert(claim({ generation: current, linkGeneration: current }), row())).toBe('declined');
    expect(await stored()).toEqual([]);
    expect(await nonces()).toEqual([]);
  });

  it.runIf(TEST_ENGINE === 'sqlite')('SQLite, one batch: a unit of write that changes the merchant between units makes the later ones declined, though an earlier one found the generation current', async () => {
    const { service, m, channelId, claim, insert, stored, nonces } = await setup();
    const [c1, c2, c3] = [claim(), claim(), claim()];
    const commits = service.store.stats.commits;
    // Started together: one batch, one transaction, in this order.
    const [first, second, , third] = await Promise.all([
      insert(c1, orderRow(m.id, channelId)),
      insert(c2, orderRow(m.id, channelId)),
      write(service, (tx) => service.services.merchants.update(tx, { id: m.id, name: 'Renamed in the batch' })),
      insert(c3, orderRow(m.id, channelId)),
    ]);
    expect(service.store.stats.commits).toBe(commits + 1);
    expect(first).toMatchObject({ id: expect.any(Number) });
    expect(second).toMatchObject({ id: expect.any(Number) });
    expect(third).toBe('declined');
    expect((await stored()).map((o) => o.id)).toEqual([(first as { id: number }).id, (second as { id: number }).id]);
    expect((await nonces()).map((n) => n.nonce).sort()).toEqual([c1.nonce, c2.nonce].sort());
  });

  it.runIf(TEST_ENGINE === 'sqlite')('SQLite, one batch: a used nonce after the generation was found current is declined and stores nothing', async () => {
    const { m, channelId, claim, insert, stored, nonces } = await setup();
    const c = claim();
    const [first, replay] = await Promise.all([insert(c, orderRow(m.id, channelId)), insert({ ...c }, orderRow(m.id, channelId))]);
    expect(first).toMatchObject({ id: expect.any(Number) });
    expect(replay).toBe('declined');
    expect(await stored()).toEqual([first]);
    expect(await nonces()).toEqual([{ api_key: m.apiKey, nonce: c.nonce, expires_at: c.nonceExpiresAt }]);
  });

  it('an order of another merchant or channel than the claim names: declined (the claim says nothing of its rows)', async () => {
    const { service, m, channelId, claim, insert, stored, nonces } = await setup();
    const other = await seedMerchant(service, 'Other');
    const current = await generationNow(service);
    expect(await insert(claim({ generation: current, linkGeneration: current }), orderRow(other.id, channelId))).toBe('declined');
    expect(await insert(claim({ generation: current, linkGeneration: current }), orderRow(m.id, m.channels.beta))).toBe('declined');
    expect(await stored()).toEqual([]);
    expect(await nonces()).toEqual([]);
  });

  it('a nonce used already: declined (the unit of work then refuses the replay), no order, and the stored nonce unchanged', async () => {
    const { m, channelId, claim, insert, stored, nonces } = await setup();
    const c = claim();
    const first = await insert(c, orderRow(m.id, channelId));
    expect(first).toMatchObject({ id: expect.any(Number) });
    expect(await insert({ ...c, nonceExpiresAt: c.nonceExpiresAt + 100 }, orderRow(m.id, channelId))).toBe('declined');
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
