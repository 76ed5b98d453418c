import { describe, expect, it } from 'vitest';
import { ORDER_STATUSES, type OrderType } from '../../../src-shared/constants';
import { AppError, ErrorCode } from '../../../src-shared/errors';
import { isLegalTransition } from '../../../src-shared/order-state-machine';
import { manualClock, seedMerchant, testService } from '../../support/service-harness';
import { expectLedgerConsistent, fund, newBuy, newSell, orderIn, reload, writeFootprint } from '../../support/money';

const CASES = ([1, 2] as const).flatMap((type) =>
  ORDER_STATUSES.flatMap((from) => ORDER_STATUSES.map((to) => ({ type: type as OrderType, from, to, legal: isLegalTransition(type, from, to) }))),
);

function setup() {
  const clock = manualClock(1_800_000_000);
  const service = testService({ clock });
  const m = seedMerchant(service);
  fund(service, m.id, 10_000_000);
  return { clock, service, m };
}

describe('order transitions through the lifecycle service', () => {
  it.each(CASES)('type $type: $from → $to (legal: $legal)', ({ type, from, to, legal }) => {
    const { clock, service, m } = setup();
    const order = orderIn(service, m, type, from);
    if (!order) {
      // This type never has that status: only the pure table can be asked.
      expect(legal).toBe(false);
      return;
    }
    clock.advance(17);
    const before = writeFootprint(service);
    const balancesBefore = service.services.ledger.balances(m.id);
    const { lifecycle } = service.services;
    if (!legal) {
      let caught: unknown;
      try {
        lifecycle.transition(order, to, { source: 'operator', reason: 'test' });
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(AppError);
      expect((caught as AppError).code).toBe(ErrorCode.ILLEGAL_TRANSITION);
      expect((caught as AppError).httpStatus).toBe(409);
      expect((caught as AppError).message).toContain(`from ${from} to ${to}`);
      expect(writeFootprint(service)).toEqual(before);
      expect(reload(service, order)).toEqual(order);
      return;
    }
    const moved = lifecycle.transition(order, to, { source: 'channel', reason: 'because' });
    expect(moved.status).toBe(to);
    expect(moved.updatetime).toBe(clock.now());
    expect(moved.updatetime).toBeGreaterThan(order.updatetime);
    const last = lifecycle.timelineOf(order.id).at(-1)!;
    expect(last).toMatchObject({ order_id: order.id, from_status: from, to_status: to, source: 'channel', reason: 'because', createtime: clock.now() });

    const after = service.services.ledger.balances(m.id);
    const o = order;
    const expectedDelta =
      type === 1 && to === 'paid'
        ? { available: o.merchant_actual_amount, frozen: 0, deposit: o.deposit_amount }
        : type === 2 && to === 'completed'
          ? { available: 0, frozen: -o.merchant_actual_amount, deposit: o.deposit_amount }
          : type === 2 && to === 'cancelled'
            ? { available: o.merchant_actual_amount, frozen: -o.merchant_actual_amount, deposit: 0 }
            : { available: 0, frozen: 0, deposit: 0 };
    expect({
      available: after.available - balancesBefore.available,
      frozen: after.frozen - balancesBefore.frozen,
      deposit: after.deposit - balancesBefore.deposit,
    }).toEqual(expectedDelta);
    expectLedgerConsistent(service);
  });

  it('refuses a transition from a stale read (compare-and-set) and writes nothing', () => {
    const { service, m } = setup();
    const order = newBuy(service, m);
    service.services.lifecycle.transition(order, 'paid', { source: 'channel', reason: 'first' });
    const before = writeFootprint(service);
    // `order` still says pending: cancelling from it must not succeed.
    expect(() => service.services.lifecycle.transition(order, 'cancelled', { source: 'operator', reason: 'stale' })).toThrow(/is paid now/);
    expect(writeFootprint(service)).toEqual(before);
  });

  it('a repeated channel report changes nothing; a contradicting one is refused', () => {
    const { service, m } = setup();
    const order = newBuy(service, m);
    const { lifecycle } = service.services;
    expect(lifecycle.applyChannelEvent(order, 'paid', 'paid').changed).toBe(true);
    expect(lifecycle.applyChannelEvent(order, 'paid', 'again').changed).toBe(false);
    lifecycle.applyChannelEvent(order, 'settled', 'settled');
    // A late duplicate "paid" after completion is still a duplicate, not an error.
    expect(lifecycle.applyChannelEvent(order, 'paid', 'late duplicate')).toMatchObject({ changed: false, order: { status: 'completed' } });
    expect(() => lifecycle.applyChannelEvent(order, 'failed', 'contradiction')).toThrow(/cannot go from completed to cancelled/);
    expect(() => lifecycle.applyChannelEvent(order, 'paid_out', 'wrong type')).toThrow(/does not apply to buy order/);
    expect(lifecycle.timelineOf(order.id).map((t) => t.to_status)).toEqual(['paid', 'completed']);
    expectLedgerConsistent(service);
  });

  it('schedules the follow-up work of a status and clears it when the order ends', () => {
    const { clock, service, m } = setup();
    const channelId = m.channels.beta;
    service.services.channels.update({ id: channelId, settle_delay: 120, payout_delay: 30 });
    const sell = newSell(service, m);
    expect(service.services.lifecycle.jobsOf(sell.id)).toMatchObject([{ kind: 'start_payout', due_at: clock.now() }]);
    const confirmed = service.services.lifecycle.transition(sell, 'confirmed', { source: 'channel', reason: 'accepted' });
    expect(service.services.lifecycle.jobsOf(sell.id).map((j) => [j.kind, j.due_at])).toEqual([
      ['start_payout', clock.now()],
      ['complete_payout', clock.now() + 30],
    ]);
    service.services.lifecycle.transition(confirmed, 'completed', { source: 'channel', reason: 'paid out' });
    expect(service.services.lifecycle.jobsOf(sell.id)).toEqual([]);

    const buy = newBuy(service, m);
    service.services.lifecycle.transition(buy, 'paid', { source: 'channel', reason: 'paid' });
    expect(service.services.lifecycle.jobsOf(buy.id)).toMatchObject([{ kind: 'settle', due_at: clock.now() + 120 }]);
  });
});

describe('expiry', () => {
  it("cancels buy orders left unpaid past their channel's timeout, and only those", () => {
    const { clock, service, m } = setup();
    service.services.channels.update({ id: m.channels.gamma, pay_timeout: 600 });
    const shortLived = newBuy(service, m, 10_000, 'gamma');
    const defaultTimeout = newBuy(service, m, 10_000, 'beta');
    const paid = newBuy(service, m, 10_000, 'gamma');
    service.services.lifecycle.transition(paid, 'paid', { source: 'channel', reason: 'paid' });
    const sell = newSell(service, m);
    expect(shortLived.expires_at).toBe(shortLived.createtime + 600);
    expect(defaultTimeout.expires_at).toBe(defaultTimeout.createtime + 1800);

    clock.advance(599);
    expect(service.services.lifecycle.expireDue()).toBe(0);
    clock.advance(1);
    expect(service.services.lifecycle.expireDue()).toBe(1);
    expect(reload(service, shortLived)).toMatchObject({ status: 'cancelled', updatetime: clock.now() });
    expect(service.services.lifecycle.timelineOf(shortLived.id)).toMatchObject([{ from_status: 'pending', to_status: 'cancelled', source: 'expiry', reason: 'not paid within 600 s' }]);
    expect(reload(service, defaultTimeout).status).toBe('pending');

    // A long outage: everything overdue is caught up in one sweep.
    clock.advance(10_000);
    expect(service.services.lifecycle.expireDue()).toBe(1);
    expect(reload(service, defaultTimeout).status).toBe('cancelled');
    expect(reload(service, paid).status).toBe('paid');
    expect(reload(service, sell).status).toBe('pending');
    expectLedgerConsistent(service);
  });

  it('catches up a backlog larger than one batch', () => {
    const { clock, service, m } = setup();
    for (let i = 0; i < 7; i++) newBuy(service, m);
    clock.advance(3600);
    expect(service.services.lifecycle.expireDue(3)).toBe(7);
    expect(service.services.lifecycle.expireDue(3)).toBe(0);
  });
});
