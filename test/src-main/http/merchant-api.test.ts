/**
 * The merchant endpoints over real HTTP on 127.0.0.1, with a real store
 * (SQLite file or PostgreSQL database) and real signatures: success shapes, every error class, isolation,
 * replay and clock skew.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { computeSignature } from '../../../src-shared/client/sign';
import { newNonce } from '../../../src-shared/client/merchant-client';
import { parseJsonLossless, type JsonObject } from '../../../src-shared/json/lossless-json';
import { openService } from '../../../src-main/service';
import { clientFor, manualClock, read, rowCount, seedMerchant, testListener, testService, write } from '../../support/service-harness';
import { databaseUrlFor } from '../../support/test-engine';
import { ALPHA_CARD, ALPHA_PERSONAL } from '../../support/alpha-fixtures';

const PREFIX = '/addons/paychannel/merchant';

async function setup() {
  const service = await testService();
  const listener = await testListener(service);
  const merchant = await seedMerchant(service, 'Alpha Merchant', { balance: 10_000_000 });
  const client = clientFor(listener, merchant);
  return { service, listener, merchant, client };
}

/** POST a raw body (string) with optional headers, no client help. */
async function rawPost(url: string, body: string | undefined, headers: Record<string, string> = { 'content-type': 'application/json' }) {
  const res = await fetch(url, { method: 'POST', headers, ...(body === undefined ? {} : { body }) });
  return { status: res.status, body: (await res.json()) as { code: number; msg: string; data: unknown } };
}

describe('createOrder (buy)', () => {
  it('creates a pending buy order with the spec fields, fees in fen and a pay_url', async () => {
    const { client, merchant, listener } = await setup();
    const res = await client.createOrder({
      order_type: 1,
      cny_amount: '100.50',
      paychannel_id: merchant.channels.gamma,
      paychannel_paymethod: 'alipay',
      customer_name: '张三',
    });
    expect(res.status).toBe(200);
    expect(res.body.code).toBe(1);
    expect(res.body.msg).toBe('Order created');
    expect(res.body.time).toMatch(/^[0-9]{10}$/);
    const data = res.body.data as Record<string, unknown>;
    expect(Object.keys(data).sort()).toEqual(
      ['order_no', 'status', 'order_type', 'cny_amount', 'payment_method', 'merchant_amount', 'deposit_amount', 'service_amount', 'merchant_actual_amount', 'pay_url', 'createtime'].sort(),
    );
    expect(data).toMatchObject({
      status: 'pending',
      order_type: 1,
      cny_amount: '100.50',
      payment_method: 'alipay',
      merchant_amount: '100.50',
      service_amount: 60, // R(10050 × 0.006) = R(60.3)
      deposit_amount: 50, // R(10050 × 50 / 10000) = R(50.25)
      merchant_actual_amount: 9940,
    });
    expect(data.order_no).toMatch(/^B[0-9]{24}$/);
    expect(data.pay_url).toMatch(new RegExp(`^${listener.url}/pay/[A-Za-z0-9_-]{32}$`));
  });

  it('accepts the amount as a JSON number without losing digits, for md5 merchants too', async () => {
    const { service, listener } = await setup();
    const md5Merchant = await seedMerchant(service, 'MD5 Merchant', { signType: 'md5' });
    const text = JSON.stringify({
      api_key: md5Merchant.apiKey,
      timestamp: Math.floor(Date.now() / 1000),
      nonce: newNonce(),
      order_type: 1,
      cny_amount: 'AMOUNT',
      paychannel_id: md5Merchant.channels.beta,
      paychannel_paymethod: 'wxpay',
    }).replace('"AMOUNT"', '100.50');
    // Signed over the raw number text "100.50", exactly as the server sees it.
    const signature = computeSignature(parseJsonLossless(text) as JsonObject, md5Merchant.apiSecret, 'md5');
    const res = await rawPost(`${listener.url}${PREFIX}/createOrder`, text.replace(/}$/, `,"signature":"${signature}"}`));
    expect(res.body).toMatchObject({ code: 1, data: { cny_amount: '100.50' } });
  });
});

