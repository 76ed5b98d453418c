import { describe, expect, it } from 'vitest';
import { computeSignature } from '../../../src-shared/client/sign';
import { newNonce } from '../../../src-shared/client/merchant-client';
import { ErrorCode } from '../../../src-shared/errors';
import { SANDBOX_NOTIFY_SECRET_KEY } from '../../../src-main/channels/sandbox-driver';
import type { OrderRow } from '../../../src-main/repositories/order-repository';
import type { SandboxAction } from '../../../src-main/services/sandbox-service';
import type { MerchantConsoleService } from '../../../src-main/service';
import { manualClock, read, seedMerchant, testListener, testService, write } from '../../support/service-harness';
import { expectLedgerConsistent, newBuy, newSell, fund, reload, writeFootprint } from '../../support/money';

async function setup() {
  const clock = manualClock(1_800_000_000);
  const service = await testService({ clock });
  const listener = await testListener(service);
  const m = await seedMerchant(service);
  const notifyUrl = (channelId: number) => `${listener.url}/channel/notify/${channelId}`;
  const post = async (url: string, body: unknown) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as { code: number; msg: string; data: unknown } };
  };
  return { clock, service, listener, m, notifyUrl, post };
}

/** The signed notification the sandbox channel sends for this action (its own unit of work). */
function notificationFor(service: MerchantConsoleService, order: OrderRow, action: SandboxAction) {
  return write(service, (tx) => service.services.sandbox.notificationFor(tx, order, action));
}

const timelineOf = (service: MerchantConsoleService, orderId: number) => read(service, (tx) => service.services.lifecycle.timelineOf(tx, orderId));
const balances = (service: MerchantConsoleService, merchantId: number) => read(service, (tx) => service.services.ledger.balances(tx, merchantId));
const ledgerTransactionsOf = async (service: MerchantConsoleService, orderId: number) =>
  (await read(service, (tx) => tx.get<{ n: number }>('SELECT count(*) AS n FROM ledger_transactions WHERE order_id = ?', [orderId])))!.n;

