import { describe, expect, it } from 'vitest';
import { ORDER_STATUSES, type OrderType } from '../../../src-shared/constants';
import { AppError, ErrorCode } from '../../../src-shared/errors';
import { isLegalTransition } from '../../../src-shared/order-state-machine';
import { manualClock, read, seedMerchant, testService, write } from '../../support/service-harness';
import { expectLedgerConsistent, fund, newBuy, newSell, orderIn, reload, writeFootprint } from '../../support/money';
import type { OrderRow } from '../../../src-main/repositories/order-repository';
import type { ChannelEvent } from '../../../src-main/channels/channel-events';
import type { MerchantConsoleService } from '../../../src-main/service';

const CASES = ([1, 2] as const).flatMap((type) =>
  ORDER_STATUSES.flatMap((from) => ORDER_STATUSES.map((to) => ({ type: type as OrderType, from, to, legal: isLegalTransition(type, from, to) }))),
);

async function setup() {
  const clock = manualClock(1_800_000_000);
  const service = await testService({ clock });
  const m = await seedMerchant(service);
  await fund(service, m.id, 10_000_000);
  return { clock, service, m };
}

const balances = (service: MerchantConsoleService, merchantId: number) => read(service, (tx) => service.services.ledger.balances(tx, merchantId));
const timelineOf = (service: MerchantConsoleService, orderId: number) => read(service, (tx) => service.services.lifecycle.timelineOf(tx, orderId));
const jobsOf = (service: MerchantConsoleService, orderId: number) => read(service, (tx) => service.services.lifecycle.jobsOf(tx, orderId));
const move = (service: MerchantConsoleService, order: OrderRow, to: OrderRow['status'], source: 'operator' | 'channel', reason: string) =>
  write(service, (tx) => service.services.lifecycle.transition(tx, order, to, { source, reason }));
const channelEvent = (service: MerchantConsoleService, order: OrderRow, event: ChannelEvent, reason: string) =>
  write(service, (tx) => service.services.lifecycle.applyChannelEvent(tx, order, event, reason));

const rowsCancelled = async (service: MerchantConsoleService) =>
  (await read(service, (tx) => tx.get<{ n: number }>("SELECT count(*) AS n FROM orders WHERE status = 'cancelled'")))!.n;

/** Runs the expiry sweep the way the worker does (batches until one comes back short); returns how many were cancelled. */
async function expireDue(service: MerchantConsoleService, limit = 200): Promise<number> {
  const skip = new Set<number>();
  let total = 0;
  for (;;) {
    const { expired, seen } = await write(service, (tx) => service.services.lifecycle.expireDue(tx, limit, skip));
    total += expired;
    if (seen < limit) return total;
  }
}