describe('createOrder (sell)', () => {
  it('creates a sell on a beta channel paying out to the settlement account', async () => {
    const { client, merchant } = await setup();
    const res = await client.createOrder({ order_type: 2, cny_amount: '100.50', paychannel_id: merchant.channels.beta, paychannel_paymethod: 'bank' });
    expect(res.body.code).toBe(1);
    const data = res.body.data as Record<string, unknown>;
    expect(Object.keys(data).sort()).toEqual(
      [
        'order_id', 'order_no', 'status', 'order_type', 'cny_amount', 'payment_method_id', 'payment_method_snapshot', 'merchant_amount',
        'passage_rate', 'passage_amount', 'deposit_rate', 'deposit_amount', 'service_amount', 'channel_amount', 'merchant_actual_amount',
        'base_rate', 'customer_payment_method', 'createtime',
      ].sort(),
    );
    expect(data).toMatchObject({
      status: 'pending',
      order_type: 2,
      cny_amount: '100.50',
      merchant_amount: '100.50',
      passage_rate: '0.002',
      passage_amount: 20,
      deposit_rate: 50,
      deposit_amount: 50,
      service_amount: 60,
      channel_amount: 30,
      base_rate: 30,
      merchant_actual_amount: 10050 + 60 + 20 + 50,
      payment_method_snapshot: { bank: '中国银行', sub_bank: '上海分行', card_number: '621700*********4567', real_name: '测试' },
    });
    expect(typeof data.order_id).toBe('string');
    expect((data.customer_payment_method as Record<string, string>).full_info).toContain('621700*********4567');
  });

  const personal = ALPHA_PERSONAL;
  const card = ALPHA_CARD;

  it('requires both alpha objects on alpha channels and refuses them elsewhere', async () => {
    const { client, merchant, service } = await setup();
    const base = { order_type: 2, cny_amount: '10.00', paychannel_paymethod: 'bank' };
    const missing = await client.createOrder({ ...base, paychannel_id: merchant.channels.alpha, alpha_personal_data: personal });
    expect(missing.status).toBe(400);
    expect(missing.body.msg).toBe('alpha_card_info: is required on alpha channels');
    const extra = await client.createOrder({ ...base, paychannel_id: merchant.channels.beta, alpha_personal_data: personal, alpha_card_info: card });
    expect(extra.status).toBe(400);
    expect(extra.body.msg).toBe('alpha_personal_data: not accepted on beta channels');
    const bad = await client.createOrder({
      ...base,
      paychannel_id: merchant.channels.alpha,
      alpha_personal_data: { ...personal, cert_validity_type: '0' },
      alpha_card_info: card,
    });
    expect(bad.body.msg).toBe('alpha_personal_data.cert_end_date: is required when cert_validity_type is 0');
    expect(await rowCount(service, 'orders')).toBe(0);
    expect(await rowCount(service, 'payment_methods')).toBe(3);

    const ok = await client.createOrder({ ...base, paychannel_id: merchant.channels.alpha, alpha_personal_data: personal, alpha_card_info: card });
    expect(ok.body.code).toBe(1);
    const data = ok.body.data as { customer_payment_method: Record<string, string> };
    expect(data.customer_payment_method).toMatchObject({ real_name: '张三', card_number: '622202*********3445' });
    // The personal data is kept encrypted, never in clear text in the store.
    const stored = (await read(service, (tx) => tx.get<{ alpha_data_enc: string }>('SELECT alpha_data_enc FROM orders')))!;
    expect(stored.alpha_data_enc.startsWith('v1:')).toBe(true);
    expect(stored.alpha_data_enc).not.toContain('11010519491231002X');
  });
});

