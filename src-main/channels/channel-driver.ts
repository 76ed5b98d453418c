/**
 * The interface every payment-channel driver implements. A channel row
 * names its driver (`channels.driver`); secrets come from the channel's
 * encrypted config. Drivers only talk to the channel and interpret what it
 * says: status changes are made by the lifecycle service from the
 * ChannelEvent a driver reports (src-main/channels/channel-events.ts).
 */
import type { ChannelDriver as ChannelDriverName } from '../../src-shared/constants';
import type { JsonObject } from '../../src-shared/json/lossless-json';
import type { ChannelRow } from '../repositories/channel-repository';
import type { OrderRow } from '../repositories/order-repository';
import type { ChannelEvent } from './channel-events';

/** What a driver knows of a buy order it starts collecting (not stored yet: no id). */
export type PayInOrder = Pick<OrderRow, 'order_no' | 'merchant_id' | 'cny_amount' | 'pay_method' | 'pay_token' | 'expires_at' | 'createtime'>;

export interface PayInStart {
  /** Where the payer is sent to pay. */
  payUrl: string;
}

export type PayoutStart = { accepted: true; reference: string } | { accepted: false; reason: string };

/** What the channel says about an order now; `event: null` while it is still processing. */
export interface ChannelStatusReport {
  event: ChannelEvent | null;
  reason: string;
}

/** A channel notification whose signature and freshness were verified. */
export interface VerifiedNotification {
  orderNo: string;
  event: ChannelEvent;
  /** Amount the channel reports, fen; must equal the order's cny_amount. */
  amount: number;
  reason: string;
  /** Replay protection: consumed once per channel. */
  nonce: string;
}

export interface ChannelDriver {
  readonly name: ChannelDriverName;
  /**
   * Starts collecting a new buy order: where its payer goes. Called before
   * the order is stored (its `pay_url` is the answer), inside the creating
   * unit of work, so it must not wait on the network; a driver whose channel
   * must be asked first needs a two-step creation (docs/channels.md).
   */
  startPayIn(order: PayInOrder, channel: ChannelRow): PayInStart;
  /**
   * Hands a sell order to the channel for payout. May be called again for the same order (its answer could not be
   * stored: crash, full disk), so a driver must make it idempotent by `order_no` (docs/channels.md).
   */
  startPayout(order: OrderRow, channel: ChannelRow): Promise<PayoutStart>;
  /** Checks a notification the channel sent to /channel/notify/<channel_id>; throws AppError when it is not genuine. */
  verifyNotification(channel: ChannelRow, body: JsonObject): VerifiedNotification;
  /** Asks the channel where an order stands (settlement, payout completion). */
  queryStatus(order: OrderRow, channel: ChannelRow): Promise<ChannelStatusReport>;
}
