/**
 * What a payment channel can tell us about an order, and the status each
 * report moves the order to. Whatever the driver, channel outcomes enter
 * the state machine only through this table.
 */
import { ORDER_TYPE, type OrderStatus, type OrderType } from '../../src-shared/constants';

export const CHANNEL_EVENTS = ['paid', 'settled', 'payout_accepted', 'paid_out', 'failed'] as const;
export type ChannelEvent = (typeof CHANNEL_EVENTS)[number];

const TARGETS: Record<OrderType, Partial<Record<ChannelEvent, OrderStatus>>> = {
  [ORDER_TYPE.BUY]: { paid: 'paid', settled: 'completed', failed: 'cancelled' },
  [ORDER_TYPE.SELL]: { payout_accepted: 'confirmed', paid_out: 'completed', failed: 'cancelled' },
};

/** The status a channel event means for an order of this type, or undefined when it makes no sense there. */
export function targetStatusOf(orderType: OrderType, event: ChannelEvent): OrderStatus | undefined {
  return TARGETS[orderType][event];
}

export function isChannelEvent(value: unknown): value is ChannelEvent {
  return typeof value === 'string' && (CHANNEL_EVENTS as readonly string[]).includes(value);
}