describe('createOrder refusals leave nothing behind', () => {
  it.each([
    [{ paychannel_id: 9999 }, 400, 'paychannel_id: no enabled channel 9999 is linked to this merchant'],
    [{ cny_amount: '0.99' }, 400, 'cny_amount: must be between 1.00 and 50000.00 on channel'],
    [{ cny_amount: '50000.01' }, 400, 'cny_amount: must be between 1.00 and 50000.00 on channel'],
    [{ cny_amount: '1.005' }, 400, 'cny_amount: must have at most 2 decimal places'],
    [{ cny_amount: '-5' }, 400, 'cny_amount: must be greater than 0'],
    [{ order_type: 3 }, 400, 'order_type: must be 1 (buy) or 2 (sell)'],
    [{ unknown_field: 'x' }, 400, 'unknown_field: unknown parameter'],
  ])('%j → %i %s', async (patch, status, msg) => {
    const { client, merchant, service } = await setup();
    const res = await client.createOrder({ order_type: 1, cny_amount: '10.00', paychannel_id: merchant.channels.beta, paychannel_paymethod: 'bank', ...patch });
    expect(res.status).toBe(status);
    expect(res.body.code).not.toBe(1);
    expect(res.body.msg).toContain(msg);
    expect(res.body.data).toBeNull();
    expect(await rowCount(service, 'orders')).toBe(0);
  });

  it('refuses a pay method the channel does not offer, and a disabled channel', async () => {
    const { client, merchant, service } = await setup();
    const { channels } = service.services;
    const limited = await write(service, async (tx) => {
      const c = await channels.create(tx, { category: 'beta', name: 'wx only', pay_methods: ['wxpay'] });
      await channels.link(tx, { merchant_id: merchant.id, channel_id: c.id });
      return c;
    });
    const wrongMethod = await client.createOrder({ order_type: 1, cny_amount: '10.00', paychannel_id: limited.id, paychannel_paymethod: 'bank' });
    expect(wrongMethod.body.msg).toBe(`paychannel_paymethod: channel ${limited.id} accepts only wxpay`);

    await write(service, (tx) => channels.update(tx, { id: limited.id, enabled: false }));
    const disabled = await client.createOrder({ order_type: 1, cny_amount: '10.00', paychannel_id: limited.id, paychannel_paymethod: 'wxpay' });
    expect(disabled.status).toBe(400);
    expect(disabled.body.msg).toContain('paychannel_id: no enabled channel');
    expect(await rowCount(service, 'orders')).toBe(0);
  });

  it('answers 409 when a beta/gamma sell has no settlement account of that kind', async () => {
    const { service, listener, merchant } = await setup();
    const m = await write(service, async (tx) => {
      const created = await service.services.merchants.create(tx, { name: 'No accounts' });
      await service.services.channels.link(tx, { merchant_id: created.id, channel_id: merchant.channels.beta });
      return created;
    });
    const client = clientFor(listener, { id: m.id, apiKey: m.api_key, apiSecret: m.api_secret, channels: merchant.channels });
    const res = await client.createOrder({ order_type: 2, cny_amount: '10.00', paychannel_id: merchant.channels.beta, paychannel_paymethod: 'bank' });
    expect(res.status).toBe(409);
    expect(res.body.msg).toContain('paychannel_paymethod: this merchant has no enabled bank settlement account');
    expect(await rowCount(service, 'orders')).toBe(0);
  });
});

