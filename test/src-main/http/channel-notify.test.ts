import { describe, expect, it } from 'vitest';
import { computeSignature } from '../../../src-shared/client/sign';
import { ErrorCode } from '../../../src-shared/errors';
import { manualClock, seedMerchant, testListener, testService } from '../../support/service-harness';
import { expectLedgerConsistent, newBuy, newSell, fund, writeFootprint } from '../../support/money';

async function setup() {
  const clock = manualClock(1_800_000_000);
  const service = testService({ clock });
  const listener = await testListener(service);
  const m = seedMerchant(service);
  const notifyUrl = (channelId: number) => `${listener.url}/channel/notify/${channelId}`;
  const post = async (url: string, body: unknown) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as { code: number; msg: string; data: unknown } };
  };
  return { clock, service, listener, m, notifyUrl, post };
}

describe('POST /channel/notify/<channel_id>', () => {
  it('applies a genuine notification once; a repeated event is acknowledged without change', async () => {
    const { service, m, notifyUrl, post } = await setup();
    const order = newBuy(service, m);
    const { sandbox } = service.services;
    const first = sandbox.notificationFor(order, 'pay');
    expect(await post(notifyUrl(first.channelId), first.body)).toEqual({ status: 200, body: { code: 1, msg: 'success', data: { order_no: order.order_no, status: 'paid', changed: true } } });
    const repeat = sandbox.notificationFor(order, 'pay');
    expect((await post(notifyUrl(repeat.channelId), repeat.body)).body.data).toEqual({ order_no: order.order_no, status: 'paid', changed: false });
    expect(service.services.lifecycle.timelineOf(order.id)).toHaveLength(1);
    expectLedgerConsistent(service);
  });

  it('refuses forged, replayed, stale, mismatched and misdirected notifications, writing nothing', async () => {
    const { clock, service, m, notifyUrl, post } = await setup();
    const order = newBuy(service, m);
    const { sandbox } = service.services;
    const good = sandbox.notificationFor(order, 'pay');
    const secret = service.drivers.sandbox.notifySecret(good.channelId);
    const resign = (body: Record<string, unknown>, key = secret) => {
      const { signature: _drop, ...rest } = body;
      return { ...rest, signature: computeSignature(rest as never, key, 'hmac-sha256') };
    };
    const before = writeFootprint(service);
    const cases: [string, string, unknown, number, number][] = [
      ['forged signature', notifyUrl(good.channelId), { ...good.body, signature: 'A'.repeat(64) }, 401, ErrorCode.AUTH_BAD_SIGNATURE],
      ['signed with another key', notifyUrl(good.channelId), resign(good.body, 'ns_not_the_secret'), 401, ErrorCode.AUTH_BAD_SIGNATURE],
      ['tampered event', notifyUrl(good.channelId), { ...good.body, event: 'failed' }, 401, ErrorCode.AUTH_BAD_SIGNATURE],
      ['wrong amount', notifyUrl(good.channelId), resign({ ...good.body, amount: good.body.amount + 1 }), 400, ErrorCode.VALIDATION],
      ['stale', notifyUrl(good.channelId), resign({ ...good.body, timestamp: clock.now() - 301 }), 401, ErrorCode.AUTH_STALE_TIMESTAMP],
      ['unknown field', notifyUrl(good.channelId), resign({ ...good.body, extra: 'x' }), 400, ErrorCode.VALIDATION],
      ['unknown event', notifyUrl(good.channelId), resign({ ...good.body, event: 'refunded' }), 400, ErrorCode.VALIDATION],
      ['other channel', notifyUrl(m.channels.gamma), good.body, 401, ErrorCode.AUTH_BAD_SIGNATURE],
      ['missing channel', notifyUrl(9999), good.body, 404, ErrorCode.NOT_FOUND],
      ['malformed channel id', `${notifyUrl(0)}x`, good.body, 404, ErrorCode.NOT_FOUND],
      ['not an object', notifyUrl(good.channelId), [good.body], 400, ErrorCode.BODY_NOT_OBJECT],
    ];
    for (const [name, url, body, status, code] of cases) {
      const res = await post(url, body);
      expect([name, res.status, res.body.code, res.body.data]).toEqual([name, status, code, null]);
    }
    expect(writeFootprint(service)).toEqual(before);

    expect((await post(notifyUrl(good.channelId), good.body)).status).toBe(200);
    const replay = await post(notifyUrl(good.channelId), good.body);
    expect([replay.status, replay.body.code]).toEqual([401, ErrorCode.AUTH_NONCE_REUSED]);
    // A notification for an order of another channel is not found on this one.
    const other = newBuy(service, m, 10_000, 'gamma');
    const misdirected = resign({ ...sandbox.notificationFor(other, 'pay').body });
    expect((await post(notifyUrl(good.channelId), misdirected)).status).toBe(404);
  });

  it('a notification the state machine refuses is a 409 and changes nothing', async () => {
    const { service, m, notifyUrl, post } = await setup();
    fund(service, m.id, 100_000);
    const order = newBuy(service, m);
    const fail = service.services.sandbox.notificationFor(order, 'fail');
    expect((await post(notifyUrl(fail.channelId), fail.body)).body.data).toMatchObject({ status: 'cancelled' });
    const pay = service.services.sandbox.notificationFor(order, 'pay');
    const before = writeFootprint(service);
    const res = await post(notifyUrl(pay.channelId), pay.body);
    expect([res.status, res.body.code, res.body.msg]).toEqual([409, ErrorCode.ILLEGAL_TRANSITION, expect.stringContaining('cannot go from cancelled to paid')]);
    expect(writeFootprint(service)).toEqual(before);
    // "pay" makes no sense for a sell.
    expect(() => service.services.sandbox.notificationFor(newSell(service, m), 'pay')).toThrow(/applies to buy orders only/);
  });

  it('a payment reported after the order expired is refused, even before the sweeper ran; the sweeper then cancels it', async () => {
    const { clock, service, m, notifyUrl, post } = await setup();
    const order = newBuy(service, m);
    clock.set(order.expires_at!);
    // The sweeper has not run yet: the order is still pending, but past its deadline.
    const pay = service.services.sandbox.notificationFor(order, 'pay');
    const before = writeFootprint(service);
    const balances = service.services.ledger.balances(m.id);
    const res = await post(notifyUrl(pay.channelId), pay.body);
    expect([res.status, res.body.code, res.body.msg]).toEqual([409, ErrorCode.ILLEGAL_TRANSITION, expect.stringContaining('expired')]);
    expect(writeFootprint(service)).toEqual(before);
    expect(service.services.ledger.balances(m.id)).toEqual(balances);
    // In-process (CLI and console with no listener) takes the same rule.
    expect(() => service.services.sandbox.simulate(order.order_no, 'pay')).toThrow(/expired/);
    expect(service.services.lifecycle.expireDue()).toBe(1);
    expect(service.ctx.repos.orders.findById(order.id)!.status).toBe('cancelled');
    // One second earlier it was still payable.
    const later = newBuy(service, m);
    clock.set(later.expires_at! - 1);
    const ok = service.services.sandbox.notificationFor(later, 'pay');
    expect((await post(notifyUrl(ok.channelId), ok.body)).body.data).toMatchObject({ status: 'paid', changed: true });
    expectLedgerConsistent(service);
  });
});