describe('POST /channel/notify/<channel_id>', () => {
  it('applies a genuine notification once; a repeated event is acknowledged without change', async () => {
    const { service, m, notifyUrl, post } = await setup();
    const order = await newBuy(service, m);
    const first = await notificationFor(service, order, 'pay');
    expect(await post(notifyUrl(first.channelId), first.body)).toEqual({ status: 200, body: { code: 1, msg: 'success', data: { order_no: order.order_no, status: 'paid', changed: true } } });
    const repeat = await notificationFor(service, order, 'pay');
    expect((await post(notifyUrl(repeat.channelId), repeat.body)).body.data).toEqual({ order_no: order.order_no, status: 'paid', changed: false });
    expect(await timelineOf(service, order.id)).toHaveLength(1);
    await expectLedgerConsistent(service);
  });

  it('one notification delivered twice at the same time moves the order once and posts its ledger transaction once', async () => {
    const { service, m, notifyUrl, post } = await setup();
    const order = await newBuy(service, m);
    const n = await notificationFor(service, order, 'pay');
    const answers = await Promise.all([post(notifyUrl(n.channelId), n.body), post(notifyUrl(n.channelId), n.body)]);
    // One applies it; the other finds its nonce used (whichever came second).
    expect(answers.map((a) => [a.status, a.body.code]).sort()).toEqual([
      [200, 1],
      [401, ErrorCode.AUTH_NONCE_REUSED],
    ]);
    expect(answers.find((a) => a.status === 200)!.body.data).toEqual({ order_no: order.order_no, status: 'paid', changed: true });
    expect((await reload(service, order)).status).toBe('paid');
    expect(await timelineOf(service, order.id)).toHaveLength(1);
    expect(await ledgerTransactionsOf(service, order.id)).toBe(1);
    expect(await balances(service, m.id)).toEqual({ available: order.merchant_actual_amount, frozen: 0, deposit: order.deposit_amount });
    await expectLedgerConsistent(service);
  });

  it('two signed notifications of the same event for one order (different nonces) at the same time move it once', async () => {
    const { service, m, notifyUrl, post } = await setup();
    for (let round = 0; round < 3; round++) {
      const order = await newBuy(service, m);
      const a = await notificationFor(service, order, 'pay');
      const b = await notificationFor(service, order, 'pay');
      expect(a.body.nonce).not.toBe(b.body.nonce);
      const answers = await Promise.all([post(notifyUrl(a.channelId), a.body), post(notifyUrl(b.channelId), b.body)]);
      // Both are genuine: both acknowledged, exactly one of them changed the order.
      expect(answers.map((r) => [r.status, r.body.code])).toEqual([
        [200, 1],
        [200, 1],
      ]);
      expect(answers.map((r) => (r.body.data as { changed: boolean }).changed).sort()).toEqual([false, true]);
      for (const r of answers) expect(r.body.data).toMatchObject({ order_no: order.order_no, status: 'paid' });
      expect((await reload(service, order)).status).toBe('paid');
      expect(await timelineOf(service, order.id)).toHaveLength(1);
      expect(await ledgerTransactionsOf(service, order.id)).toBe(1);
    }
    await expectLedgerConsistent(service);
  });

  it('refuses forged, replayed, stale, mismatched and misdirected notifications, writing nothing', async () => {
    const { clock, service, m, notifyUrl, post } = await setup();
    const order = await newBuy(service, m);
    const { channels } = service.services;
    const good = await notificationFor(service, order, 'pay');
    const secret = channels.config(await read(service, (tx) => channels.require(tx, good.channelId)))[SANDBOX_NOTIFY_SECRET_KEY]!;
    expect(secret).toMatch(/^ns_/);
    const resign = (body: Record<string, unknown>, key = secret) => {
      const { signature: _drop, ...rest } = body;
      return { ...rest, signature: computeSignature(rest as never, key, 'hmac-sha256') };
    };
    const before = await writeFootprint(service);
    const cases: [string, string, unknown, number, number][] = [
      ['forged signature', notifyUrl(good.channelId), { ...good.body, signature: 'A'.repeat(64) }, 401, ErrorCode.AUTH_BAD_SIGNATURE],
      ['signed with another key', notifyUrl(good.channelId), resign(good.body, 'ns_not_the_secret'), 401, ErrorCode.AUTH_BAD_SIGNATURE],
      ['tampered event', notifyUrl(good.channelId), { ...good.body, event: 'failed' }, 401, ErrorCode.AUTH_BAD_SIGNATURE],
      ['wrong amount', notifyUrl(good.channelId), resign({ ...good.body, amount: good.body.amount + 1 }), 400, ErrorCode.VALIDATION],
      ['stale', notifyUrl(good.channelId), resign({ ...good.body, timestamp: clock.now() - 301 }), 401, ErrorCode.AUTH_STALE_TIMESTAMP],
      ['unknown field', notifyUrl(good.channelId), resign({ ...good.body, extra: 'x' }), 400, ErrorCode.VALIDATION],
      ['unknown event', notifyUrl(good.channelId), resign({ ...good.body, event: 'refunded' }), 400, ErrorCode.VALIDATION],
      ['fractional amount', notifyUrl(good.channelId), resign({ ...good.body, amount: good.body.amount + 0.5 }), 400, ErrorCode.VALIDATION],
      ['malformed nonce', notifyUrl(good.channelId), resign({ ...good.body, nonce: 'short' }), 401, ErrorCode.AUTH_MISSING],
      ['no timestamp', notifyUrl(good.channelId), resign({ ...good.body, timestamp: undefined }), 401, ErrorCode.AUTH_MISSING],
      ['other channel', notifyUrl(m.channels.gamma), good.body, 401, ErrorCode.AUTH_BAD_SIGNATURE],
      ['missing channel', notifyUrl(9999), good.body, 404, ErrorCode.NOT_FOUND],
      ['malformed channel id', `${notifyUrl(0)}x`, good.body, 404, ErrorCode.NOT_FOUND],
      ['not an object', notifyUrl(good.channelId), [good.body], 400, ErrorCode.BODY_NOT_OBJECT],
    ];
    for (const [name, url, body, status, code] of cases) {
      const res = await post(url, body);
      expect([name, res.status, res.body.code, res.body.data]).toEqual([name, status, code, null]);
    }
    expect(await writeFootprint(service)).toEqual(before);

    expect((await post(notifyUrl(good.channelId), good.body)).status).toBe(200);
    const replay = await post(notifyUrl(good.channelId), good.body);
    expect([replay.status, replay.body.code]).toEqual([401, ErrorCode.AUTH_NONCE_REUSED]);
    // A notification for an order of another channel is not found on this one.
    const other = await newBuy(service, m, 10_000, 'gamma');
    const misdirected = resign({ ...(await notificationFor(service, other, 'pay')).body });
    expect((await post(notifyUrl(good.channelId), misdirected)).status).toBe(404);
  });

  it('refuses a stale timestamp or a malformed nonce with the code and words of a merchant request', async () => {
    const { clock, service, listener, m, notifyUrl, post } = await setup();
    const order = await newBuy(service, m);
    const good = await notificationFor(service, order, 'pay');
    const secret = service.services.channels.config(await read(service, (tx) => service.services.channels.require(tx, good.channelId)))[SANDBOX_NOTIFY_SECRET_KEY]!;
    const notification = (over: Record<string, unknown>) => {
      const { signature: _drop, ...rest } = { ...good.body, ...over };
      return post(notifyUrl(good.channelId), { ...rest, signature: computeSignature(rest as never, secret, 'hmac-sha256') });
    };
    const merchantRequest = (over: Record<string, unknown>) => {
      const body: Record<string, unknown> = { api_key: m.apiKey, timestamp: clock.now(), nonce: newNonce(), ...over };
      return post(`${listener.url}/addons/paychannel/merchant/getPayChannels`, { ...body, signature: computeSignature(body as never, m.apiSecret) });
    };
    for (const over of [{ timestamp: clock.now() - 301 }, { timestamp: clock.now() + 301 }, { nonce: 'short' }, { nonce: 'with space!' }]) {
      const [fromChannel, fromMerchant] = [await notification(over), await merchantRequest(over)];
      expect(fromMerchant.status).toBe(401);
      expect(fromChannel).toEqual(fromMerchant);
    }
  });

  it('a notification the state machine refuses is a 409 and changes nothing', async () => {
    const { service, m, notifyUrl, post } = await setup();
    await fund(service, m.id, 100_000);
    const order = await newBuy(service, m);
    const fail = await notificationFor(service, order, 'fail');
    expect((await post(notifyUrl(fail.channelId), fail.body)).body.data).toMatchObject({ status: 'cancelled' });
    const pay = await notificationFor(service, order, 'pay');
    const before = await writeFootprint(service);
    const res = await post(notifyUrl(pay.channelId), pay.body);
    expect([res.status, res.body.code, res.body.msg]).toEqual([409, ErrorCode.ILLEGAL_TRANSITION, expect.stringContaining('cannot go from cancelled to paid')]);
    expect(await writeFootprint(service)).toEqual(before);
    // "pay" makes no sense for a sell.
    const sell = await newSell(service, m);
    await expect(notificationFor(service, sell, 'pay')).rejects.toThrow(/applies to buy orders only/);
  });

  it('a payment reported after the order expired is refused, even before the sweeper ran; the sweeper then cancels it', async () => {
    const { clock, service, m, notifyUrl, post } = await setup();
    const order = await newBuy(service, m);
    clock.set(order.expires_at!);
    // The sweeper has not run yet: the order is still pending, but past its deadline.
    const pay = await notificationFor(service, order, 'pay');
    const before = await writeFootprint(service);
    const balancesBefore = await balances(service, m.id);
    const res = await post(notifyUrl(pay.channelId), pay.body);
    expect([res.status, res.body.code, res.body.msg]).toEqual([409, ErrorCode.ILLEGAL_TRANSITION, expect.stringContaining('expired')]);
    expect(await writeFootprint(service)).toEqual(before);
    expect(await balances(service, m.id)).toEqual(balancesBefore);
    // In-process (CLI and console with no listener) takes the same rule.
    await expect(write(service, (tx) => service.services.sandbox.simulate(tx, order.order_no, 'pay'))).rejects.toThrow(/expired/);
    expect(await write(service, (tx) => service.services.lifecycle.expireDue(tx, 100))).toEqual({ expired: 1, seen: 1 });
    expect((await reload(service, order)).status).toBe('cancelled');
    // One second earlier it was still payable.
    const later = await newBuy(service, m);
    clock.set(later.expires_at! - 1);
    const ok = await notificationFor(service, later, 'pay');
    expect((await post(notifyUrl(ok.channelId), ok.body)).body.data).toMatchObject({ status: 'paid', changed: true });
    await expectLedgerConsistent(service);
  });
});