describe('orderQueryList and orderQueryDetail', () => {
  it('lists newest first with defaults, filters, inclusive time bounds and totals', async () => {
    const t0 = 1_800_000_000;
    const clock = manualClock(t0);
    const service = await testService({ clock });
    const listener = await testListener(service);
    const merchant = await seedMerchant(service, 'Test Merchant', { balance: 10_000_000 });
    const client = clientFor(listener, merchant, { now: clock.now });
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await client.createOrder({ order_type: (i % 2) + 1, cny_amount: `${10 + i}.00`, paychannel_id: merchant.channels.beta, paychannel_paymethod: 'bank' });
      expect(res.body.code).toBe(1);
      created.push((res.body.data as { order_no: string }).order_no);
      if (i !== 2) clock.advance(10); // orders 2 and 3 share a createtime: then id decides
    }

    const all = await client.orderQueryList();
    expect(all.body.data).toMatchObject({ total: 5, page: 1, limit: 20 });
    expect(all.body.data!.list.map((o) => o.order_no)).toEqual([...created].reverse());
    const first = all.body.data!.list[0]!;
    expect(Object.keys(first).sort()).toEqual(
      ['order_no', 'order_type', 'cny_amount', 'merchant_actual_amount', 'service_rate', 'service_amount', 'status', 'createtime', 'updatetime'].sort(),
    );
    expect(typeof first.merchant_actual_amount).toBe('number');
    expect(first.service_rate).toBe('0.006');

    expect((await client.orderQueryList({ order_type: 1 })).body.data!.total).toBe(3);
    const page2 = await client.orderQueryList({ page: 2, limit: 2 });
    expect(page2.body.data!.list.map((o) => o.order_no)).toEqual([created[2], created[1]]);
    expect(page2.body.data).toMatchObject({ total: 5, page: 2, limit: 2 });
    // Inclusive bounds: createtimes are t0, t0+10, t0+20, t0+20, t0+30.
    const window = await client.orderQueryList({ start_time: t0 + 10, end_time: t0 + 20 });
    expect(window.body.data!.list.map((o) => o.order_no).sort()).toEqual([created[1], created[2], created[3]].sort());
    const sells = await client.orderQueryList({ status: 'pending', order_type: 2, start_time: t0, end_time: t0 + 100 });
    expect(sells.body.data!.total).toBe(2);
    expect((await client.orderQueryList({ status: 'completed' })).body.data).toMatchObject({ list: [], total: 0 });
    expect((await client.orderQueryList({ page: 9 })).body.data).toMatchObject({ list: [], total: 5, page: 9 });

    const detail = await client.orderQueryDetail(created[0]!);
    expect(detail.body.data).toMatchObject({ order_no: created[0], order_type: 1, cny_amount: '10.00', status: 'pending' });
  });

  it('treats a null or empty-string member as not sent, as the signature does', async () => {
    const { client, merchant, service } = await setup();
    const created = await client.createOrder({ order_type: 1, cny_amount: '10.00', paychannel_id: merchant.channels.beta, paychannel_paymethod: 'bank', customer_name: '' });
    expect(created.body.code).toBe(1);
    // An empty filter is no filter; an empty page/limit is the default.
    const list = await client.orderQueryList({ status: '', order_type: null, start_time: '', page: null, limit: '' });
    expect(list.status).toBe(200);
    expect(list.body.data).toMatchObject({ total: 1, page: 1, limit: 20 });
    const channels = await client.call<{ total: number }>('getPayChannels', {}, { category: '' });
    expect(channels.body.data!.total).toBe(3);
    // An empty required member is missing, named, and nothing is written.
    for (const empty of ['', null]) {
      const res = await client.createOrder({ order_type: 1, cny_amount: empty, paychannel_id: merchant.channels.beta, paychannel_paymethod: 'bank' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 1001, msg: 'cny_amount: is required', data: null });
    }
    expect(await rowCount(service, 'orders')).toBe(1);
  });

  it('refuses an order_no with control characters (NUL: PostgreSQL text cannot hold it) with a 400 naming the field', async () => {
    const { client } = await setup();
    for (const orderNo of ['B\u0000', 'B1\n', '\u202eB1']) {
      const res = await client.orderQueryDetail(orderNo);
      expect([orderNo, res.status, res.body]).toEqual([
        orderNo,
        400,
        { code: 1001, msg: 'order_no: must not contain control characters, bidirectional overrides or unpaired surrogates', data: null },
      ]);
    }
  });

  it('refuses integers written with a fraction or an exponent, naming the field', async () => {
    const { listener, merchant } = await setup();
    for (const [field, text] of [['page', '1.0'], ['limit', '2e1'], ['order_type', '1.0']] as const) {
      const body = JSON.stringify({ api_key: merchant.apiKey, timestamp: Math.floor(Date.now() / 1000), nonce: newNonce(), [field]: 'N' }).replace('"N"', text);
      const signature = computeSignature(parseJsonLossless(body) as JsonObject, merchant.apiSecret);
      const res = await rawPost(`${listener.url}${PREFIX}/orderQueryList`, body.replace(/}$/, `,"signature":"${signature}"}`));
      expect(res, text).toEqual({ status: 400, body: { code: 1001, msg: expect.stringMatching(new RegExp(`^${field}: must be`)), data: null } });
    }
  });

  it("answers a missing order and another merchant's order the same way", async () => {
    const { client, merchant, service, listener } = await setup();
    const other = await seedMerchant(service, 'Other Merchant');
    const otherClient = clientFor(listener, other);
    const mine = await client.createOrder({ order_type: 1, cny_amount: '10.00', paychannel_id: merchant.channels.beta, paychannel_paymethod: 'bank' });
    const orderNo = (mine.body.data as { order_no: string }).order_no;

    const foreign = await otherClient.orderQueryDetail(orderNo);
    const missing = await otherClient.orderQueryDetail('B000000000000000000000000');
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(foreign.body.code).toBe(missing.body.code);
    expect(foreign.body.msg).toBe(`order_no: order ${orderNo} not found`);
    expect((await otherClient.orderQueryList()).body.data!.total).toBe(0);
    // Nor can another merchant order on a channel that is not linked to it.
    const res = await otherClient.createOrder({ order_type: 1, cny_amount: '10.00', paychannel_id: merchant.channels.beta, paychannel_paymethod: 'bank' });
    expect(res.body.msg).toContain('no enabled channel');
  });
});

