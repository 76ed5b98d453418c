import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src-shared/errors';
import type { MerchantClient } from '../../../src-shared/client/merchant-client';
import { clientFor, manualClock, read, rowCount, seedMerchant, testListener, testService, write } from '../../support/service-harness';
import { expectLedgerConsistent, fund, writeFootprint } from '../../support/money';
import { rawRequest } from '../../support/http-raw';

async function setup() {
  const clock = manualClock(Math.floor(Date.now() / 1000));
  const service = await testService({ clock });
  const listener = await testListener(service);
  const m = await seedMerchant(service, 'Idem', { balance: 1_000_000 });
  const client = clientFor(listener, m, { now: clock.now });
  const url = `${listener.url}/addons/paychannel/merchant/createOrder`;
  /** A freshly signed createOrder (new nonce and timestamp every time), raw answer. */
  const create = async (body: Record<string, unknown>, key?: string, c: MerchantClient = client) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
      body: JSON.stringify(c.signBody(body)),
    });
    const text = await res.text();
    return { status: res.status, text, json: JSON.parse(text) as { code: number; msg: string; data: { order_no: string } | null }, replayed: res.headers.get('idempotent-replayed') };
  };
  return { clock, service, listener, m, client, create };
}

const BUY = { order_type: 1, cny_amount: '100.50', paychannel_id: 0, paychannel_paymethod: 'alipay', customer_name: '张三' };

