/**
 * Sandbox outcomes driven by people: the checkout page's buttons, the CLI
 * (`order pay|complete|fail`) and the console. Each one makes the sandbox
 * channel send a signed notification, which then takes exactly the path of
 * a real channel's: POSTed to the listener's /channel/notify/<channel_id>,
 * or, when no listener runs, handed to the same verifying receiver in-process.
 */
import { AppError, ErrorCode, SUCCESS_CODE, type Envelope } from '../../src-shared/errors';
import type { ChannelEvent } from '../channels/channel-events';
import type { ChannelDrivers } from '../channels/drivers';
import type { SandboxNotification } from '../channels/sandbox-driver';
import type { MerchantRepository } from '../repositories/merchant-repository';
import type { OrderLifecycleRepository } from '../repositories/order-lifecycle-repository';
import type { OrderRepository, OrderRow } from '../repositories/order-repository';
import type { TransitionSource } from '../../src-shared/order-state-machine';
import type { ReadTx, WriteTx } from '../store/store';
import type { ChannelNotifyService, NotifyResult } from './channel-notify-service';
import type { ChannelService } from './channel-service';

export const SANDBOX_ACTIONS = ['pay', 'complete', 'fail'] as const;
export type SandboxAction = (typeof SANDBOX_ACTIONS)[number];

/** The channel event an action means for an order type. */
export function sandboxEventOf(action: SandboxAction, orderType: 1 | 2): ChannelEvent | undefined {
  if (action === 'fail') return 'failed';
  if (action === 'pay') return orderType === 1 ? 'paid' : undefined;
  return orderType === 1 ? 'settled' : 'paid_out';
}

export function channelNotifyPath(channelId: number): string {
  return `/channel/notify/${channelId}`;
}

export interface SandboxDelivery {
  channelId: number;
  body: SandboxNotification;
}

export interface SandboxServiceDeps {
  orders: OrderRepository;
  merchants: MerchantRepository;
  transitions: OrderLifecycleRepository;
  channels: ChannelService;
  drivers: ChannelDrivers;
  notify: ChannelNotifyService;
}

export function createSandboxService({ orders, merchants, transitions, channels, drivers, notify }: SandboxServiceDeps) {
  async function requireOrder(tx: ReadTx, orderNo: string): Promise<OrderRow> {
    const order = await orders.findByNo(tx, orderNo);
    if (!order) throw new AppError(ErrorCode.NOT_FOUND, `order_no: order ${orderNo} not found`);
    return order;
  }

  /**
   * The signed notification the sandbox channel sends for this action. It
   * changes nothing of the order by itself; the channel's notify secret is
   * created on first use, hence a write.
   */
  async function notificationFor(tx: WriteTx, order: OrderRow, action: SandboxAction, reason?: string): Promise<SandboxDelivery> {
    const current = await channels.require(tx, order.channel_id);
    if (current.driver !== 'sandbox') {
      throw new AppError(
        ErrorCode.CONFLICT,
        `order_no: order ${order.order_no} is on channel ${current.id} (driver ${current.driver}); only sandbox channels take simulated outcomes`,
      );
    }
    const event = sandboxEventOf(action, order.order_type);
    if (!event) throw new AppError(ErrorCode.ILLEGAL_TRANSITION, `order_no: ${action} applies to buy orders only; a sell order completes when paid out`);
    const channel = await channels.ensureSandboxSecret(tx, current.id);
    return { channelId: channel.id, body: drivers.sandbox.signNotification(order, channel, event, reason ?? `sandbox: ${action}`) };
  }

  return {
    requireOrder,
    notificationFor,

    /** The buy order a checkout page's token names. */
    orderByPayToken: (tx: ReadTx, token: string) => orders.findByPayToken(tx, token),

    /** What the checkout page shows besides the order: who is paid, and who cancelled it (expiry or not). */
    async checkoutFacts(tx: ReadTx, order: OrderRow): Promise<{ merchantName: string; lastCancel: TransitionSource | null }> {
      const merchant = (await merchants.findById(tx, order.merchant_id))!;
      const lastCancel = order.status === 'cancelled' ? ((await transitions.transitionsOf(tx, order.id)).at(-1)?.source ?? null) : null;
      return { merchantName: merchant.name, lastCancel };
    },

    /** Applies a sandbox notification through the verifying receiver, in this process and unit of work. */
    deliverInProcess(tx: WriteTx, delivery: SandboxDelivery): Promise<NotifyResult> {
      return notify.receive(tx, delivery.channelId, delivery.body);
    },

    /** POSTs a sandbox notification to a listener, as an external channel would (no unit of work of its own). */
    async deliverOverHttp(baseUrl: string, delivery: SandboxDelivery, { timeoutMs = 10_000 } = {}): Promise<NotifyResult> {
      const res = await fetch(baseUrl.replace(/\/+$/, '') + channelNotifyPath(delivery.channelId), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(delivery.body),
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      let envelope: Envelope<NotifyResult | null>;
      try {
        envelope = (await res.json()) as Envelope<NotifyResult | null>;
      } catch {
        throw new AppError(ErrorCode.CHANNEL_FAILURE, `channel notify answered HTTP ${res.status} without an envelope`);
      }
      if (envelope.code !== SUCCESS_CODE || !envelope.data) throw new AppError(codeOf(envelope.code), envelope.msg);
      return envelope.data;
    },

    /** Console and in-process callers: simulate an outcome for an order, end to end through the notification receiver. */
    async simulate(tx: WriteTx, orderNo: string, action: SandboxAction, reason?: string): Promise<NotifyResult> {
      const delivery = await notificationFor(tx, await requireOrder(tx, orderNo), action, reason);
      return notify.receive(tx, delivery.channelId, delivery.body);
    },
  };
}
export type SandboxService = ReturnType<typeof createSandboxService>;

/** An envelope code from the listener back into an AppError code (unknown → channel failure). */
function codeOf(code: number): ErrorCode {
  return (Object.values(ErrorCode) as number[]).includes(code) ? (code as ErrorCode) : ErrorCode.CHANNEL_FAILURE;
}
