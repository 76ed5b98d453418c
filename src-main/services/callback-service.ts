/**
 * Merchant callbacks (docs/callbacks.md): on every status change after
 * creation, a delivery is queued in the outbox in the same transaction as
 * the change; the dispatcher (background/callback-dispatcher.ts) POSTs it,
 * signed with the merchant's secret and sign type, and records every attempt
 * here. Retries follow CALLBACK_RETRY_DELAYS, then the delivery fails.
 */
import { computeSignature } from '../../src-shared/client/sign';
import { newNonce } from '../../src-shared/client/merchant-client';
import { AppError, ErrorCode } from '../../src-shared/errors';
import { formatFen } from '../../src-shared/money';
import type { CallbackDeliveryView } from '../../src-shared/schemas/money';
import { shownCallbackUrl } from '../callbacks/callback-url-policy';
import type { CallbackDeliveryRow, CallbackRepository, CallbackTrigger } from '../repositories/callback-repository';
import type { MerchantRepository, MerchantRow } from '../repositories/merchant-repository';
import type { OrderRepository, OrderRow } from '../repositories/order-repository';
import type { ReadTx, WriteTx } from '../store/store';
import type { Clock, WorkSignal } from './context';
import type { MerchantService } from './merchant-service';

/** Seconds to wait after failed attempt n (1-based) before attempt n+1; after the last, the delivery fails. */
export const CALLBACK_RETRY_DELAYS = [5, 30, 120, 600, 1800, 3600, 10_800, 21_600] as const;
export const CALLBACK_MAX_ATTEMPTS = CALLBACK_RETRY_DELAYS.length + 1;
export const CALLBACK_TIMEOUT_MS = 10_000;
/** Bytes of the answer kept in the attempt log. */
export const CALLBACK_EXCERPT_BYTES = 512;
/** Bytes of the answer read to look for the acknowledgement. */
export const CALLBACK_READ_LIMIT_BYTES = 64 * 1024;
export const CALLBACK_USER_AGENT = 'merchant-console-callback/1';

/** The form fields a callback reports, all strings, in the documented order. */
export function callbackPayload(order: OrderRow): Record<string, string> {
  return {
    merchant_id: String(order.merchant_id),
    order_no: order.order_no,
    order_type: String(order.order_type),
    status: order.status,
    cny_amount: formatFen(order.cny_amount),
    merchant_amount: formatFen(order.cny_amount),
    merchant_actual_amount: String(order.merchant_actual_amount),
    service_amount: String(order.service_amount),
    createtime: String(order.createtime),
    updatetime: String(order.updatetime),
  };
}

/** Acknowledged: HTTP 2xx and a body containing "success" in any case. */
export function isAcknowledgement(status: number | null, body: string): boolean {
  return status !== null && status >= 200 && status < 300 && /success/i.test(body);
}

export interface AttemptOutcome {
  url: string;
  httpStatus: number | null;
  latencyMs: number;
  excerpt: string;
  error: string | null;
  acknowledged: boolean;
}

export interface CallbackServiceDeps {
  clock: Clock;
  workSignal: WorkSignal;
  callbacks: CallbackRepository;
  merchants: MerchantRepository;
  orders: OrderRepository;
  merchantService: MerchantService;
}