describe('getPayChannels', () => {
  it('lists only enabled linked channels, basic data only, filtered by category', async () => {
    const { client, merchant, service } = await setup();
    const { channels } = service.services;
    const { secretChannel, unlinked } = await write(service, async (tx) => {
      const secretChannel = await channels.create(tx, {
        category: 'beta',
        name: 'Secret config',
        pay_methods: ['alipay', 'wxpay'],
        config: { merchant_no: 'M-123456', key: 'very-secret-channel-key', proxy: 'http://10.0.0.1:3128' },
      });
      await channels.link(tx, { merchant_id: merchant.id, channel_id: secretChannel.id });
      const unlinked = await channels.create(tx, { category: 'beta', name: 'Not mine', pay_methods: ['bank'] });
      const disabled = await channels.create(tx, { category: 'gamma', name: 'Off', pay_methods: ['bank'], enabled: false });
      await channels.link(tx, { merchant_id: merchant.id, channel_id: disabled.id });
      return { secretChannel, unlinked };
    });

    const res = await client.getPayChannels();
    expect(res.status).toBe(200);
    const ids = res.body.data!.list.map((c) => c.id);
    expect(ids).toEqual([merchant.channels.alpha, merchant.channels.beta, merchant.channels.gamma, secretChannel.id]);
    expect(ids).not.toContain(unlinked.id);
    expect(res.body.data!.total).toBe(4);
    expect(res.body.data!.list[3]).toEqual({
      id: secretChannel.id,
      category: 'beta',
      name: 'Secret config',
      pay_method: 'wxpay,alipay',
      category_text: 'Beta',
      pay_method_text: 'Wxpay,Alipay',
      createtime: expect.any(Number),
      updatetime: expect.any(Number),
    });
    expect(JSON.stringify(res.body)).not.toContain('very-secret-channel-key');

    const betas = await client.getPayChannels('beta');
    expect(betas.body.data!.list.map((c) => c.id)).toEqual([merchant.channels.beta, secretChannel.id]);
    const badCategory = await client.getPayChannels('delta');
    expect(badCategory.status).toBe(400);
    expect(badCategory.body.msg).toBe('category: must be one of alpha, beta, gamma');
  });

  it('sees channels and links added by another process at once', async () => {
    const { client, merchant, service } = await setup();
    // A second service on the same store, as the admin CLI opens while serve runs.
    const databaseUrl = await databaseUrlFor(service.dataDir);
    const admin = await openService({ dataDir: service.dataDir, ...(databaseUrl ? { databaseUrl } : {}) });
    try {
      await admin.store.write(async (tx) => {
        const c = await admin.services.channels.create(tx, { category: 'gamma', name: 'Added by CLI', pay_methods: ['bank'] });
        await admin.services.channels.link(tx, { merchant_id: merchant.id, channel_id: c.id });
      });
      const res = await client.getPayChannels('gamma');
      expect(res.body.data!.list.map((x) => x.name)).toContain('Added by CLI');
    } finally {
      await admin.close();
    }
  });
});

