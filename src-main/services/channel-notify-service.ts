/**
 * Notifications from payment channels (POST /channel/notify/<channel_id>):
 * the channel's driver verifies signature and freshness, the nonce is
 * consumed, the order must belong to that channel and the amount match;
 * then the reported event goes through the state machine.
 */
import { NONCE_RETENTION_SECONDS } from '../../src-shared/constants';
import { AppError, ErrorCode } from '../../src-shared/errors';
import type { JsonObject } from '../../src-shared/json/lossless-json';
import { formatFen } from '../../src-shared/money';
import type { OrderStatus } from '../../src-shared/constants';
import type { ChannelDrivers } from '../channels/drivers';
import type { ChannelRepository } from '../repositories/channel-repository';
import type { NonceRepository } from '../repositories/nonce-repository';
import type { OrderRepository } from '../repositories/order-repository';
import type { WriteTx } from '../store/store';
import type { Clock } from './context';
import type { OrderLifecycleService } from './order-lifecycle-service';

export interface NotifyResult {
  order_no: string;
  status: OrderStatus;
  /** False for a notification the order already reflected. */
  changed: boolean;
}

export interface ChannelNotifyDeps {
  clock: Clock;
  channels: ChannelRepository;
  orders: OrderRepository;
  nonces: NonceRepository;
  drivers: ChannelDrivers;
  lifecycle: OrderLifecycleService;
}

export function createChannelNotifyService({ clock, channels, orders, nonces, drivers, lifecycle }: ChannelNotifyDeps) {
  return {
    /** Verifies and applies one notification in the caller's unit of work (a refusal throws; the caller rolls back). */
    async receive(tx: WriteTx, channelId: number, body: JsonObject): Promise<NotifyResult> {
      const channel = await channels.findById(tx, channelId);
      if (!channel) throw new AppError(ErrorCode.NOT_FOUND, `channel_id: channel ${channelId} not found`);
      const n = drivers.for(channel).verifyNotification(channel, body);
      if (!(await nonces.consume(tx, `channel:${channelId}`, n.nonce, clock.now() + NONCE_RETENTION_SECONDS))) {
        throw new AppError(ErrorCode.AUTH_NONCE_REUSED, 'nonce: already used by this channel');
      }
      const order = await orders.findByNo(tx, n.orderNo);
      if (!order || order.channel_id !== channelId) throw new AppError(ErrorCode.NOT_FOUND, `order_no: order ${n.orderNo} not found on channel ${channelId}`);
      if (n.amount !== order.cny_amount) {
        throw new AppError(ErrorCode.VALIDATION, `amount: ${formatFen(n.amount)} does not match the order amount ${formatFen(order.cny_amount)}`);
      }
      const outcome = await lifecycle.applyChannelEvent(tx, order, n.event, n.reason);
      return { order_no: order.order_no, status: outcome.order.status, changed: outcome.changed };
    },
  };
}
export type ChannelNotifyService = ReturnType<typeof createChannelNotifyService>;