/** Every method runs in the caller's unit of work (tx). */
export function createCallbackService(deps: CallbackServiceDeps) {
  const { clock, callbacks, merchants, orders } = deps;

  async function enqueue(tx: WriteTx, order: OrderRow, trigger: CallbackTrigger): Promise<number | null> {
    const merchant = (await merchants.findById(tx, order.merchant_id))!;
    // No address, no callback: the merchant polls orderQueryDetail instead.
    if (!merchant.callback_url) return null;
    const now = clock.now();
    const id = await callbacks.insert(tx, {
      order_id: order.id,
      merchant_id: order.merchant_id,
      order_status: order.status,
      trigger,
      payload: JSON.stringify(callbackPayload(order)),
      next_attempt_at: now,
      createtime: now,
    });
    tx.afterCommit(() => deps.workSignal.notify());
    return id;
  }

  async function toView(tx: ReadTx, d: CallbackDeliveryRow, orderNo: string): Promise<CallbackDeliveryView> {
    const attempts = await callbacks.attemptsOf(tx, d.id);
    const merchant = (await merchants.findById(tx, d.merchant_id))!;
    return {
      id: d.id,
      order_no: orderNo,
      order_status: d.order_status,
      state: d.state,
      trigger: d.trigger,
      url: shownCallbackUrl(attempts.at(-1)?.url ?? merchant.callback_url ?? ''),
      attempts: d.attempts,
      next_attempt_at: d.next_attempt_at,
      createtime: d.createtime,
      updatetime: d.updatetime,
      payload: JSON.parse(d.payload) as Record<string, string>,
      attempt_log: attempts.map((a) => ({
        attempt: a.attempt,
        time: a.attempted_at,
        http_status: a.http_status,
        latency_ms: a.latency_ms,
        response_excerpt: a.response_excerpt,
        error: a.error,
        acknowledged: a.acknowledged === 1,
      })),
    };
  }

  async function requireOrder(tx: ReadTx, orderNo: string): Promise<OrderRow> {
    const order = await orders.findByNo(tx, orderNo);
    if (!order) throw new AppError(ErrorCode.NOT_FOUND, `order_no: order ${orderNo} not found`);
    return order;
  }

  async function listOfOrder(tx: ReadTx, order: OrderRow): Promise<CallbackDeliveryView[]> {
    const rows = await callbacks.ofOrder(tx, order.id);
    const views: CallbackDeliveryView[] = [];
    for (const d of rows) views.push(await toView(tx, d, order.order_no));
    return views;
  }

  return {
    enqueue,

    /** The deliveries of an order, oldest first, each with its attempt log. */
    listOfOrder,
    async listForOrder(tx: ReadTx, orderNo: string): Promise<CallbackDeliveryView[]> {
      return listOfOrder(tx, await requireOrder(tx, orderNo));
    },

    /** Queues the order's current state again (after the deliveries already queued for it). */
    async resend(tx: WriteTx, orderNo: string): Promise<CallbackDeliveryView> {
      const order = await requireOrder(tx, orderNo);
      const merchant = (await merchants.findById(tx, order.merchant_id))!;
      if (!merchant.callback_url) throw new AppError(ErrorCode.CONFLICT, `callback_url: merchant ${merchant.id} has no callback URL`);
      if (order.status === 'pending' && (await callbacks.ofOrder(tx, order.id)).length === 0) {
        throw new AppError(ErrorCode.CONFLICT, `order_no: order ${orderNo} has not changed status since creation; there is no callback to send`);
      }
      const id = (await enqueue(tx, order, 'resend'))!;
      return toView(tx, (await callbacks.findById(tx, id))!, order.order_no);
    },

    /** The form of one attempt: payload + fresh timestamp and nonce, signed as the merchant signs requests. */
    signedForm(delivery: CallbackDeliveryRow, merchant: MerchantRow): Record<string, string> {
      const fields: Record<string, string> = { ...(JSON.parse(delivery.payload) as Record<string, string>), timestamp: String(clock.now()), nonce: newNonce() };
      fields.signature = computeSignature(fields, deps.merchantService.secretOf(merchant), merchant.sign_type);
      return fields;
    },

    /** Logs an attempt and moves the delivery on: delivered, retry later, or failed. The claim on it ends. */
    async recordAttempt(tx: WriteTx, delivery: CallbackDeliveryRow, outcome: AttemptOutcome): Promise<CallbackDeliveryRow> {
      // Locked: another instance whose claim ran out may be recording the same delivery.
      const current = (await callbacks.findByIdForUpdate(tx, delivery.id))!;
      if (current.state !== 'pending') return current;
      const now = clock.now();
      const attempt = current.attempts + 1;
      await callbacks.insertAttempt(tx, {
        delivery_id: current.id,
        attempt,
        url: outcome.url,
        attempted_at: now,
        http_status: outcome.httpStatus,
        latency_ms: outcome.latencyMs,
        response_excerpt: outcome.excerpt,
        error: outcome.error,
        acknowledged: outcome.acknowledged ? 1 : 0,
      });
      const state = outcome.acknowledged ? 'delivered' : attempt >= CALLBACK_MAX_ATTEMPTS ? 'failed' : 'pending';
      await callbacks.settle(tx, {
        id: current.id,
        state,
        attempts: attempt,
        next_attempt_at: state === 'pending' ? now + CALLBACK_RETRY_DELAYS[attempt - 1]! : null,
        updatetime: now,
      });
      // The next delivery of this order may go now.
      if (state !== 'pending') tx.afterCommit(() => deps.workSignal.notify());
      return (await callbacks.findById(tx, current.id))!;
    },
  };
}
export type CallbackService = ReturnType<typeof createCallbackService>;
