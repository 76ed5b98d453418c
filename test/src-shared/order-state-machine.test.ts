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

/** Every sequence of statuses an order of this type can go through, from creation (pending) until no step is left. */
function lifetimes(type: OrderType): OrderStatus[][] {
  const walk = (life: OrderStatus[]): OrderStatus[][] => {
    const next = nextStatuses(type, life.at(-1)!);
    // A status seen before would be a loop: the order could go round for ever (checked in the test).
    return next.length === 0 || life.length > ORDER_STATUSES.length ? [life] : next.flatMap((s) => walk([...life, s]));
  };
  return walk(['pending']);
}

describe('order state machine table', () => {
  it.each(ALL_PAIRS)('type $type: $from → $to legal=$legal', ({ type, from, to, legal }) => {
    expect(isLegalTransition(type, from, to)).toBe(legal);
    expect(transitionRule(type, from, to) !== undefined).toBe(legal);
  });

  it('every order comes to an end: no status comes back, and every lifetime stops at completed or cancelled', () => {
    for (const type of [1, 2] as const) {
      const lives = lifetimes(type);
      expect(lives.length).toBeGreaterThan(1);
      for (const life of lives) {
        expect(new Set(life).size, life.join(' → ')).toBe(life.length);
        expect(['completed', 'cancelled'], life.join(' → ')).toContain(life.at(-1));
        expect(isFinalStatus(type, life.at(-1)!)).toBe(true);
      }
    }
  });

  it('money moves once in a lifetime: a buy is credited only if it was paid; a sell reservation is paid out or released, exactly once', () => {
    const effects = (type: OrderType, life: OrderStatus[]) =>
      life.slice(1).flatMap((to, i) => transitionRule(type, life[i]!, to)!.effect ?? []);
    for (const life of lifetimes(1)) expect(effects(1, life), life.join(' → ')).toEqual(life.includes('paid') ? ['buy_paid'] : []);
    for (const life of lifetimes(2)) expect(effects(2, life), life.join(' → ')).toEqual([life.at(-1) === 'completed' ? 'sell_paid_out' : 'sell_release']);
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