describe('authentication', () => {
  it('refuses missing, unknown, stale, future, badly signed and replayed requests with 401', async () => {
    const clock = manualClock(1_800_000_000);
    const service = await testService({ clock });
    const listener = await testListener(service);
    const merchant = await seedMerchant(service);
    const url = `${listener.url}${PREFIX}/orderQueryList`;
    const signed = (over: Record<string, unknown> = {}, secret = merchant.apiSecret) => {
      const body: Record<string, unknown> = { api_key: merchant.apiKey, timestamp: clock.now(), nonce: newNonce(), ...over };
      body.signature = computeSignature(body as never, secret);
      return body;
    };
    const post = (body: Record<string, unknown>) => rawPost(url, JSON.stringify(body));

    const cases: [Record<string, unknown>, string][] = [
      [{ ...signed(), api_key: undefined }, 'api_key: is required'],
      [{ ...signed(), nonce: undefined }, 'nonce: is required'],
      [signed({ nonce: 'short' }), 'nonce: must be 8-64 characters of A-Z a-z 0-9 _ -'],
      [signed({ nonce: 'with space!' }), 'nonce: must be 8-64 characters'],
      [{ ...signed(), signature: undefined }, 'signature: is required'],
      [signed({ timestamp: '1800000000' }), 'timestamp: must be an integer of Unix seconds'],
      [signed({ api_key: 'mk_unknown' }), 'api_key: unknown or disabled'],
      [signed({ api_key: 'mk_\u0000' }), 'api_key: unknown or disabled'], // NUL: no key has it (PostgreSQL text cannot even hold it)
      [signed({ timestamp: clock.now() - 301 }), 'timestamp: older than the allowed 300 s'],
      [signed({ timestamp: clock.now() + 301 }), 'timestamp: later than the allowed 300 s'],
      [signed({}, 'sk_wrong'), 'signature: does not match'],
      [{ ...signed(), limit: 5 }, 'signature: does not match'], // a member added after signing
      [signed({ api_key: `mk_${'a'.repeat(5000)}` }), 'api_key: unknown or disabled'], // far longer than any key: no lookup, no nonce row
    ];
    for (const [body, msg] of cases) {
      const res = await post(body);
      expect(res.status, msg).toBe(401);
      expect(res.body.msg).toContain(msg);
      expect(res.body.data).toBeNull();
    }
    // The nonce is recorded with the merchant's lookup (one statement on PostgreSQL): every refusal undoes it.
    expect(await rowCount(service, 'nonces')).toBe(0);
    const refusedFirst = signed();
    expect((await post({ ...refusedFirst, signature: computeSignature(refusedFirst as never, 'sk_wrong') })).status).toBe(401);
    expect((await post(refusedFirst)).body.code).toBe(1); // its nonce was still unused

    expect((await post(signed({ timestamp: clock.now() - 300 }))).body.code).toBe(1);
    expect((await post(signed({ timestamp: clock.now() + 300 }))).body.code).toBe(1);

    const once = signed();
    expect((await post(once)).body.code).toBe(1);
    const replay = await post(once);
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({ code: 2005, msg: 'nonce: already used with this api_key', data: null });

    // A disabled merchant is refused like an unknown key.
    await write(service, (tx) => service.services.merchants.update(tx, { id: merchant.id, enabled: false }));
    expect((await post(signed())).body.msg).toBe('api_key: unknown or disabled');
  });

  it('keeps a used nonce through the purge for as long as its timestamp is acceptable', async () => {
    const clock = manualClock(1_800_000_000);
    const service = await testService({ clock });
    const listener = await testListener(service);
    const merchant = await seedMerchant(service);
    // Signed 300 s ahead: acceptable from now until now + 600.
    const body: Record<string, unknown> = { api_key: merchant.apiKey, timestamp: clock.now() + 300, nonce: newNonce() };
    body.signature = computeSignature(body as never, merchant.apiSecret);
    const url = `${listener.url}${PREFIX}/getPayChannels`;
    expect((await rawPost(url, JSON.stringify(body))).body.code).toBe(1);
    clock.advance(599);
    await service.work.purgeExpired();
    expect((await rawPost(url, JSON.stringify(body))).body).toEqual({ code: 2005, msg: 'nonce: already used with this api_key', data: null });
  });

  it('consumes the nonce of a signed request even when its parameters are invalid', async () => {
    const { service, listener, merchant } = await setup();
    const url = `${listener.url}${PREFIX}/orderQueryList`;
    const body: Record<string, unknown> = { api_key: merchant.apiKey, timestamp: Math.floor(Date.now() / 1000), nonce: newNonce(), limit: 500 };
    body.signature = computeSignature(body as never, merchant.apiSecret);
    expect((await rawPost(url, JSON.stringify(body))).body.msg).toBe('limit: must be at most 100');
    expect((await rawPost(url, JSON.stringify(body))).body.code).toBe(2005);
    expect(await rowCount(service, 'nonces')).toBe(1);
  });

  it('remembers consumed nonces across a restart', async () => {
    const { service, merchant, listener } = await setup();
    const body: Record<string, unknown> = { api_key: merchant.apiKey, timestamp: Math.floor(Date.now() / 1000), nonce: newNonce() };
    body.signature = computeSignature(body as never, merchant.apiSecret);
    expect((await rawPost(`${listener.url}${PREFIX}/getPayChannels`, JSON.stringify(body))).body.code).toBe(1);
    await listener.close();
    await service.close();
    const reopened = await testService({ dataDir: service.dataDir });
    const listener2 = await testListener(reopened);
    expect((await rawPost(`${listener2.url}${PREFIX}/getPayChannels`, JSON.stringify(body))).body.code).toBe(2005);
  });

  it('includes query parameters in the signature and refuses a name in both places', async () => {
    const { listener, merchant } = await setup();
    const base = { api_key: merchant.apiKey, timestamp: Math.floor(Date.now() / 1000), nonce: newNonce() };
    const withQuery = { ...base, signature: computeSignature({ ...base, category: 'beta' }, merchant.apiSecret) };
    expect((await rawPost(`${listener.url}${PREFIX}/getPayChannels?category=beta`, JSON.stringify(withQuery))).body.code).toBe(1);
    // The query changed after signing → mismatch.
    const tampered = { ...base, nonce: newNonce() };
    const tamperedSigned = { ...tampered, signature: computeSignature({ ...tampered, category: 'beta' }, merchant.apiSecret) };
    expect((await rawPost(`${listener.url}${PREFIX}/getPayChannels?category=gamma`, JSON.stringify(tamperedSigned))).status).toBe(401);
    const both = await rawPost(`${listener.url}${PREFIX}/getPayChannels?nonce=x`, JSON.stringify(withQuery));
    expect(both.status).toBe(400);
    expect(both.body.msg).toBe('nonce: given in both the query string and the body');
  });

  it('refuses a query parameter on a route that declares none, signed or not, and answers the same request without it', async () => {
    const { listener, merchant } = await setup();
    const sign = (extra: Record<string, string>) => {
      const base = { api_key: merchant.apiKey, timestamp: Math.floor(Date.now() / 1000), nonce: newNonce() };
      return { ...base, signature: computeSignature({ ...base, ...extra }, merchant.apiSecret) };
    };
    const refused = await rawPost(`${listener.url}${PREFIX}/orderQueryList?x=1`, JSON.stringify(sign({ x: '1' })));
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe(1001);
    expect(refused.body.msg).toBe('x: unknown parameter');
    const answered = await rawPost(`${listener.url}${PREFIX}/orderQueryList`, JSON.stringify(sign({})));
    expect([answered.status, answered.body.code]).toEqual([200, 1]);
  });
});

