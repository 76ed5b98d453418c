import { describe, expect, it } from 'vitest';
import { ORDER_STATUSES, type OrderStatus, type OrderType } from '../../src-shared/constants';
import {
  isFinalStatus,
  isLegalTransition,
  nextStatuses,
  statusesOf,
  statusLabel,
  transitionRule,
} from '../../src-shared/order-state-machine';

// The machine, written out independently of the implementation's table.
const LEGAL: Record<OrderType, [OrderStatus, OrderStatus][]> = {
  1: [
    ['pending', 'paid'],
    ['paid', 'completed'],
    ['pending', 'cancelled'],
  ],
  2: [
    ['pending', 'confirmed'],
    ['confirmed', 'completed'],
    ['pending', 'cancelled'],
    ['confirmed', 'cancelled'],
  ],
};

const ALL_PAIRS = ([1, 2] as const).flatMap((type) =>
  ORDER_STATUSES.flatMap((from) => ORDER_STATUSES.map((to) => ({ type, from, to, legal: LEGAL[type].some(([f, t]) => f === from && t === to) }))),
);

describe('order state machine table', () => {
  it.each(ALL_PAIRS)('type $type: $from → $to legal=$legal', ({ type, from, to, legal }) => {
    expect(isLegalTransition(type, from, to)).toBe(legal);
    expect(transitionRule(type, from, to) !== undefined).toBe(legal);
  });

  it('has exactly the 7 legal transitions', () => {
    expect(ALL_PAIRS.filter((p) => p.legal)).toHaveLength(7);
    expect(ALL_PAIRS.filter((p) => isLegalTransition(p.type, p.from, p.to))).toHaveLength(7);
  });

  it('names the ledger effect of each money-moving transition', () => {
    expect(transitionRule(1, 'pending', 'paid')!.effect).toBe('buy_paid');
    expect(transitionRule(1, 'paid', 'completed')!.effect).toBeNull();
    expect(transitionRule(1, 'pending', 'cancelled')!.effect).toBeNull();
    expect(transitionRule(2, 'pending', 'confirmed')!.effect).toBeNull();
    expect(transitionRule(2, 'confirmed', 'completed')!.effect).toBe('sell_paid_out');
    expect(transitionRule(2, 'pending', 'cancelled')!.effect).toBe('sell_release');
    expect(transitionRule(2, 'confirmed', 'cancelled')!.effect).toBe('sell_release');
  });

  it('derives reachable statuses, final statuses and labels', () => {
    expect(statusesOf(1)).toEqual(['pending', 'paid', 'completed', 'cancelled']);
    expect(statusesOf(2)).toEqual(['pending', 'confirmed', 'completed', 'cancelled']);
    expect(nextStatuses(2, 'confirmed')).toEqual(['completed', 'cancelled']);
    expect(isFinalStatus(1, 'completed')).toBe(true);
    expect(isFinalStatus(2, 'cancelled')).toBe(true);
    expect(isFinalStatus(1, 'paid')).toBe(false);
    expect(statusLabel(1, 'pending')).toBe('Awaiting payment');
    expect(statusLabel(2, 'pending')).toBe('Pending processing');
  });
});