describe('order transitions through the lifecycle service', () => {
  it.each(CASES)('type $type: $from → $to (legal: $legal)', async ({ type, from, to, legal }) => {
    const { clock, service, m } = await setup();
    const order = await orderIn(service, m, type, from);
    if (!order) {
      // This type never has that status: only the pure table can be asked.
      expect(legal).toBe(false);
      return;
    }
    clock.advance(17);
    const before = await writeFootprint(service);
    const balancesBefore = await balances(service, m.id);
    if (!legal) {
      let caught: unknown;
      try {
        await move(service, order, to, 'operator', 'test');
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(AppError);
      expect((caught as AppError).code).toBe(ErrorCode.ILLEGAL_TRANSITION);
      expect((caught as AppError).httpStatus).toBe(409);
      expect((caught as AppError).message).toContain(`from ${from} to ${to}`);
      expect(await writeFootprint(service)).toEqual(before);
      expect(await reload(service, order)).toEqual(order);
      return;
    }
    const moved = await move(service, order, to, 'channel', 'because');
    expect(moved.status).toBe(to);
    expect(moved.updatetime).toBe(clock.now());
    expect(moved.updatetime).toBeGreaterThan(order.updatetime);
    const last = (await timelineOf(service, order.id)).at(-1)!;
    expect(last).toMatchObject({ order_id: order.id, from_status: from, to_status: to, source: 'channel', reason: 'because', createtime: clock.now() });

    const after = await balances(service, m.id);
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
    await expectLedgerConsistent(service);
  });

  it('refuses a transition from a stale read (compare-and-set) and writes nothing', async () => {
    const { service, m } = await setup();
    const order = await newBuy(service, m);
    await move(service, order, 'paid', 'channel', 'first');
    const before = await writeFootprint(service);
    // `order` still says pending: cancelling from it must not succeed.
    await expect(move(service, order, 'cancelled', 'operator', 'stale')).rejects.toThrow(/is paid now/);
    expect(await writeFootprint(service)).toEqual(before);
  });

  it('a repeated channel report changes nothing; a contradicting one is refused', async () => {
    const { service, m } = await setup();
    const order = await newBuy(service, m);
    expect((await channelEvent(service, order, 'paid', 'paid')).changed).toBe(true);
    expect((await channelEvent(service, order, 'paid', 'again')).changed).toBe(false);
    await channelEvent(service, order, 'settled', 'settled');
    // A late duplicate "paid" after completion is still a duplicate, not an error.
    expect(await channelEvent(service, order, 'paid', 'late duplicate')).toMatchObject({ changed: false, order: { status: 'completed' } });
    await expect(channelEvent(service, order, 'failed', 'contradiction')).rejects.toThrow(/cannot go from completed to cancelled/);
    await expect(channelEvent(service, order, 'paid_out', 'wrong type')).rejects.toThrow(/does not apply to buy order/);
    expect((await timelineOf(service, order.id)).map((t) => t.to_status)).toEqual(['paid', 'completed']);
    await expectLedgerConsistent(service);
  });

  it('schedules the follow-up work of a status and clears it when the order ends', async () => {
    const { clock, service, m } = await setup();
    const channelId = m.channels.beta;
    await write(service, (tx) => service.services.channels.update(tx, { id: channelId, settle_delay: 120, payout_delay: 30 }));
    const sell = await newSell(service, m);
    expect(await jobsOf(service, sell.id)).toMatchObject([{ kind: 'start_payout', due_at: clock.now() }]);
    const confirmed = await move(service, sell, 'confirmed', 'channel', 'accepted');
    expect((await jobsOf(service, sell.id)).map((j) => [j.kind, j.due_at])).toEqual([
      ['start_payout', clock.now()],
      ['complete_payout', clock.now() + 30],
    ]);
    await move(service, confirmed, 'completed', 'channel', 'paid out');
    expect(await jobsOf(service, sell.id)).toEqual([]);

    const buy = await newBuy(service, m);
    await move(service, buy, 'paid', 'channel', 'paid');
    expect(await jobsOf(service, buy.id)).toMatchObject([{ kind: 'settle', due_at: clock.now() + 120 }]);
  });
});

describe('expiry', () => {
  it("cancels buy orders left unpaid past their channel's timeout, and only those", async () => {
    const { clock, service, m } = await setup();
    await write(service, (tx) => service.services.channels.update(tx, { id: m.channels.gamma, pay_timeout: 600 }));
    const shortLived = await newBuy(service, m, 10_000, 'gamma');
    const defaultTimeout = await newBuy(service, m, 10_000, 'beta');
    const paid = await newBuy(service, m, 10_000, 'gamma');
    await move(service, paid, 'paid', 'channel', 'paid');
    const sell = await newSell(service, m);
    expect(shortLived.expires_at).toBe(shortLived.createtime + 600);
    expect(defaultTimeout.expires_at).toBe(defaultTimeout.createtime + 1800);

    clock.advance(599);
    expect(await expireDue(service)).toBe(0);
    clock.advance(1);
    expect(await expireDue(service)).toBe(1);
    expect(await reload(service, shortLived)).toMatchObject({ status: 'cancelled', updatetime: clock.now() });
    expect(await timelineOf(service, shortLived.id)).toMatchObject([{ from_status: 'pending', to_status: 'cancelled', source: 'expiry', reason: 'not paid within 600 s' }]);
    expect((await reload(service, defaultTimeout)).status).toBe('pending');

    // A long outage: everything overdue is caught up in one sweep.
    clock.advance(10_000);
    expect(await expireDue(service)).toBe(1);
    expect((await reload(service, defaultTimeout)).status).toBe('cancelled');
    expect((await reload(service, paid)).status).toBe('paid');
    expect((await reload(service, sell)).status).toBe('pending');
    await expectLedgerConsistent(service);
  });

  it('catches up a backlog larger than one batch, batch by batch', async () => {
    const { clock, service, m } = await setup();
    for (let i = 0; i < 7; i++) await newBuy(service, m);
    clock.advance(3600);
    const batch = () => write(service, (tx) => service.services.lifecycle.expireDue(tx, 3));
    expect(await batch()).toEqual({ expired: 3, seen: 3 });
    expect(await batch()).toEqual({ expired: 3, seen: 3 });
    expect(await batch()).toEqual({ expired: 1, seen: 1 });
    expect(await batch()).toEqual({ expired: 0, seen: 0 });
    expect(await rowsCancelled(service)).toBe(7);
    expect(await expireDue(service, 3)).toBe(0);
  });
});