describe('createOrder Idempotency-Key', () => {
  it('the same key and parameters replay the first answer byte for byte and create nothing', async () => {
    const { clock, service, m, create } = await setup();
    const body = { ...BUY, paychannel_id: m.channels.beta };
    const first = await create(body, 'order-7f3a');
    expect(first.status).toBe(200);
    expect(first.replayed).toBeNull();
    clock.advance(7); // a later retry: other timestamp, nonce and signature
    const again = await create(body, 'order-7f3a');
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.replayed).toBe('true');
    expect(await rowCount(service, 'orders')).toBe(1);
    // Without the header nothing is deduplicated.
    expect((await create(body)).json.data!.order_no).not.toBe(first.json.data!.order_no);
    expect(await rowCount(service, 'orders')).toBe(2);
  });

  it('a sell replayed reserves its funds once', async () => {
    const { service, m, create } = await setup();
    const sell = { order_type: 2, cny_amount: '100.00', paychannel_id: m.channels.gamma, paychannel_paymethod: 'bank' };
    const first = await create(sell, 'sell-1');
    const replay = await create(sell, 'sell-1');
    expect(replay.text).toBe(first.text);
    expect(await read(service, (tx) => service.services.ledger.balances(tx, m.id))).toEqual({ available: 1_000_000 - 10_130, frozen: 10_130, deposit: 0 });
    expect(await rowCount(service, 'ledger_transactions')).toBe(2); // funding + one freeze
    await expectLedgerConsistent(service);
  });

  it('the same key with different parameters is a 409 and writes nothing', async () => {
    const { service, m, create } = await setup();
    await create({ ...BUY, paychannel_id: m.channels.beta }, 'k1');
    const before = await writeFootprint(service);
    for (const changed of [
      { ...BUY, paychannel_id: m.channels.beta, cny_amount: '100.51' },
      { ...BUY, paychannel_id: m.channels.gamma },
      { ...BUY, paychannel_id: m.channels.beta, customer_name: '李四' },
      { ...BUY, paychannel_id: m.channels.beta, cny_amount: 100.5 }, // same value, other parameter text
    ]) {
      const res = await create(changed, 'k1');
      expect([res.status, res.json.code, res.json.msg, res.json.data]).toEqual([409, ErrorCode.IDEMPOTENCY_MISMATCH, 'Idempotency-Key: already used with different parameters', null]);
    }
    // Only the nonces of the refused requests were written.
    expect(await writeFootprint(service)).toEqual(before);
  });

  it('keys are per merchant and kept 24 h', async () => {
    const { clock, service, listener, m, create } = await setup();
    const other = await seedMerchant(service, 'Other', { balance: 1_000_000 });
    const otherClient = clientFor(listener, other, { now: clock.now });
    const a = await create({ ...BUY, paychannel_id: m.channels.beta }, 'shared-key');
    const b = await create({ ...BUY, paychannel_id: other.channels.beta }, 'shared-key', otherClient);
    expect(b.status).toBe(200);
    expect(b.json.data!.order_no).not.toBe(a.json.data!.order_no);

    clock.advance(24 * 3600 - 1);
    expect((await create({ ...BUY, paychannel_id: m.channels.beta }, 'shared-key')).text).toBe(a.text);
    clock.advance(1);
    const fresh = await create({ ...BUY, paychannel_id: m.channels.beta }, 'shared-key');
    expect(fresh.replayed).toBeNull();
    expect(fresh.json.data!.order_no).not.toBe(a.json.data!.order_no);
    expect(await write(service, (tx) => service.services.idempotency.purgeExpired(tx, 100))).toBe(1); // the other merchant's
  });

  it('a refused first request stores nothing: the key can be used again', async () => {
    const { service, m, create } = await setup();
    const sell = { order_type: 2, cny_amount: '20000.00', paychannel_id: m.channels.beta, paychannel_paymethod: 'bank' };
    const refused = await create(sell, 'big-sell');
    expect([refused.status, refused.json.code]).toEqual([409, ErrorCode.INSUFFICIENT_BALANCE]);
    expect(await rowCount(service, 'idempotency_keys')).toBe(0);
    await fund(service, m.id, 2_100_000, 'top up');
    const ok = await create(sell, 'big-sell');
    expect(ok.status).toBe(200);
  });

  it('concurrent requests with one key create one order and all answer the same', async () => {
    const { service, m, create } = await setup();
    const body = { ...BUY, paychannel_id: m.channels.beta };
    const answers = await Promise.all(Array.from({ length: 5 }, () => create(body, 'burst')));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers.filter((a) => a.replayed === 'true')).toHaveLength(4);
    expect(await rowCount(service, 'orders')).toBe(1);
  });

  it('ten concurrent sells with one key create one order, reserve its funds once, and all answer the same bytes', async () => {
    // On PostgreSQL these requests really run at the same time: the first unit of work to claim the key writes,
    // the others wait on its claim and then replay the stored answer (idempotency-service `once`).
    const { service, m, create } = await setup();
    const sell = { order_type: 2, cny_amount: '100.00', paychannel_id: m.channels.gamma, paychannel_paymethod: 'bank' };
    const answers = await Promise.all(Array.from({ length: 10 }, () => create(sell, 'burst-sell')));
    expect(answers.map((a) => [a.status, a.json.code])).toEqual(Array.from({ length: 10 }, () => [200, 1]));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers.filter((a) => a.replayed === null)).toHaveLength(1);
    expect(answers.filter((a) => a.replayed === 'true')).toHaveLength(9);
    expect(await rowCount(service, 'orders')).toBe(1);
    expect(await rowCount(service, 'idempotency_keys')).toBe(1);
    const stored = await read(service, (tx) => tx.get<{ order_no: string }>('SELECT order_no FROM orders'));
    expect(answers[0]!.json.data!.order_no).toBe(stored!.order_no);
    expect(await read(service, (tx) => service.services.ledger.balances(tx, m.id))).toEqual({ available: 1_000_000 - 10_130, frozen: 10_130, deposit: 0 });
    expect(await rowCount(service, 'ledger_transactions')).toBe(2); // funding + one freeze
    await expectLedgerConsistent(service);
  });

  it('refuses a malformed key with a 400 naming the header, creating nothing', async () => {
    const { service, m, create } = await setup();
    const body = { ...BUY, paychannel_id: m.channels.beta };
    for (const key of ['', 'x'.repeat(256), 'caf\u00e9', 'tab\there']) {
      const res = await create(body, key);
      expect([key, res.status, res.json.code, res.json.msg]).toEqual([key, 400, ErrorCode.VALIDATION, expect.stringMatching(/^Idempotency-Key: /)]);
    }
    expect(await rowCount(service, 'orders')).toBe(0);
    expect((await create(body, 'x'.repeat(255))).status).toBe(200);
    expect((await create(body, ' ~!"#$%&()*+,-./:;<=>?@[]^_`{|}~'.trim())).status).toBe(200);
  });

  it('refuses a repeated header (Node would join the lines into one valid-looking key) with a 400, creating nothing', async () => {
    const { service, listener, m, client } = await setup();
    const body = { ...BUY, paychannel_id: m.channels.beta };
    for (const keys of [['dup-a', 'dup-b'], ['same', 'same']]) {
      const res = await rawRequest(listener.url, 'POST', '/addons/paychannel/merchant/createOrder', {
        headers: { 'content-type': 'application/json', 'idempotency-key': keys },
        body: JSON.stringify(client.signBody(body)),
      });
      expect([keys, res.status, res.json()]).toEqual([keys, 400, { code: ErrorCode.VALIDATION, msg: 'Idempotency-Key: given more than once', data: null }]);
    }
    expect(await rowCount(service, 'orders')).toBe(0);
  });
});
