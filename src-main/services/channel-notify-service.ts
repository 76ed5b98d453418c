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
import { writeTransaction } from '../store/transaction';
import type { ServiceContext } from './context';
import type { OrderLifecycleService } from './order-lifecycle-service';

export interface NotifyResult {
  order_no: string;
  status: OrderStatus;
  /** False for a notification the order already reflected. */
  changed: boolean;
}

export function createChannelNotifyService(ctx: ServiceContext, deps: { drivers: ChannelDrivers; lifecycle: OrderLifecycleService }) {
  const { repos, db, clock } = ctx;
  return {
    /** Verifies and applies one notification, atomically (nothing is written when it is refused). */
    receive(channelId: number, body: JsonObject): NotifyResult {
      return writeTransaction(db, () => {
        const channel = repos.channels.findById(channelId);
        if (!channel) throw new AppError(ErrorCode.NOT_FOUND, `channel_id: channel ${channelId} not found`);
        const n = deps.drivers.for(channel).verifyNotification(channel, body);
        if (!repos.nonces.consume(`channel:${channelId}`, n.nonce, clock.now() + NONCE_RETENTION_SECONDS)) {
          throw new AppError(ErrorCode.AUTH_NONCE_REUSED, 'nonce: already used by this channel');
        }
        const order = repos.orders.findByNo(n.orderNo);
        if (!order || order.channel_id !== channelId) throw new AppError(ErrorCode.NOT_FOUND, `order_no: order ${n.orderNo} not found on channel ${channelId}`);
        if (n.amount !== order.cny_amount) {
          throw new AppError(ErrorCode.VALIDATION, `amount: ${formatFen(n.amount)} does not match the order amount ${formatFen(order.cny_amount)}`);
        }
        const outcome = deps.lifecycle.applyChannelEvent(order, n.event, n.reason);
        return { order_no: order.order_no, status: outcome.order.status, changed: outcome.changed };
      });
    },
  };
}
export type ChannelNotifyService = ReturnType<typeof createChannelNotifyService>;