describe('transport errors', () => {
  it('maps malformed, non-object, non-JSON and oversized bodies to 4xx envelopes', async () => {
    const { listener, service } = await setup();
    const url = `${listener.url}${PREFIX}/createOrder`;
    const cases: [string | undefined, Record<string, string>, number, number, string][] = [
      ['{"a":', { 'content-type': 'application/json' }, 400, 1002, 'body: malformed JSON'],
      ['{"a":1,"a":2}', { 'content-type': 'application/json' }, 400, 1002, 'duplicate key "a"'],
      ['[1,2]', { 'content-type': 'application/json' }, 400, 1003, 'body: must be a JSON object'],
      ['"text"', { 'content-type': 'application/json; charset=utf-8' }, 400, 1003, 'body: must be a JSON object'],
      ['a=1', { 'content-type': 'application/x-www-form-urlencoded' }, 415, 1005, 'Content-Type: must be application/json'],
      ['{}', { 'content-type': 'application/json; charset=gbk' }, 415, 1005, 'Content-Type: charset must be utf-8, not gbk'],
      ['{}', { 'content-type': 'application/json;charset="latin1"' }, 415, 1005, 'Content-Type: charset must be utf-8, not latin1'],
      // Which of two charsets would a proxy or the next parser believe? Refused, as docs/api.md promises for non-UTF-8.
      ['{}', { 'content-type': 'application/json; charset=utf-8; charset=latin1' }, 415, 1005, 'Content-Type: charset must be given once, not 2 times'],
      ['{}', { 'content-type': 'application/json; charset=UTF-8;CHARSET="utf-8"' }, 415, 1005, 'Content-Type: charset must be given once, not 2 times'],
      [undefined, {}, 415, 1005, 'Content-Type: must be application/json'],
      ['', { 'content-type': 'application/json' }, 400, 1002, 'body:'],
      [JSON.stringify({ pad: 'x'.repeat(70 * 1024) }), { 'content-type': 'application/json' }, 413, 1006, 'body: larger than 65536 bytes'],
    ];
    for (const [body, headers, status, code, msg] of cases) {
      const res = await rawPost(url, body, headers);
      expect(res.status, msg).toBe(status);
      expect(res.body.code).toBe(code);
      expect(res.body.msg).toContain(msg);
      expect(res.body.data).toBeNull();
    }
    expect(await rowCount(service, 'orders')).toBe(0);
    expect(await rowCount(service, 'nonces')).toBe(0);
  });

  it('refuses a POST without a Content-Type however its empty body is framed, before the route', async () => {
    const { listener, service } = await setup();
    const { hostname, port } = new URL(listener.url);
    // Raw bytes: fetch always frames a POST itself.
    const send = (framing: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(port), hostname, () => {
          socket.end(`POST ${PREFIX}/createOrder HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n${framing}\r\n`);
        });
        let answer = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => (answer += chunk));
        socket.on('end', () => resolve(answer));
        socket.on('error', reject);
      });
    for (const framing of ['', 'Content-Length: 0\r\n', 'Transfer-Encoding: chunked\r\n\r\n0\r\n']) {
      const answer = await send(framing);
      expect(answer.split('\r\n')[0], JSON.stringify(framing)).toBe('HTTP/1.1 415 Unsupported Media Type');
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), JSON.stringify(framing)).toEqual({ code: 1005, msg: 'Content-Type: must be application/json', data: null });
    }
    expect(await rowCount(service, 'nonces')).toBe(0);
  });

  it('answers unknown routes with a 404 envelope', async () => {
    const { listener } = await setup();
    const res = await fetch(`${listener.url}${PREFIX}/deleteEverything`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ code: 3001, msg: 'POST /addons/paychannel/merchant/deleteEverything: no such endpoint', data: null });
    // Whatever the body: the missing path is what is wrong.
    for (const [body, headers] of [
      ['a=1', { 'content-type': 'text/plain' }],
      [undefined, {}],
      ['{"a":', { 'content-type': 'application/json' }],
    ] as const) {
      const other = await rawPost(`${listener.url}${PREFIX}/deleteEverything`, body, headers);
      expect(other, JSON.stringify(headers)).toEqual({ status: 404, body: { code: 3001, msg: 'POST /addons/paychannel/merchant/deleteEverything: no such endpoint', data: null } });
    }
    const regionPost = await rawPost(`${listener.url}/addons/paychannel/channel/alpha/provinceList`, 'x', { 'content-type': 'text/plain' });
    expect(regionPost.status).toBe(404);
  });

  it('answers 500 without internal details when a service fails unexpectedly', async () => {
    const { service, listener, merchant } = await setup();
    service.services.orders.list = () => {
      throw new Error('SQLITE_IOERR at /secret/path/merchant-console.sqlite');
    };
    const res = await clientFor(listener, merchant).orderQueryList();
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ code: 5000, msg: 'internal error', data: null });
  });

  it('serves the merchant API under a configured base path only', async () => {
    const service = await testService();
    const listener = await testListener(service, { basePath: '/api/v2/' });
    const merchant = await seedMerchant(service);
    expect((await clientFor(listener, merchant, { basePath: '/api/v2' }).getPayChannels()).body.code).toBe(1);
    expect((await clientFor(listener, merchant).getPayChannels()).status).toBe(404);
  });
});
