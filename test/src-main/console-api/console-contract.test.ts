/**
 * Every console-API method through dispatchConsoleCall with a real service
 * on a temp data dir: valid calls (answers checked against the contract's
 * response schema, nothing extra), invalid calls (field-named errors), and
 * nothing persisted when a call fails. The last test checks that every
 * method of the contract was exercised successfully here.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createConsoleHandlers, dispatchConsoleCall, type ConsoleHandlers } from '../../../src-main/console-api/console-handlers';
import type { MerchantConsoleService } from '../../../src-main/service';
import { consoleApiContract, type ConsoleResponse } from '../../../src-shared/console-api/contract';
import { CONSOLE_METHODS, type ConsoleMethod } from '../../../src-shared/console-api/methods';
import type { Envelope } from '../../../src-shared/errors';
import { createIdempotencyRepository } from '../../../src-main/repositories/idempotency-repository';
import { adjustmentIdempotencyKey, consoleIdempotencyKey } from '../../../src-main/services/idempotency-service';
import { allowPrivateCallbacks, manualClock, read, rowCount, seedMerchant, testService, write, type SeededMerchant } from '../../support/service-harness';
import { ALPHA_CARD, ALPHA_PERSONAL } from '../../support/alpha-fixtures';
import { callerOf, createTestAccount, desktopCallerOf, totpCode, type TestAccount } from '../../support/accounts';
import { totpCodeAt } from '../../../src-main/auth/totp';
import { SYSTEM_ACTOR } from '../../../src-main/services/audit-service';
import type { Caller, DesktopCaller } from '../../../src-main/console-api/caller';

const covered = new Set<ConsoleMethod>();

interface Ctx {
  applied: number;
  service: MerchantConsoleService;
  handlers: ConsoleHandlers;
  clock: ReturnType<typeof manualClock>;
  m: SeededMerchant;
  desktop: DesktopCaller;
}

// 2026-01-01 10:00:00 Beijing time
const T0 = 1767232800;

async function setup(): Promise<Ctx> {
  const clock = manualClock(T0);
  const service = await testService({ clock });
  const m = await seedMerchant(service, 'Test Merchant', { balance: 100_000_000 });
  const ctx = { applied: 0 } as Ctx;
  ctx.handlers = createConsoleHandlers(service, {
    version: '9.9.9-test',
    listenerUrl: () => 'http://127.0.0.1:1',
    listenerInUse: () => ({ enabled: true, host: '127.0.0.1', port: 1, base_path: '/addons/paychannel' }),
    listenerError: () => (ctx.applied > 0 ? 'port 18301 on 0.0.0.0 is already in use' : null),
    applyListenerSettings: async () => {
      ctx.applied++;
    },
  });
  return Object.assign(ctx, { service, clock, m, desktop: await desktopCallerOf(service) });
}

const idempotencyKeys = createIdempotencyRepository();
/** The idempotency key stored for the merchant under exactly this text, if any. */
function storedKey(c: Ctx, merchantId: number, key: string) {
  return read(c.service, (tx) => idempotencyKeys.find(tx, merchantId, key));
}

/** Calls as the person at the desktop app (the owner, alone on its store: what needs approval is done at once), or as `as`. */
async function call(c: Ctx, method: string, request: unknown, as?: Caller): Promise<Envelope<unknown>> {
  return dispatchConsoleCall(c.handlers, method, request, as ?? c.desktop, { error: ({ err }) => console.error(err) });
}

/** An adjustment booked at once (the desktop owner needs nobody's approval). */
async function adjustNow(c: Ctx, request: unknown): Promise<ConsoleResponse<'adjustBalance'>['done'] & object> {
  const r = await ok(c, 'adjustBalance', request);
  expect(r.approval).toBeNull();
  return r.done!;
}

/** A withdrawal done at once (the desktop owner needs nobody's approval): the created sell order. */
async function sellNow(c: Ctx, request: unknown): Promise<ConsoleResponse<'createOrder'>> {
  const r = await ok(c, 'requestWithdrawal', request);
  expect(r.approval).toBeNull();
  return r.done!;
}

/** A successful call: data matches the response schema exactly (no extra members). */
/** Calls that change nothing; every other successful call must append to the audit trail (docs/accounts.md). */
const READS: readonly ConsoleMethod[] = [
  'getServiceInfo', 'getRegionData', 'getSession', 'listPayChannels', 'listOrders', 'getOrder', 'exportOrders', 'getDashboardStats',
  'getBalances', 'listLedger', 'listMerchants', 'listChannels', 'listChannelLinks', 'listPaymentMethods', 'getSettings',
  'listAccounts', 'listApprovals', 'getApproval', 'listAuditLog',
];
const auditCount = (c: Ctx) => rowCount(c.service, 'audit_log');

async function ok<M extends ConsoleMethod>(c: Ctx, method: M, request: unknown, as?: Caller): Promise<ConsoleResponse<M>> {
  const audited = await auditCount(c);
  const res = await call(c, method, request, as);
  expect(res, `${method} ${JSON.stringify(res)}`).toMatchObject({ code: 1 });
  // A change leaves its entry in the same unit of work; a read leaves none. (A replayed idempotent call changes nothing.)
  const replay = typeof request === 'object' && request !== null && 'idempotency_key' in request;
  if (READS.includes(method)) expect(await auditCount(c), `${method} is a read`).toBe(audited);
  else if (!replay) expect(await auditCount(c), `${method} changed something without an audit entry`).toBeGreaterThan(audited);
  const parsed = consoleApiContract[method].response.parse(res.data);
  expect(parsed).toEqual(res.data);
  covered.add(method);
  return res.data as ConsoleResponse<M>;
}

async function fails(c: Ctx, method: string, request: unknown, code: number, msg: string | RegExp, as?: Caller): Promise<void> {
  const res = await call(c, method, request, as);
  expect(res.data).toBeNull();
  expect(res.code).toBe(code);
  if (typeof msg === 'string') expect(res.msg).toBe(msg);
  else expect(res.msg).toMatch(msg);
}

const buy = (c: Ctx, amount: string | number = '100.50', extra: Record<string, unknown> = {}) =>
  ok(c, 'createOrder', { merchant_id: c.m.id, order_type: 1, cny_amount: amount, paychannel_id: c.m.channels.beta, paychannel_paymethod: 'alipay', ...extra });

const alphaPersonal = ALPHA_PERSONAL;
const alphaCard = ALPHA_CARD;

