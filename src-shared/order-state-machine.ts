/**
 * The order state machine (docs/order-lifecycle.md): the one table every
 * status change is checked against, in the service and in the console
 * (labels, timelines, which actions to offer). Pure data, runs in a browser.
 */
import { ORDER_STATUSES, ORDER_TYPE, type OrderStatus, type OrderType } from './constants';

/** Who caused a transition. */
export const TRANSITION_SOURCES = ['channel', 'operator', 'expiry'] as const;
export type TransitionSource = (typeof TRANSITION_SOURCES)[number];

/**
 * What a transition does to the merchant's balances (posting rules in
 * src-main/ledger/posting-rules.ts). `sell_freeze` happens at creation.
 */
export type LedgerEffect = 'buy_paid' | 'sell_paid_out' | 'sell_release';

export interface TransitionRule {
  orderType: OrderType;
  from: OrderStatus;
  to: OrderStatus;
  effect: LedgerEffect | null;
  meaning: string;
}

export const ORDER_TRANSITIONS: readonly TransitionRule[] = [
  { orderType: ORDER_TYPE.BUY, from: 'pending', to: 'paid', effect: 'buy_paid', meaning: "the channel confirmed the payer's payment" },
  { orderType: ORDER_TYPE.BUY, from: 'paid', to: 'completed', effect: null, meaning: 'the funds were settled' },
  { orderType: ORDER_TYPE.BUY, from: 'pending', to: 'cancelled', effect: null, meaning: 'expired, rejected or failed before payment' },
  { orderType: ORDER_TYPE.SELL, from: 'pending', to: 'confirmed', effect: null, meaning: 'the channel accepted the payout' },
  { orderType: ORDER_TYPE.SELL, from: 'confirmed', to: 'completed', effect: 'sell_paid_out', meaning: 'paid out to the payee' },
  { orderType: ORDER_TYPE.SELL, from: 'pending', to: 'cancelled', effect: 'sell_release', meaning: 'rejected before the channel accepted it; reserved funds released' },
  { orderType: ORDER_TYPE.SELL, from: 'confirmed', to: 'cancelled', effect: 'sell_release', meaning: 'the payout failed; reserved funds released' },
];

/** The rule for a transition, or undefined when the machine refuses it. */
export function transitionRule(orderType: OrderType, from: OrderStatus, to: OrderStatus): TransitionRule | undefined {
  return ORDER_TRANSITIONS.find((t) => t.orderType === orderType && t.from === from && t.to === to);
}

export function isLegalTransition(orderType: OrderType, from: OrderStatus, to: OrderStatus): boolean {
  return transitionRule(orderType, from, to) !== undefined;
}

/** Statuses reachable in one step. */
export function nextStatuses(orderType: OrderType, from: OrderStatus): OrderStatus[] {
  return ORDER_TRANSITIONS.filter((t) => t.orderType === orderType && t.from === from).map((t) => t.to);
}

/** Statuses an order of this type can be in at all. */
export function statusesOf(orderType: OrderType): OrderStatus[] {
  return ORDER_STATUSES.filter((s) => s === 'pending' || ORDER_TRANSITIONS.some((t) => t.orderType === orderType && t.to === s));
}

export function isFinalStatus(orderType: OrderType, status: OrderStatus): boolean {
  return nextStatuses(orderType, status).length === 0;
}

/** Status labels per order type, for lists and timelines. */
export const STATUS_LABELS: Record<OrderType, Partial<Record<OrderStatus, string>>> = {
  [ORDER_TYPE.BUY]: {
    pending: 'Awaiting payment',
    paid: 'Paid',
    completed: 'Completed',
    cancelled: 'Cancelled',
  },
  [ORDER_TYPE.SELL]: {
    pending: 'Pending processing',
    confirmed: 'Confirmed by channel',
    completed: 'Paid out',
    cancelled: 'Cancelled',
  },
};

export function statusLabel(orderType: OrderType, status: OrderStatus): string {
  return STATUS_LABELS[orderType][status] ?? status;
}