describe('console contract: public and merchant-scoped calls', () => {
  let c: Ctx;
  beforeEach(async () => {
    c = await setup();
  });

  it('getServiceInfo answers version, data dir and listener URL', async () => {
    const info = await ok(c, 'getServiceInfo', {});
    expect(info).toEqual({ version: '9.9.9-test', data_dir: c.service.dataDir, listener_url: 'http://127.0.0.1:1', listener_error: null });
    await fails(c, 'getServiceInfo', { extra: 1 }, 1001, 'extra: unknown parameter');
    await fails(c, 'getServiceInfo', [], 1001, 'request: must be an object');
  });

  it('getRegionData: the tree once, then only "not modified" for the cached etag', async () => {
    const full = await ok(c, 'getRegionData', {});
    expect(full.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(full.counts).toEqual({ provinces: 31, cities: expect.any(Number), districts: expect.any(Number) });
    expect(full.not_modified).toBe(false);
    const { tree: _tree, not_modified: _nm, ...version } = full;
    expect(Object.keys(full.tree!)).toHaveLength(31);
    expect(full.tree!['北京市']).toMatchObject({ val: '110000', items: { 北京市: { val: '110100' } } });
    const cached = await ok(c, 'getRegionData', { if_none_match: version.etag });
    expect(cached).toEqual({ ...version, not_modified: true, tree: null });
    const stale = await ok(c, 'getRegionData', { if_none_match: '"old"' });
    expect(stale.not_modified).toBe(false);
    await fails(c, 'getRegionData', { if_none_match: 5 }, 1001, 'if_none_match: must be a string');
  });

  it('listPayChannels gives the form what it enforces: pay methods, limits, effective fees', async () => {
    await write(c.service, (tx) => c.service.services.channels.link(tx, { merchant_id: c.m.id, channel_id: c.m.channels.gamma, service_rate: '0.01' }));
    const all = await ok(c, 'listPayChannels', { merchant_id: c.m.id });
    expect(all.total).toBe(3);
    const gamma = all.list.find((ch) => ch.id === c.m.channels.gamma)!;
    expect(gamma).toMatchObject({
      category: 'gamma',
      category_text: 'Gamma',
      pay_methods: ['wxpay', 'alipay', 'bank'],
      pay_method_text: 'Wxpay,Alipay,Bank',
      min_amount: '1.00',
      max_amount: '50000.00',
      fees: { service_rate: '0.01', passage_rate: '0.002', deposit_rate: 50, base_rate: 30 },
    });
    await write(c.service, (tx) => c.service.services.channels.update(tx, { id: c.m.channels.alpha, enabled: false }));
    const beta = await ok(c, 'listPayChannels', { merchant_id: c.m.id, category: 'beta' });
    expect(beta.list.map((ch) => ch.category)).toEqual(['beta']);
    expect((await ok(c, 'listPayChannels', { merchant_id: c.m.id, category: 'alpha' })).total).toBe(0);

    await fails(c, 'listPayChannels', { merchant_id: c.m.id, category: 'delta' }, 1001, 'category: must be one of alpha, beta, gamma');
    await fails(c, 'listPayChannels', {}, 1001, 'merchant_id: is required');
    await fails(c, 'listPayChannels', { merchant_id: 999 }, 3001, 'merchant_id: merchant 999 not found');
  });

  it('createOrder (buy) goes through the same rules as the API and answers the Buy order resource', async () => {
    const before = await rowCount(c.service, 'orders');
    const created = await buy(c, 100.5, { customer_name: '李四' });
    expect(created).toMatchObject({ order_type: 1, status: 'pending', cny_amount: '100.50', merchant_amount: '100.50', payment_method: 'alipay' });
    // 10050 fen: service R(10050×0.006)=60, deposit R(10050×50/10000)=50
    expect(created).toMatchObject({ service_amount: 60, deposit_amount: 50, merchant_actual_amount: 9940 });
    expect('pay_url' in created && created.pay_url).toMatch(/\/pay\/[A-Za-z0-9_-]{20,}$/);
    expect(await rowCount(c.service, 'orders')).toBe(before + 1);

    const req = { merchant_id: c.m.id, order_type: 1, paychannel_id: c.m.channels.beta, paychannel_paymethod: 'alipay' };
    const cases: [Record<string, unknown>, number, string][] = [
      [{ ...req, cny_amount: '0' }, 1001, 'cny_amount: must be greater than 0'],
      [{ ...req, cny_amount: '1.005' }, 1001, 'cny_amount: must have at most 2 decimal places'],
      [{ ...req, cny_amount: '0.50' }, 1001, `cny_amount: must be between 1.00 and 50000.00 on channel ${c.m.channels.beta}`],
      [{ ...req, cny_amount: '10', paychannel_id: 999 }, 1001, 'paychannel_id: no enabled channel 999 is linked to this merchant'],
      [{ ...req, cny_amount: '10', paychannel_paymethod: 'cash' }, 1001, 'paychannel_paymethod: must be one of wxpay, alipay, bank'],
      [{ ...req, cny_amount: '10', order_type: 3 }, 1001, 'order_type: must be 1 (buy); a sell order is a withdrawal: requestWithdrawal'],
      [{ ...req, cny_amount: '10', order_type: 2 }, 1001, 'order_type: must be 1 (buy); a sell order is a withdrawal: requestWithdrawal'],
      [{ ...req, cny_amount: '10', api_key: 'mk_x' }, 1001, 'api_key: unknown parameter'],
      [{ ...req, cny_amount: '10', merchant_id: 999 }, 3001, 'merchant_id: merchant 999 not found'],
    ];
    for (const [request, code, msg] of cases) await fails(c, 'createOrder', request, code, msg);
    expect(await rowCount(c.service, 'orders')).toBe(before + 1);

    await write(c.service, (tx) => c.service.services.merchants.update(tx, { id: c.m.id, enabled: false }));
    await fails(c, 'createOrder', { ...req, cny_amount: '10' }, 4001, `merchant_id: merchant ${c.m.id} is disabled`);
    expect(await rowCount(c.service, 'orders')).toBe(before + 1);
  });

  it('createOrder with idempotency_key: a retry answers the first order; other fields are refused; nothing extra written', async () => {
    const req = { merchant_id: c.m.id, order_type: 1, cny_amount: '12.30', paychannel_id: c.m.channels.beta, paychannel_paymethod: 'bank', idempotency_key: 'form-7f3a' };
    const first = await ok(c, 'createOrder', req);
    const before = await rowCount(c.service, 'orders');
    c.clock.advance(30);
    expect(await ok(c, 'createOrder', { ...req, cny_amount: 12.3 })).toEqual(first);
    expect(await rowCount(c.service, 'orders')).toBe(before);
    await fails(c, 'createOrder', { ...req, cny_amount: '12.31' }, 4003, 'idempotency_key: already used with different order fields');
    await fails(c, 'createOrder', { ...req, idempotency_key: ' padded' }, 1001, /^idempotency_key: must be 1-255 printable ASCII/);
    await fails(c, 'createOrder', { ...req, idempotency_key: 'x'.repeat(256) }, 1001, /^idempotency_key: must be 1-255 printable ASCII/);
    expect(await rowCount(c.service, 'orders')).toBe(before);
    // The console key is stored in a namespace of its own.
    expect(await storedKey(c, c.m.id, consoleIdempotencyKey('form-7f3a'))).toMatchObject({ order_id: expect.any(Number) });
    // The same text as an HTTP Idempotency-Key of this merchant is another key.
    expect(await storedKey(c, c.m.id, 'form-7f3a')).toBeUndefined();
    // Whatever the HTTP key's text: no HTTP key reaches a console key.
    expect(await storedKey(c, c.m.id, 'console:form-7f3a')).toBeUndefined();
    const other = await ok(c, 'createOrder', { ...req, idempotency_key: 'form-8b1c' });
    expect(other.order_no).not.toBe(first.order_no);
  });

  it('requestWithdrawal (a sell order, done at once for the desktop owner alone) on beta and alpha, with the alpha rules of the spec', async () => {
    const sell = { merchant_id: c.m.id, order_type: 2, cny_amount: '200', paychannel_id: c.m.channels.beta, paychannel_paymethod: 'bank' };
    const beta = await sellNow(c, sell);
    expect(beta).toMatchObject({ order_type: 2, status: 'pending', cny_amount: '200.00', payment_method_snapshot: { bank: '中国银行' } });

    const alpha = { ...sell, paychannel_id: c.m.channels.alpha };
    const created = await sellNow(c, { ...alpha, alpha_personal_data: alphaPersonal, alpha_card_info: alphaCard });
    expect(created).toMatchObject({ order_type: 2, customer_payment_method: { real_name: '张三', card_number: '622202*********3445' } });

    const before = await rowCount(c.service, 'orders');
    const pmBefore = await rowCount(c.service, 'payment_methods');
    await fails(c, 'requestWithdrawal', alpha, 1001, 'alpha_personal_data: is required on alpha channels');
    await fails(c, 'requestWithdrawal', { ...alpha, alpha_personal_data: { ...alphaPersonal, cert_no: '110105194912310021' }, alpha_card_info: alphaCard }, 1001,
      'alpha_personal_data.cert_no: has a wrong check digit (GB 11643)');
    await fails(c, 'requestWithdrawal', { ...alpha, alpha_personal_data: { ...alphaPersonal, cert_validity_type: '0' }, alpha_card_info: alphaCard }, 1001,
      'alpha_personal_data.cert_end_date: is required when cert_validity_type is 0');
    await fails(c, 'requestWithdrawal', { ...alpha, alpha_personal_data: alphaPersonal, alpha_card_info: { ...alphaCard, area_id: '310100' } }, 1001,
      /^alpha_card_info\.area_id: 310100 is not a city of province 110000/);
    await fails(c, 'requestWithdrawal', { ...sell, alpha_card_info: alphaCard }, 1001, 'alpha_card_info: not accepted on beta channels');
    await fails(c, 'requestWithdrawal', { ...sell, customer_name: 'x' }, 1001, 'customer_name: unknown parameter');
    expect(await rowCount(c.service, 'orders')).toBe(before);
    expect(await rowCount(c.service, 'payment_methods')).toBe(pmBefore);
  });

  it('listOrders: newest first, every filter, order-number prefix and exact search', async () => {
    const b1 = await buy(c, '10');
    c.clock.advance(60);
    const s1 = await sellNow(c, { merchant_id: c.m.id, order_type: 2, cny_amount: '20', paychannel_id: c.m.channels.gamma, paychannel_paymethod: 'wxpay' });
    c.clock.advance(60);
    const b2 = await buy(c, '30');
    const other = await seedMerchant(c.service, 'Other');
    await ok(c, 'createOrder', { merchant_id: other.id, order_type: 1, cny_amount: '40', paychannel_id: other.channels.beta, paychannel_paymethod: 'bank' });

    const all = await ok(c, 'listOrders', { merchant_id: c.m.id });
    expect(all).toMatchObject({ total: 3, page: 1, limit: 20 });
    expect(all.list.map((o) => o.order_no)).toEqual([b2.order_no, s1.order_no, b1.order_no]);
    expect(all.list[1]).toMatchObject({ order_type: 2, pay_method: 'wxpay', channel_id: c.m.channels.gamma, channel_name: 'Test Merchant gamma', channel_category: 'gamma' });

    const buys = await ok(c, 'listOrders', { merchant_id: c.m.id, order_type: 1, status: 'pending' });
    expect(buys.list.map((o) => o.order_no)).toEqual([b2.order_no, b1.order_no]);
    const ranged = await ok(c, 'listOrders', { merchant_id: c.m.id, start_time: T0 + 60, end_time: T0 + 60 });
    expect(ranged.list.map((o) => o.order_no)).toEqual([s1.order_no]);
    const page2 = await ok(c, 'listOrders', { merchant_id: c.m.id, page: 2, limit: 2 });
    expect(page2).toMatchObject({ total: 3, page: 2, limit: 2 });
    expect(page2.list.map((o) => o.order_no)).toEqual([b1.order_no]);

    const prefixB = await ok(c, 'listOrders', { merchant_id: c.m.id, order_no: 'b' });
    expect(prefixB.list.map((o) => o.order_no)).toEqual([b2.order_no, b1.order_no]);
    const exact = await ok(c, 'listOrders', { merchant_id: c.m.id, order_no: s1.order_no.toLowerCase(), order_no_match: 'exact' });
    expect(exact.list.map((o) => o.order_no)).toEqual([s1.order_no]);
    const prefixLong = await ok(c, 'listOrders', { merchant_id: c.m.id, order_no: b1.order_no.slice(0, 20) });
    expect(prefixLong.list.map((o) => o.order_no)).toContain(b1.order_no);
    const notWhole = await ok(c, 'listOrders', { merchant_id: c.m.id, order_no: b1.order_no.slice(0, 20), order_no_match: 'exact' });
    expect(notWhole.total).toBe(0);

    await fails(c, 'listOrders', { merchant_id: c.m.id, start_time: 10, end_time: 5 }, 1001, 'end_time: must not be before start_time');
    await fails(c, 'listOrders', { merchant_id: c.m.id, order_no: "B' OR 1=1" }, 1001, /^order_no: must be 1-64 letters or digits/);
    await fails(c, 'listOrders', { merchant_id: c.m.id, order_no_match: 'fuzzy' }, 1001, 'order_no_match: must be one of prefix, exact');
    await fails(c, 'listOrders', { merchant_id: c.m.id, status: 'lost' }, 1001, 'status: must be one of pending, paid, confirmed, completed, cancelled');
    await fails(c, 'listOrders', { merchant_id: c.m.id, limit: 101 }, 1001, 'limit: must be at most 100');
    await fails(c, 'listOrders', { merchant_id: c.m.id, page: 0 }, 1001, 'page: must be at least 1');
  });

  it('getOrder: every field of the spec resources, the channel and the fee breakdown; isolation', async () => {
    const b = await buy(c, '100.50', { customer_name: '王五' });
    const buyDetail = await ok(c, 'getOrder', { merchant_id: c.m.id, order_no: b.order_no });
    expect(buyDetail).toMatchObject({
      order_no: b.order_no,
      order_type: 1,
      status: 'pending',
      cny_amount: '100.50',
      merchant_amount: '100.50',
      merchant_actual_amount: 9940,
      service_rate: '0.006',
      service_amount: 60,
      deposit_rate: 50,
      deposit_amount: 50,
      payment_method: 'alipay',
      paychannel_id: c.m.channels.beta,
      channel: { id: c.m.channels.beta, category: 'beta', category_text: 'Beta' },
      customer_name: '王五',
      payment_method_snapshot: null,
      customer_payment_method: null,
      createtime: T0,
      updatetime: T0,
      expires_at: T0 + 1800,
      fees: {
        amount: 10050,
        merchant_actual_amount: 9940,
        items: [
          { item: 'service', rate: '0.006', rate_unit: 'fraction', amount: 60, effect: 'deducted' },
          { item: 'deposit', rate: '50', rate_unit: 'basis_points', amount: 50, effect: 'deducted' },
        ],
      },
    });
    expect(buyDetail.pay_url).toBe('pay_url' in b ? b.pay_url : 'missing');

    const s = await sellNow(c, { merchant_id: c.m.id, order_type: 2, cny_amount: '1000', paychannel_id: c.m.channels.beta, paychannel_paymethod: 'bank' });
    const sellDetail = await ok(c, 'getOrder', { merchant_id: c.m.id, order_no: s.order_no });
    // A = 100000: service 600, passage 200, deposit 500, channel 300; actual = A + 600 + 200 + 500
    expect(sellDetail).toMatchObject({
      order_id: 'order_id' in s ? s.order_id : 'missing',
      passage_rate: '0.002',
      passage_amount: 200,
      base_rate: 30,
      channel_amount: 300,
      merchant_actual_amount: 101300,
      payment_method_id: 'payment_method_id' in s ? s.payment_method_id : -1,
      payment_method_snapshot: { bank: '中国银行', sub_bank: '上海分行', real_name: '测试' },
      pay_url: null,
      expires_at: null,
    });
    expect(sellDetail.fees.items.map((i) => [i.item, i.amount, i.effect])).toEqual([
      ['service', 600, 'added'],
      ['passage', 200, 'added'],
      ['deposit', 500, 'added'],
      ['channel', 300, 'informational'],
    ]);

    const other = await seedMerchant(c.service, 'Other');
    await fails(c, 'getOrder', { merchant_id: other.id, order_no: b.order_no }, 3001, `order_no: order ${b.order_no} not found`);
    await fails(c, 'getOrder', { merchant_id: c.m.id, order_no: 'B0' }, 3001, 'order_no: order B0 not found');
    await fails(c, 'getOrder', { merchant_id: c.m.id }, 1001, 'order_no: is required');
  });

  it('exportOrders: chunks with a cursor, the total from the start, newest first, same filters as the list', async () => {
    const made: string[] = [];
    for (let i = 0; i < 7; i++) {
      made.push((await buy(c, String(10 + i))).order_no);
      c.clock.advance(i % 2); // some share a createtime: the id breaks the tie
    }
    const first = await ok(c, 'exportOrders', { merchant_id: c.m.id, chunk_size: 3 });
    expect(first).toMatchObject({ total: 7, exported: 3 });
    expect(first.next_cursor).toEqual(expect.any(String));
    expect(first.rows[0]).toMatchObject({ merchant_amount: '16.00', passage_amount: 0, deposit_rate: 50 });

    // An order created mid-export is newer than the cursor: it never shifts the chunks.
    c.clock.advance(10);
    await buy(c, '99');
    const second = await ok(c, 'exportOrders', { merchant_id: c.m.id, chunk_size: 3, cursor: first.next_cursor });
    const third = await ok(c, 'exportOrders', { merchant_id: c.m.id, chunk_size: 3, cursor: second.next_cursor });
    expect([second.exported, third.exported, third.total, third.next_cursor]).toEqual([6, 7, 7, null]);
    const exported = [...first.rows, ...second.rows, ...third.rows].map((r) => r.order_no);
    expect(exported).toEqual([...made].reverse());

    const filtered = await ok(c, 'exportOrders', { merchant_id: c.m.id, order_no: made[3]!, order_no_match: 'exact' });
    expect(filtered).toMatchObject({ total: 1, exported: 1, next_cursor: null });

    await fails(c, 'exportOrders', { merchant_id: c.m.id, cursor: 'not-a-cursor' }, 1001, 'cursor: is not a cursor returned by exportOrders');
    await fails(c, 'exportOrders', { merchant_id: c.m.id, chunk_size: 0 }, 1001, 'chunk_size: must be at least 1');
    await fails(c, 'exportOrders', { merchant_id: c.m.id, chunk_size: 5000 }, 1001, 'chunk_size: must be at most 2000');
  });

  it('getDashboardStats: today and 30 days by type and status, a daily series in Beijing days', async () => {
    // T0 is 10:00 Beijing on 2026-01-01. Orders: 2 today, 1 yesterday 23:59:59, 1 exactly 29 days ago at 00:00, 1 30 days ago.
    const todayStart = T0 - 10 * 3600;
    c.clock.set(todayStart - 30 * 86400 + 5);
    await buy(c, '1'); // outside the 30-day window
    c.clock.set(todayStart - 29 * 86400);
    await buy(c, '2');
    c.clock.set(todayStart - 1);
    await sellNow(c, { merchant_id: c.m.id, order_type: 2, cny_amount: '3', paychannel_id: c.m.channels.beta, paychannel_paymethod: 'bank' });
    c.clock.set(todayStart);
    await buy(c, '4');
    c.clock.set(T0);
    await buy(c, '5');

    const stats = await ok(c, 'getDashboardStats', { merchant_id: c.m.id });
    expect(stats.time_zone).toBe('+08:00');
    expect(stats.today).toMatchObject({ since: todayStart, count: 2, amount: 900 });
    expect(stats.today.by_type_status).toHaveLength(10);
    expect(stats.today.by_type_status.find((b) => b.order_type === 1 && b.status === 'pending')).toMatchObject({ count: 2, amount: 900 });
    expect(stats.last_30_days).toMatchObject({ since: todayStart - 29 * 86400, count: 4, amount: 1400 });
    expect(stats.last_30_days.by_type_status.find((b) => b.order_type === 2 && b.status === 'pending')).toMatchObject({ count: 1, amount: 300 });

    expect(stats.daily).toHaveLength(30);
    expect(stats.daily[0]).toMatchObject({ date: '2025-12-03', day_start: todayStart - 29 * 86400, buy_count: 1, buy_amount: 200 });
    expect(stats.daily[28]).toMatchObject({ date: '2025-12-31', sell_count: 1, sell_amount: 300, buy_count: 0 });
    expect(stats.daily[29]).toMatchObject({ date: '2026-01-01', day_start: todayStart, buy_count: 2, buy_amount: 900, buy_completed_amount: 0 });
    expect(stats.balances).toEqual(await ok(c, 'getBalances', { merchant_id: c.m.id }));
    // The sell of 3.00 reserves A + service R(1.8)=2 + passage R(0.6)=1 + deposit R(1.5)=2.
    expect(stats.balances.frozen).toBe(300 + 2 + 1 + 2);

    await fails(c, 'getDashboardStats', { merchant_id: 0 }, 1001, 'merchant_id: must be at least 1');
  });

  it('getBalances / listLedger: balances from the ledger; a sell reserves its amount; pages newest first', async () => {
    expect(await ok(c, 'getBalances', { merchant_id: c.m.id })).toEqual({ available: 100_000_000, frozen: 0, deposit: 0 });
    const sell = await sellNow(c, { merchant_id: c.m.id, order_type: 2, cny_amount: '1000', paychannel_id: c.m.channels.beta, paychannel_paymethod: 'bank' });
    const reserved = sell.merchant_actual_amount; // 101300
    expect(await ok(c, 'getBalances', { merchant_id: c.m.id })).toEqual({ available: 100_000_000 - reserved, frozen: reserved, deposit: 0 });

    const detail = await ok(c, 'getOrder', { merchant_id: c.m.id, order_no: sell.order_no });
    expect(detail.ledger.map((t) => [t.kind, t.order_id])).toEqual([['sell_freeze', Number(detail.order_id)]]);
    expect(detail.ledger[0]!.entries.reduce((sum, e) => sum + e.amount, 0)).toBe(0);

    const page1 = await ok(c, 'listLedger', { merchant_id: c.m.id, limit: 1 });
    expect(page1.list.map((t) => t.kind)).toEqual(['sell_freeze']);
    expect(page1.next_before_id).toBe(page1.list[0]!.id);
    const page2 = await ok(c, 'listLedger', { merchant_id: c.m.id, limit: 1, before_id: page1.next_before_id! });
    expect(page2.list.map((t) => [t.kind, t.reason])).toEqual([['adjustment', 'test opening balance']]);
    expect(page2.next_before_id).toBeNull();

    await fails(c, 'getBalances', { merchant_id: 999 }, 3001, 'merchant_id: merchant 999 not found');
    await fails(c, 'listLedger', { merchant_id: c.m.id, limit: 201 }, 1001, 'limit: must be at most 200');
  });

  it('requestWithdrawal beyond the available balance is refused with 409 and writes nothing', async () => {
    const poor = await seedMerchant(c.service, 'Poor', { balance: 5000 });
    const orders = await rowCount(c.service, 'orders');
    const txs = await rowCount(c.service, 'ledger_transactions');
    await fails(c, 'requestWithdrawal', { merchant_id: poor.id, order_type: 2, cny_amount: '100', paychannel_id: poor.channels.beta, paychannel_paymethod: 'bank' }, 4002, /balance/);
    expect([await rowCount(c.service, 'orders'), await rowCount(c.service, 'ledger_transactions')]).toEqual([orders, txs]);
    expect(await ok(c, 'getBalances', { merchant_id: poor.id })).toEqual({ available: 5000, frozen: 0, deposit: 0 });
  });

  it('getOrder timeline and cancelOrder: an operator cancel is recorded and releases a reserved sell', async () => {
    const b = await buy(c, '10');
    c.clock.advance(5);
    const cancelled = await ok(c, 'cancelOrder', { merchant_id: c.m.id, order_no: b.order_no, reason: 'customer gave up' });
    expect(cancelled).toMatchObject({ status: 'cancelled', updatetime: T0 + 5 });
    expect(cancelled.timeline).toEqual([{ from: 'pending', to: 'cancelled', source: 'operator', reason: 'customer gave up', time: T0 + 5 }]);
    expect(cancelled.ledger).toEqual([]);
    await fails(c, 'cancelOrder', { merchant_id: c.m.id, order_no: b.order_no, reason: 'again' }, 4004, /cannot go from cancelled to cancelled/);

    const s = await sellNow(c, { merchant_id: c.m.id, order_type: 2, cny_amount: '50', paychannel_id: c.m.channels.gamma, paychannel_paymethod: 'bank' });
    const released = await ok(c, 'cancelOrder', { merchant_id: c.m.id, order_no: s.order_no, reason: 'payee closed' });
    expect(released.ledger.map((t) => t.kind)).toEqual(['sell_freeze', 'sell_release']);
    expect(await ok(c, 'getBalances', { merchant_id: c.m.id })).toEqual({ available: 100_000_000, frozen: 0, deposit: 0 });

    const other = await seedMerchant(c.service, 'Other');
    const b2 = await buy(c, '11');
    await fails(c, 'cancelOrder', { merchant_id: other.id, order_no: b2.order_no, reason: 'x' }, 3001, `order_no: order ${b2.order_no} not found`);
    await fails(c, 'cancelOrder', { merchant_id: c.m.id, order_no: b2.order_no, reason: '  ' }, 1001, 'reason: must be at least 1 characters');
    expect((await ok(c, 'getOrder', { merchant_id: c.m.id, order_no: b2.order_no })).status).toBe('pending');
  });

  it('simulateOrderOutcome and resendCallback: sandbox outcomes through the signed notification, callbacks queued and listed', async () => {
    await allowPrivateCallbacks(c.service);
    await write(c.service, (tx) => c.service.services.merchants.update(tx, { id: c.m.id, callback_url: 'http://127.0.0.1:9/callback' }));
    const b = await buy(c, '100');
    c.clock.advance(3);
    const paid = await ok(c, 'simulateOrderOutcome', { merchant_id: c.m.id, order_no: b.order_no, action: 'pay' });
    expect(paid.status).toBe('paid');
    expect(paid.timeline).toEqual([{ from: 'pending', to: 'paid', source: 'channel', reason: 'sandbox: pay (console)', time: T0 + 3 }]);
    expect(paid.ledger.map((t) => t.kind)).toEqual(['buy_paid']);
    expect(paid.callbacks).toHaveLength(1);
    expect(paid.callbacks[0]).toMatchObject({ order_no: b.order_no, order_status: 'paid', state: 'pending', trigger: 'transition', url: 'http://127.0.0.1:9/callback', attempts: 0 });
    expect(await ok(c, 'getBalances', { merchant_id: c.m.id })).toMatchObject({ available: 100_000_000 + paid.merchant_actual_amount, deposit: paid.deposit_amount });

    const again = await ok(c, 'simulateOrderOutcome', { merchant_id: c.m.id, order_no: b.order_no, action: 'pay', reason: 'twice' });
    expect(again.timeline).toHaveLength(1); // a repeated notification changes nothing
    const done = await ok(c, 'simulateOrderOutcome', { merchant_id: c.m.id, order_no: b.order_no, action: 'complete' });
    expect(done.status).toBe('completed');
    await fails(c, 'simulateOrderOutcome', { merchant_id: c.m.id, order_no: b.order_no, action: 'fail' }, 4004, /cannot go from completed to cancelled/);

    const resent = await ok(c, 'resendCallback', { merchant_id: c.m.id, order_no: b.order_no });
    expect(resent).toMatchObject({ order_status: 'completed', trigger: 'resend', state: 'pending' });
    const detail = await ok(c, 'getOrder', { merchant_id: c.m.id, order_no: b.order_no });
    expect(detail.callbacks.map((d) => [d.order_status, d.trigger])).toEqual([['paid', 'transition'], ['completed', 'transition'], ['completed', 'resend']]);

    const s = await sellNow(c, { merchant_id: c.m.id, order_type: 2, cny_amount: '10', paychannel_id: c.m.channels.beta, paychannel_paymethod: 'bank' });
    await fails(c, 'simulateOrderOutcome', { merchant_id: c.m.id, order_no: s.order_no, action: 'pay' }, 4004, /pay applies to buy orders only/);
    await fails(c, 'simulateOrderOutcome', { merchant_id: c.m.id, order_no: s.order_no, action: 'refund' }, 1001, 'action: must be one of pay, complete, fail');

    const other = await seedMerchant(c.service, 'Other');
    await fails(c, 'simulateOrderOutcome', { merchant_id: other.id, order_no: b.order_no, action: 'pay' }, 3001, `order_no: order ${b.order_no} not found`);
    await fails(c, 'resendCallback', { merchant_id: other.id, order_no: b.order_no }, 3001, `order_no: order ${b.order_no} not found`);
    const b2 = await buy(c, '5');
    await write(c.service, (tx) => c.service.services.merchants.update(tx, { id: c.m.id, callback_url: null }));
    const deliveries = await rowCount(c.service, 'callback_deliveries');
    await fails(c, 'resendCallback', { merchant_id: c.m.id, order_no: b2.order_no }, 4001, `callback_url: merchant ${c.m.id} has no callback URL`);
    expect(await rowCount(c.service, 'callback_deliveries')).toBe(deliveries);
  });

  it('an unknown method and a missing merchant are clear errors', async () => {
    await fails(c, 'dropTables', {}, 3001, 'method: no console call named dropTables');
    await fails(c, 'listOrders', { merchant_id: 4242 }, 3001, 'merchant_id: merchant 4242 not found');
  });
});

describe('console contract: operator calls', () => {
  let c: Ctx;
  beforeEach(async () => {
    c = await setup();
  });

  it('merchants: create shows the secret once, list/update never do, rotate replaces it', async () => {
    const created = await ok(c, 'createMerchant', { name: '  New Shop  ', callback_url: 'https://shop.example/cb', sign_type: 'md5' });
    expect(created).toMatchObject({ name: 'New Shop', sign_type: 'md5', callback_url: 'https://shop.example/cb', enabled: true });
    expect(created.api_key).toMatch(/^mk_/);
    expect(created.api_secret).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);

    const list = await ok(c, 'listMerchants', {});
    expect(list.map((m) => m.id)).toEqual([c.m.id, created.id]);
    expect(JSON.stringify(list)).not.toContain(created.api_secret);

    const updated = await ok(c, 'updateMerchant', { id: created.id, name: 'Renamed', callback_url: null, enabled: false, sign_type: 'hmac-sha256' });
    expect(updated).toMatchObject({ name: 'Renamed', callback_url: null, enabled: false, sign_type: 'hmac-sha256' });
    expect('api_secret' in updated).toBe(false);

    const rotated = (await ok(c, 'rotateMerchantSecret', { merchant_id: created.id })).done!;
    expect(rotated.api_secret).not.toBe(created.api_secret);
    const { merchants } = c.service.services;
    expect(merchants.secretOf(await read(c.service, (tx) => merchants.require(tx, created.id)))).toBe(rotated.api_secret);

    const before = await rowCount(c.service, 'merchants');
    await fails(c, 'createMerchant', { name: 'X', callback_url: 'ftp://x' }, 1001, 'callback_url: must be an http:// or https:// URL');
    await fails(c, 'createMerchant', { name: 'X', callback_url: 'https://u:pw@shop.example/cb' }, 1001, /^callback_url: must not contain a user name or password/);
    await fails(c, 'createMerchant', { name: 'X', callback_url: 'http://169.254.169.254/' }, 1001, /^callback_url: 169\.254\.169\.254 is a link-local address/);
    await fails(c, 'updateMerchant', { id: created.id, callback_url: 'http://[::1]:9000/cb' }, 1001, /^callback_url: ::1 is a loopback address/);
    await fails(c, 'createMerchant', { name: '   ' }, 1001, 'name: must be at least 1 characters');
    await fails(c, 'createMerchant', { name: 'X', sign_type: 'sha1' }, 1001, 'sign_type: must be one of hmac-sha256, md5');
    expect(await rowCount(c.service, 'merchants')).toBe(before);
    await fails(c, 'updateMerchant', { id: 999, name: 'x' }, 3001, 'merchant_id: merchant 999 not found');
    await fails(c, 'rotateMerchantSecret', { merchant_id: 'one' }, 1001, 'merchant_id: must be an integer');
  });

  it('channels: sensitive config is write-only and answered masked', async () => {
    const created = await ok(c, 'createChannel', {
      category: 'alpha',
      name: 'Acquirer A',
      pay_methods: ['bank', 'wxpay'],
      service_rate: '0.0050',
      min_amount: '10',
      max_amount: 20000.5,
      config: { merchant_no: 'M1234567890', key: 'super-secret-key' },
    });
    expect(created).toMatchObject({ pay_method: 'wxpay,bank', service_rate: '0.005', min_amount: '10.00', max_amount: '20000.50', enabled: true });
    expect(Object.keys(created.config_masked)).toEqual(['merchant_no', 'key']);
    expect(JSON.stringify(created)).not.toMatch(/M1234567890|super-secret-key/);

    const updated = await ok(c, 'updateChannel', { id: created.id, name: 'Acquirer A2', enabled: false });
    expect(updated).toMatchObject({ name: 'Acquirer A2', enabled: false });
    // Credentials change through their own call (a second person's approval; the desktop owner alone does it at once).
    await fails(c, 'updateChannel', { id: created.id, config: { key: 'x' } }, 1001, 'config: unknown parameter');
    const rotated = (await ok(c, 'changeChannelCredentials', { id: created.id, config: { key: 'rotated-key-value' } })).done!;
    expect(Object.keys(rotated.config_masked)).toEqual(['key']);
    const list = await ok(c, 'listChannels', {});
    expect(list.map((ch) => ch.id)).toContain(created.id);
    expect(JSON.stringify(list)).not.toContain('rotated-key-value');
    const { channels } = c.service.services;
    expect(channels.config(await read(c.service, (tx) => channels.require(tx, created.id)))).toEqual({ key: 'rotated-key-value' });

    const before = await rowCount(c.service, 'channels');
    await fails(c, 'createChannel', { category: 'alpha', name: 'X', pay_methods: [] }, 1001, 'pay_methods: must name at least one of wxpay, alipay, bank');
    await fails(c, 'createChannel', { category: 'alpha', name: 'X', pay_methods: ['bank'], min_amount: '5', max_amount: '1' }, 1001, 'max_amount: must not be below min_amount');
    await fails(c, 'createChannel', { category: 'alpha', name: 'X', pay_methods: ['bank'], service_rate: '1.5' }, 1001, /^service_rate: must be a decimal fraction/);
    expect(await rowCount(c.service, 'channels')).toBe(before);
    await fails(c, 'updateChannel', { id: created.id, min_amount: '30000' }, 1001, 'max_amount: must not be below min_amount');
    await fails(c, 'updateChannel', { id: 999, name: 'x' }, 3001, 'channel_id: channel 999 not found');
  });

  it('links: with fee overrides, listed by merchant or channel, unlinked', async () => {
    const ch = await ok(c, 'createChannel', { category: 'gamma', name: 'G2', pay_methods: ['alipay'], service_rate: '0.01' });
    const link = await ok(c, 'linkChannel', { merchant_id: c.m.id, channel_id: ch.id, service_rate: '0.002', deposit_rate: null });
    expect(link).toMatchObject({ service_rate: '0.002', deposit_rate: null, effective: { service_rate: '0.002', deposit_rate: 0 } });

    const byMerchant = await ok(c, 'listChannelLinks', { merchant_id: c.m.id });
    expect(byMerchant.map((l) => l.channel_id)).toEqual([c.m.channels.alpha, c.m.channels.beta, c.m.channels.gamma, ch.id]);
    const byChannel = await ok(c, 'listChannelLinks', { channel_id: ch.id });
    expect(byChannel).toEqual([link]);
    await fails(c, 'listChannelLinks', {}, 1001, 'merchant_id: give exactly one of merchant_id and channel_id');
    await fails(c, 'listChannelLinks', { merchant_id: c.m.id, channel_id: ch.id }, 1001, 'merchant_id: give exactly one of merchant_id and channel_id');
    await fails(c, 'listChannelLinks', { channel_id: 999 }, 3001, 'channel_id: channel 999 not found');

    await fails(c, 'linkChannel', { merchant_id: c.m.id, channel_id: ch.id, passage_rate: '-1' }, 1001, /^passage_rate: must be a decimal fraction above -1/);
    await fails(c, 'linkChannel', { merchant_id: 999, channel_id: ch.id }, 3001, 'merchant_id: merchant 999 not found');

    expect(await ok(c, 'unlinkChannel', { merchant_id: c.m.id, channel_id: ch.id })).toEqual({ merchant_id: c.m.id, channel_id: ch.id, unlinked: true });
    await fails(c, 'unlinkChannel', { merchant_id: c.m.id, channel_id: ch.id }, 3001, `channel_id: channel ${ch.id} is not linked to merchant ${c.m.id}`);
  });

  it('payment methods: settlement accounts, masked, enabled on and off', async () => {
    const added = await ok(c, 'addPaymentMethod', { merchant_id: c.m.id, kind: 'bank', bank: '招商银行', card_number: '6225880112345678', real_name: '赵六' });
    expect(added).toMatchObject({ kind: 'bank', source: 'operator', card_number: '622588******5678', enabled: true });
    const list = await ok(c, 'listPaymentMethods', { merchant_id: c.m.id });
    expect(list.map((p) => p.id)).toContain(added.id);
    expect(JSON.stringify(list)).not.toContain('6225880112345678');
    expect(await ok(c, 'setPaymentMethodEnabled', { merchant_id: c.m.id, id: added.id, enabled: false })).toMatchObject({ id: added.id, enabled: false });

    const before = await rowCount(c.service, 'payment_methods');
    await fails(c, 'addPaymentMethod', { merchant_id: c.m.id, kind: 'cash', card_number: '1234', real_name: 'x' }, 1001, 'kind: must be one of wxpay, alipay, bank');
    await fails(c, 'addPaymentMethod', { merchant_id: 999, kind: 'bank', card_number: '12345678', real_name: 'x' }, 3001, 'merchant_id: merchant 999 not found');
    expect(await rowCount(c.service, 'payment_methods')).toBe(before);
    await fails(c, 'setPaymentMethodEnabled', { merchant_id: c.m.id, id: 999, enabled: true }, 3001, `id: payment method 999 not found for merchant ${c.m.id}`);
    await fails(c, 'setPaymentMethodEnabled', { merchant_id: c.m.id, id: added.id }, 1001, 'enabled: is required');
  });

  it('adjustBalance: a ledger transaction with its reason; never below zero; nothing written on failure', async () => {
    const up = await adjustNow(c, { merchant_id: c.m.id, amount: '+100.50', reason: 'top-up by bank transfer' });
    expect(up).toMatchObject({ merchant_id: c.m.id, amount: 10050, reason: 'top-up by bank transfer', balances: { available: 100_010_050 } });
    const down = await adjustNow(c, { merchant_id: c.m.id, amount: '-0.50', reason: 'fee correction' });
    expect(down.balances.available).toBe(100_010_000);

    const txs = await rowCount(c.service, 'ledger_transactions');
    await fails(c, 'adjustBalance', { merchant_id: c.m.id, amount: '-2000000', reason: 'too much' }, 4002, /balance/);
    await fails(c, 'adjustBalance', { merchant_id: c.m.id, amount: '12.345', reason: 'x' }, 1001, 'amount: must be a signed amount of yuan such as -50.00 or +100');
    await fails(c, 'adjustBalance', { merchant_id: c.m.id, amount: '1', reason: '' }, 1001, 'reason: must be at least 1 characters');
    await fails(c, 'adjustBalance', { merchant_id: 999, amount: '1', reason: 'x' }, 3001, 'merchant_id: merchant 999 not found');
    expect(await rowCount(c.service, 'ledger_transactions')).toBe(txs);
  });

  it('adjustBalance with idempotency_key: a retry answers the first adjustment and books nothing; other fields are refused', async () => {
    const req = { merchant_id: c.m.id, amount: '+250.00', reason: 'top-up by bank transfer', idempotency_key: 'form-adj-1' };
    const txsBefore = await rowCount(c.service, 'ledger_transactions');
    const entriesBefore = await rowCount(c.service, 'ledger_entries');
    const first = await adjustNow(c, req);
    expect(first).toMatchObject({ amount: 25_000, balances: { available: 100_025_000 } });
    expect(await rowCount(c.service, 'ledger_transactions')).toBe(txsBefore + 1);
    const entriesAfterFirst = await rowCount(c.service, 'ledger_entries');
    expect(entriesAfterFirst).toBe(entriesBefore + 2);
    const keysAfterFirst = await rowCount(c.service, 'idempotency_keys');

    // The answer was lost and the operator retries (the same amount written another way is the same adjustment).
    c.clock.advance(30);
    expect(await adjustNow(c, req)).toEqual(first);
    expect(await adjustNow(c, { ...req, amount: '250' })).toEqual(first);
    expect(await rowCount(c.service, 'ledger_transactions')).toBe(txsBefore + 1);
    expect(await rowCount(c.service, 'ledger_entries')).toBe(entriesAfterFirst);
    expect((await read(c.service, (tx) => c.service.services.ledger.balances(tx, c.m.id))).available).toBe(100_025_000);

    const msg = 'idempotency_key: already used with a different adjustment (amount or reason)';
    await fails(c, 'adjustBalance', { ...req, amount: '+250.01' }, 4003, msg);
    await fails(c, 'adjustBalance', { ...req, amount: '-250.00' }, 4003, msg);
    await fails(c, 'adjustBalance', { ...req, reason: 'another reason' }, 4003, msg);
    await fails(c, 'adjustBalance', { ...req, idempotency_key: ' padded' }, 1001, /^idempotency_key: must be 1-255 printable ASCII/);
    await fails(c, 'adjustBalance', { ...req, idempotency_key: 'x'.repeat(256) }, 1001, /^idempotency_key: must be 1-255 printable ASCII/);
    await fails(c, 'adjustBalance', { ...req, idempotency_key: '' }, 1001, /^idempotency_key: must be 1-255 printable ASCII/);
    expect(await rowCount(c.service, 'ledger_transactions')).toBe(txsBefore + 1);
    expect(await rowCount(c.service, 'ledger_entries')).toBe(entriesAfterFirst);
    expect(await rowCount(c.service, 'idempotency_keys')).toBe(keysAfterFirst);

    // A refused first attempt keeps no key: the same key works once the adjustment is possible.
    await fails(c, 'adjustBalance', { ...req, amount: '-5000000', idempotency_key: 'form-adj-2' }, 4002, /balance/);
    expect(await rowCount(c.service, 'idempotency_keys')).toBe(keysAfterFirst);
    const second = await adjustNow(c, { ...req, amount: '-5', idempotency_key: 'form-adj-2' });
    expect(second.transaction_id).not.toBe(first.transaction_id);
    expect(second.balances.available).toBe(100_024_500);
    expect(await rowCount(c.service, 'ledger_transactions')).toBe(txsBefore + 2);
  });

  it('adjustBalance keys live apart from createOrder keys and HTTP Idempotency-Key values of the merchant', async () => {
    const key = 'shared-key-1';
    const order = await buy(c, '12.30', { idempotency_key: key });
    const adjusted = await adjustNow(c, { merchant_id: c.m.id, amount: '1', reason: 'r', idempotency_key: key });
    expect(adjusted.amount).toBe(100);
    // Each method replays its own first answer under the same text.
    expect(await buy(c, '12.30', { idempotency_key: key })).toEqual(order);
    expect(await adjustNow(c, { merchant_id: c.m.id, amount: '1', reason: 'r', idempotency_key: key })).toEqual(adjusted);
    // Each is stored in a namespace of its own.
    expect(await storedKey(c, c.m.id, consoleIdempotencyKey(key))).toBeDefined();
    expect(await storedKey(c, c.m.id, adjustmentIdempotencyKey(key))).toBeDefined();
    // No HTTP key (printable ASCII) reaches the adjustment's stored key, whatever its text.
    expect(await storedKey(c, c.m.id, key)).toBeUndefined();
    expect(await storedKey(c, c.m.id, `adjustment:${key}`)).toBeUndefined();
    expect(await storedKey(c, c.m.id, `adjustment.${key}`)).toBeUndefined();
    // Another merchant's adjustment with the same key is its own.
    const other = await seedMerchant(c.service, 'Other Merchant');
    const elsewhere = await adjustNow(c, { merchant_id: other.id, amount: '1', reason: 'r', idempotency_key: key });
    expect(elsewhere.merchant_id).toBe(other.id);
    expect(elsewhere.transaction_id).not.toBe(adjusted.transaction_id);
  });

  it('settings: listener settings are stored for the next start; bad values are refused', async () => {
    const initial = await ok(c, 'getSettings', {});
    expect(initial).toEqual({
      listener: { enabled: true, host: '127.0.0.1', port: 8787, base_path: '/addons/paychannel' },
      listener_in_use: { enabled: true, host: '127.0.0.1', port: 1, base_path: '/addons/paychannel' },
      listener_url: 'http://127.0.0.1:1',
      listener_error: null,
      data_dir: c.service.dataDir,
      version: '9.9.9-test',
    });
    const updated = await ok(c, 'updateListenerSettings', { port: 18301, base_path: '/api/pay/', host: '0.0.0.0', enabled: false });
    expect(updated.listener).toEqual({ enabled: false, host: '0.0.0.0', port: 18301, base_path: '/api/pay' });
    // The host applied them before answering, so the answer shows the outcome.
    expect(c.applied).toBe(1);
    expect(updated.listener_error).toBe('port 18301 on 0.0.0.0 is already in use');
    expect((await read(c.service, (tx) => c.service.services.settings.listener(tx)))).toEqual(updated.listener);
    expect((await ok(c, 'updateListenerSettings', { base_path: '/' })).listener.base_path).toBe('');

    await fails(c, 'updateListenerSettings', { port: 70000 }, 1001, 'port: must be at most 65535');
    await fails(c, 'updateListenerSettings', { host: 'bad host!' }, 1001, /^host: must be an IP address/);
    await fails(c, 'updateListenerSettings', { base_path: 'no-slash' }, 1001, /^base_path: must look like \/segment/);
    await fails(c, 'updateListenerSettings', { enabled: 'yes' }, 1001, 'enabled: must be a boolean');
    expect((await read(c.service, (tx) => c.service.services.settings.listener(tx)))).toMatchObject({ port: 18301, base_path: '' });
    expect(c.applied).toBe(2); // refused updates apply nothing
  });
});

describe('console contract: accounts, two-person approval and the audit trail', () => {
  let c: Ctx;
  let team: { owner: TestAccount; finance: TestAccount; operator: TestAccount; developer: TestAccount; admin: TestAccount };
  beforeEach(async () => {
    c = await setup();
    team = {
      owner: await createTestAccount(c.service, { role: 'owner', login: 'olivia' }),
      finance: await createTestAccount(c.service, { role: 'finance', login: 'fiona' }),
      operator: await createTestAccount(c.service, { role: 'operator', login: 'oscar', merchantIds: [c.m.id] }),
      developer: await createTestAccount(c.service, { role: 'developer', login: 'dev' }),
      admin: await createTestAccount(c.service, { role: 'admin', login: 'adam' }),
    };
  });
  const as = (a: TestAccount) => callerOf(a);
  const balances = () => read(c.service, (tx) => c.service.services.ledger.balances(tx, c.m.id));
  const audited = async () => (await ok(c, 'listAuditLog', { limit: 200 }, as(team.owner))).list.map((e) => `${e.account_login}:${e.action}`);
  const sell = (amount: string, extra: Record<string, unknown> = {}) => ({ merchant_id: c.m.id, order_type: 2, cny_amount: amount, paychannel_id: c.m.channels.beta, paychannel_paymethod: 'bank', ...extra });

  it('a withdrawal waits for a second person with its funds held; the requester cannot approve; finance approves with a fresh code; the order exists once', async () => {
    const before = await balances();
    const asked = await ok(c, 'requestWithdrawal', sell('5000.00'), as(team.operator));
    expect(asked.done).toBeNull();
    const approval = asked.approval!;
    expect(approval).toMatchObject({ kind: 'withdrawal', state: 'pending', merchant_id: c.m.id, requested_by: { login: 'oscar' }, mine: true, can_decide: false, expires_at: T0 + 24 * 3600 });
    // Exactly what will change: the amount with its fees and the balance before and after.
    expect(approval.changes.map((l) => l.label)).toEqual(['amount paid out', 'service fee', 'passage fee', 'deposit', 'taken from available', 'available balance']);
    const taken = Number(approval.changes[4]!.after!.replace('.', ''));
    expect(approval.changes[5]).toEqual({ key: 'available_balance', label: 'available balance', before: '1000000.00', after: ((before.available - taken) / 100).toFixed(2) });
    expect(approval.title_params).toEqual({ amount: '5000.00', merchant: 'Test Merchant', channel: 'Test Merchant beta' });
    // Held: the same money cannot be spent twice while it waits.
    expect(await balances()).toEqual({ ...before, available: before.available - taken, frozen: before.frozen + taken });
    expect(await rowCount(c.service, 'orders')).toBe(0);

    // The requester (an operator may not approve at all) and the finance account's wrong or missing code are refused.
    await fails(c, 'approveRequest', { id: approval.id, totp_code: '123456' }, 2008, 'approveRequest: the operator role may not do this (it needs approvals.decide)', as(team.operator));
    await fails(c, 'approveRequest', { id: approval.id }, 1001, 'totp_code: is required', as(team.finance));
    await fails(c, 'approveRequest', { id: approval.id, totp_code: '000000' }, 1001, 'totp_code: wrong or already used; enter the code the app shows now', as(team.finance));
    expect((await ok(c, 'getApproval', { id: approval.id }, as(team.finance))).can_decide).toBe(true);
    expect((await ok(c, 'listApprovals', { state: 'pending' }, as(team.finance))).list.map((a) => a.id)).toEqual([approval.id]);
    expect((await ok(c, 'getSession', {}, as(team.finance))).approvals_waiting).toBe(1);

    const code = totpCode(c.service, team.finance);
    const approved = await ok(c, 'approveRequest', { id: approval.id, totp_code: code, note: 'checked with the merchant' }, as(team.finance));
    expect(approved).toMatchObject({ state: 'approved', decided_by: { login: 'fiona' }, decision_note: 'checked with the merchant', outcome: expect.stringMatching(/^sell order S\d+ created$/) });
    // The hold went back and the order reserved its own: moved once.
    expect(await balances()).toEqual({ ...before, available: before.available - taken, frozen: before.frozen + taken });
    const orders = await ok(c, 'listOrders', { merchant_id: c.m.id }, as(team.operator));
    expect(orders.list.map((o) => [o.order_type, o.cny_amount, o.status])).toEqual([[2, '5000.00', 'pending']]);
    const kinds = (await ok(c, 'listLedger', { merchant_id: c.m.id }, as(team.finance))).list.map((t) => t.kind);
    expect(kinds.slice(0, 3)).toEqual(['sell_freeze', 'withdrawal_release', 'withdrawal_hold']);
    // A decided request cannot be decided again; the same code never works twice.
    await fails(c, 'approveRequest', { id: approval.id, totp_code: code }, 4001, `id: approval request ${approval.id} is approved, no longer pending`, as(team.finance));
    expect(await audited()).toEqual(expect.arrayContaining(['oscar:approval.request', 'fiona:approval.approve', 'fiona:order.withdraw']));
  });

  it('nobody approves their own request, even an owner', async () => {
    const asked = (await ok(c, 'adjustBalance', { merchant_id: c.m.id, amount: '+10', reason: 'owner top-up' }, as(team.owner))).approval!;
    await fails(c, 'approveRequest', { id: asked.id, totp_code: totpCode(c.service, team.owner) }, 2008, `id: approval request ${asked.id} is your own: a second person must approve it`, as(team.owner));
    await fails(c, 'rejectRequest', { id: asked.id, note: 'no' }, 2008, `id: approval request ${asked.id} is your own: cancel it instead`, as(team.owner));
    const done = await ok(c, 'approveRequest', { id: asked.id, totp_code: totpCode(c.service, team.finance) }, as(team.finance));
    expect(done.outcome).toMatch(/^ledger transaction #\d+ booked$/);
  });

  it('a rejected, cancelled or expired withdrawal releases its hold; nothing is created', async () => {
    const before = await balances();
    const rejected = (await ok(c, 'requestWithdrawal', sell('100'), as(team.operator))).approval!;
    const cancelled = (await ok(c, 'requestWithdrawal', sell('200'), as(team.operator))).approval!;
    const expired = (await ok(c, 'requestWithdrawal', sell('300'), as(team.operator))).approval!;
    expect((await balances()).available).toBeLessThan(before.available);
    await fails(c, 'rejectRequest', { id: rejected.id }, 1001, 'note: is required', as(team.finance));
    expect(await ok(c, 'rejectRequest', { id: rejected.id, note: 'wrong account' }, as(team.finance))).toMatchObject({ state: 'rejected', decision_note: 'wrong account' });
    await fails(c, 'cancelRequest', { id: cancelled.id }, 2008, `id: only the account that asked may cancel approval request ${cancelled.id}`, as(team.finance));
    expect(await ok(c, 'cancelRequest', { id: cancelled.id }, as(team.operator))).toMatchObject({ state: 'cancelled' });
    c.clock.advance(24 * 3600);
    await c.service.work.runDue();
    expect(await ok(c, 'getApproval', { id: expired.id }, as(team.operator))).toMatchObject({ state: 'expired', outcome: 'expired without a decision' });
    expect(await balances()).toEqual(before);
    expect(await rowCount(c.service, 'orders')).toBe(0);
    expect(await audited()).toEqual(expect.arrayContaining(['fiona:approval.reject', 'oscar:approval.cancel', 'system:approval.expire']));
  });

  it('a withdrawal whose fees changed before approval fails instead of taking another amount', async () => {
    const asked = (await ok(c, 'requestWithdrawal', sell('1000'), as(team.operator))).approval!;
    await c.service.store.write((tx) => c.service.services.adminActions.updateChannel(tx, SYSTEM_ACTOR, { id: c.m.channels.beta, service_rate: '0.05' }));
    const before = await balances();
    const decided = await ok(c, 'approveRequest', { id: asked.id, totp_code: totpCode(c.service, team.finance) }, as(team.finance));
    expect(decided).toMatchObject({ state: 'failed', outcome: expect.stringMatching(/^not done: the channel's fees changed/) });
    expect((await balances()).available).toBeGreaterThan(before.available);
    expect(await rowCount(c.service, 'orders')).toBe(0);
  });

  it('withdrawal thresholds: at or below the console threshold a withdrawal is done at once', async () => {
    const limits = await ok(c, 'updateMerchantLimits', { id: c.m.id, console_withdrawal_threshold: '500.00', api_withdrawal_threshold: '0' }, as(team.admin));
    expect(limits).toMatchObject({ console_withdrawal_threshold: 50_000, api_withdrawal_threshold: 0 });
    const small = await ok(c, 'requestWithdrawal', sell('500.00'), as(team.operator));
    expect(small.approval).toBeNull();
    expect(small.done).toMatchObject({ order_type: 2, cny_amount: '500.00' });
    expect((await ok(c, 'requestWithdrawal', sell('500.01'), as(team.operator))).approval).not.toBeNull();
    await fails(c, 'updateMerchantLimits', { id: c.m.id, console_withdrawal_threshold: '-1' }, 1001, 'console_withdrawal_threshold: must be 0 or more', as(team.admin));
    expect(await audited()).toEqual(expect.arrayContaining(['adam:merchant.limits', 'oscar:order.withdraw']));
  });

  it('a new API secret waits for approval; the requester sees it once', async () => {
    const asked = (await ok(c, 'rotateMerchantSecret', { merchant_id: c.m.id }, as(team.developer))).approval!;
    expect(asked).toMatchObject({ kind: 'secret_rotation', merchant_id: c.m.id });
    // Finance approves money, not keys: the owner does.
    await fails(c, 'approveRequest', { id: asked.id, totp_code: totpCode(c.service, team.finance) }, 2008, `id: approval request ${asked.id} is not one this account may decide`, as(team.finance));
    const decided = await ok(c, 'approveRequest', { id: asked.id, totp_code: totpCode(c.service, team.owner) }, as(team.owner));
    expect(decided.can_reveal_secret).toBe(false); // the approver is not the requester
    expect((await ok(c, 'getApproval', { id: asked.id }, as(team.developer))).can_reveal_secret).toBe(true);
    await fails(c, 'revealRotatedSecret', { approval_id: asked.id }, 3001, `approval_id: no secret rotation ${asked.id} asked for by this account`, as(team.owner));
    const revealed = await ok(c, 'revealRotatedSecret', { approval_id: asked.id }, as(team.developer));
    const { merchants } = c.service.services;
    expect(merchants.secretOf(await read(c.service, (tx) => merchants.require(tx, c.m.id)))).toBe(revealed.api_secret);
    expect(revealed.api_secret).not.toBe(c.m.apiSecret);
    await fails(c, 'revealRotatedSecret', { approval_id: asked.id }, 4001, `approval_id: the secret of rotation ${asked.id} was shown already`, as(team.developer));
    expect((await ok(c, 'getApproval', { id: asked.id }, as(team.developer))).can_reveal_secret).toBe(false);
    // The secret is nowhere in the audit trail.
    expect(JSON.stringify(await ok(c, 'listAuditLog', { limit: 200 }, as(team.owner)))).not.toContain(revealed.api_secret);
  });

  it('new channel credentials wait for approval; the values never show', async () => {
    const asked = (await ok(c, 'changeChannelCredentials', { id: c.m.channels.alpha, config: { key: 'brand-new-key' } }, as(team.admin))).approval!;
    expect(asked.changes).toEqual([{ key: 'credential_keys', label: 'credential keys (values hidden)', before: '(none)', after: 'key' }]);
    expect(JSON.stringify(asked)).not.toContain('brand-new-key');
    await ok(c, 'approveRequest', { id: asked.id, totp_code: totpCode(c.service, team.owner) }, as(team.owner));
    const { channels } = c.service.services;
    expect(channels.config(await read(c.service, (tx) => channels.require(tx, c.m.channels.alpha)))).toEqual({ key: 'brand-new-key' });
    expect(JSON.stringify(await ok(c, 'listAuditLog', { limit: 200 }, as(team.owner)))).not.toContain('brand-new-key');
  });

  it('accounts: create, list, update, reset password and two-factor; a role changes only on approval', async () => {
    const created = await ok(c, 'createAccount', { login: 'Vera', display_name: 'Vera V', password: 'twelve chars long', role: 'viewer', merchant_ids: [c.m.id] }, as(team.admin));
    expect(created).toMatchObject({ login: 'vera', role: 'viewer', merchant_ids: [c.m.id], enabled: true, totp_required: false });
    await fails(c, 'createAccount', { login: 'vera', display_name: 'x', password: 'twelve chars long', role: 'viewer' }, 4001, 'login: vera is taken', as(team.admin));
    await fails(c, 'createAccount', { login: 'walt', display_name: 'x', password: 'short', role: 'viewer' }, 1001, 'password: must be at least 12 characters', as(team.admin));
    await fails(c, 'createAccount', { login: 'walt', display_name: 'x', password: 'twelve chars long', role: 'admin', merchant_ids: [c.m.id] }, 1001, /^merchant_ids: a admin acts for every merchant/, as(team.admin));
    expect((await ok(c, 'listAccounts', {}, as(team.admin))).map((a) => a.login)).toEqual(expect.arrayContaining(['vera', 'olivia']));
    expect(await ok(c, 'updateAccount', { id: created.id, display_name: 'Vera W' }, as(team.admin))).toMatchObject({ display_name: 'Vera W' });
    await fails(c, 'updateAccount', { id: team.admin.id, enabled: false }, 4001, 'id: you cannot disable your own account', as(team.admin));
    const link = await ok(c, 'resetAccountPassword', { id: created.id }, as(team.admin));
    expect(link.url).toMatch(/\/console\/#\/set-password\?token=/);
    expect(await ok(c, 'resetAccountTotp', { id: team.finance.id }, as(team.admin))).toMatchObject({ totp_enabled: false, totp_required: true });

    const role = (await ok(c, 'requestRoleChange', { id: created.id, role: 'operator' }, as(team.admin))).approval!;
    expect(role).toMatchObject({ kind: 'account_role', changes: [{ label: 'role', before: 'viewer', after: 'operator' }] });
    expect((await ok(c, 'listAccounts', {}, as(team.admin))).find((a) => a.id === created.id)!.role).toBe('viewer');
    await fails(c, 'requestRoleChange', { id: team.admin.id, role: 'owner' }, 4001, 'id: another owner or admin must ask for a change of your own role', as(team.admin));
    await ok(c, 'approveRequest', { id: role.id, totp_code: totpCode(c.service, team.owner) }, as(team.owner));
    expect((await ok(c, 'listAccounts', {}, as(team.admin))).find((a) => a.id === created.id)!.role).toBe('operator');
    expect(await audited()).toEqual(expect.arrayContaining(['adam:account.create', 'adam:account.password_reset', 'adam:account.totp_reset', 'olivia:account.role']));
  });

  it('the signed-in account: session, password, two-factor enrolment, sign out everywhere', async () => {
    const me = as(team.operator);
    const session = await ok(c, 'getSession', {}, me);
    expect(session).toMatchObject({ account: { login: 'oscar', role: 'operator', merchant_ids: [c.m.id] }, desktop: false, stage: 'full', approvals_waiting: 0 });
    expect(session.permissions).toContain('orders.create');
    expect(session.permissions).not.toContain('approvals.decide');
    await fails(c, 'changePassword', { current_password: 'wrong one', new_password: 'another good password' }, 1001, "current_password: is not this account's password", me);
    await ok(c, 'changePassword', { current_password: team.operator.password, new_password: 'another good password' }, me);
    const enrolment = await ok(c, 'beginTotpEnrolment', {}, me);
    await fails(c, 'confirmTotpEnrolment', { code: '000000' }, 1001, "code: is not the code the app shows now (check the phone's clock)", me);
    const confirmed = await ok(c, 'confirmTotpEnrolment', { code: totpCodeAt(enrolment.secret, 'oscar', c.clock.now()) }, me);
    expect(confirmed.account.totp_enabled).toBe(true);
    expect(await ok(c, 'signOutEverywhere', {}, me)).toEqual({ ended_sessions: 0 });
  });

  it('developer settings, and an audit trail each role sees as far as its merchants go, filtered and paged', async () => {
    const was = (await read(c.service, (tx) => c.service.services.merchants.get(tx, c.m.id))).sign_type;
    const now = was === 'md5' ? 'hmac-sha256' : 'md5';
    const dev = await ok(c, 'updateMerchantDeveloperSettings', { merchant_id: c.m.id, sign_type: now }, as(team.developer));
    expect(dev.sign_type).toBe(now);
    await ok(c, 'createMerchant', { name: 'Elsewhere' }, as(team.admin));
    const all = await ok(c, 'listAuditLog', { limit: 200 }, as(team.owner));
    const entry = all.list.find((e) => e.action === 'merchant.update')!;
    expect(entry).toMatchObject({ actor_kind: 'account', account_login: 'dev', role: 'developer', address: '127.0.0.1', user_agent: 'vitest', merchant_id: c.m.id, target: `merchant #${c.m.id}` });
    expect(entry.before).toMatchObject({ sign_type: was });
    expect(entry.after).toMatchObject({ sign_type: now });
    expect(entry.hash).toMatch(/^[0-9a-f]{64}$/);
    const byAction = await ok(c, 'listAuditLog', { action: 'merchant.create', limit: 200 }, as(team.owner));
    expect(byAction.list.map((e) => e.account_login)).toEqual(['adam']);
    const byAccount = await ok(c, 'listAuditLog', { account_login: 'dev', limit: 200 }, as(team.owner));
    expect(new Set(byAccount.list.map((e) => e.account_login))).toEqual(new Set(['dev']));
    const page = await ok(c, 'listAuditLog', { limit: 2 }, as(team.owner));
    expect(page.list).toHaveLength(2);
    const next = await ok(c, 'listAuditLog', { limit: 2, before_id: page.next_before_id! }, as(team.owner));
    expect(next.list[0]!.id).toBeLessThan(page.list[1]!.id);
    // A limited finance account sees entries about its merchants only.
    const limited = await createTestAccount(c.service, { role: 'finance', merchantIds: [c.m.id] });
    const seen = await ok(c, 'listAuditLog', { limit: 200 }, as(limited));
    expect(seen.list.length).toBeGreaterThan(0);
    expect(seen.list.every((e) => e.merchant_id === c.m.id)).toBe(true);
    const verdict = await c.service.services.audit.verify(c.service.store);
    expect(verdict).toMatchObject({ ok: true, problem: null });
  });
});

describe('console contract coverage', () => {
  afterAll(() => undefined);
  it('every contract method was called successfully above', () => {
    expect(CONSOLE_METHODS.filter((m) => !covered.has(m))).toEqual([]);
  });
});
