/**
 * What operators (CLI, console) do and see around orders and balances:
 * order detail with fee breakdown, timeline, ledger and callbacks; balances;
 * adjustments; cancelling. Merchant-facing views stay in order-service.
 */
import { AppError, ErrorCode } from '../../src-shared/errors';
import { formatFen, parseSignedYuan } from '../../src-shared/money';
import type { BalanceAdjustInput, BalanceAdjustView, BalanceView, OrderDetailView } from '../../src-shared/schemas/money';
import type { OrderRow } from '../repositories/order-repository';
import type { ServiceContext } from './context';
import type { CallbackService } from './callback-service';
import type { LedgerService } from './ledger-service';
import { adjustmentIdempotencyKey, requestFingerprint, type IdempotencyService } from './idempotency-service';
import type { OrderLifecycleService } from './order-lifecycle-service';
import { payUrlOf } from './order-service';
import { writeTransaction } from '../store/transaction';

export interface OrderAdminDeps {
  ledger: LedgerService;
  lifecycle: OrderLifecycleService;
  callbacks: CallbackService;
  idempotency: IdempotencyService;
}

export function createOrderAdminService(ctx: ServiceContext, deps: OrderAdminDeps) {
  const { repos, db } = ctx;

  function requireOrder(orderNo: string): OrderRow {
    const row = repos.orders.findByNo(orderNo);
    if (!row) throw new AppError(ErrorCode.NOT_FOUND, `order_no: order ${orderNo} not found`);
    return row;
  }

  function requireMerchant(merchantId: number) {
    const m = repos.merchants.findById(merchantId);
    if (!m) throw new AppError(ErrorCode.NOT_FOUND, `merchant_id: merchant ${merchantId} not found`);
    return m;
  }

  function detail(orderNo: string): OrderDetailView {
    const o = requireOrder(orderNo);
    const merchant = repos.merchants.findById(o.merchant_id)!;
    const channel = repos.channels.findById(o.channel_id)!;
    return {
      id: o.id,
      order_no: o.order_no,
      order_type: o.order_type,
      status: o.status,
      merchant: { id: merchant.id, name: merchant.name },
      channel: { id: channel.id, name: channel.name, category: channel.category, driver: channel.driver },
      pay_method: o.pay_method,
      cny_amount: formatFen(o.cny_amount),
      fees: {
        cny_amount: o.cny_amount,
        service_rate: o.service_rate,
        service_amount: o.service_amount,
        passage_rate: o.passage_rate,
        passage_amount: o.passage_amount,
        deposit_rate: o.deposit_rate,
        deposit_amount: o.deposit_amount,
        base_rate: o.base_rate,
        channel_amount: o.channel_amount,
        merchant_actual_amount: o.merchant_actual_amount,
      },
      customer_name: o.customer_name,
      pay_url: o.pay_token ? payUrlOf(ctx.publicUrl(), o.pay_token) : null,
      expires_at: o.expires_at,
      createtime: o.createtime,
      updatetime: o.updatetime,
      timeline: deps.lifecycle.timelineOf(o.id).map((t) => ({ from: t.from_status, to: t.to_status, source: t.source, reason: t.reason, time: t.createtime })),
      ledger: deps.ledger.transactionsOfOrder(o.id),
      scheduled: deps.lifecycle.jobsOf(o.id).map((j) => ({ kind: j.kind, due_at: j.due_at, attempts: j.attempts, last_error: j.last_error })),
      callbacks: deps.callbacks.listForOrder(o.order_no),
    };
  }

  return {
    requireOrder,
    detail,

    balances(merchantId: number): BalanceView {
      requireMerchant(merchantId);
      return deps.ledger.balances(merchantId);
    },

    /**
     * Operator adjustment of a merchant's available balance, in yuan, with a reason.
     * With `idempotencyKey` (the console form's key, docs/console.md): a retry with the same key,
     * amount and reason answers the first adjustment and books nothing; the same key with another
     * amount or reason is refused (4003). The key is checked and kept in the adjustment's transaction.
     */
    adjust(input: BalanceAdjustInput, idempotencyKey?: string): BalanceAdjustView {
      const parsed = parseSignedYuan(input.amount);
      if (!parsed.ok) throw new AppError(ErrorCode.VALIDATION, `amount: ${parsed.rule}`);
      requireMerchant(input.merchant_id);
      const book = (): BalanceAdjustView => {
        const r = deps.ledger.adjust(input.merchant_id, parsed.fen, input.reason);
        return { merchant_id: input.merchant_id, transaction_id: r.transaction_id, amount: parsed.fen, reason: input.reason, balances: r.balances };
      };
      if (idempotencyKey === undefined) return book();
      const key = adjustmentIdempotencyKey(idempotencyKey);
      // The adjustment as booked: "+100" and "100.00" are the same amount; the reason as kept.
      const fingerprint = requestFingerprint({ amount: String(parsed.fen), reason: input.reason.trim() }, {});
      return writeTransaction(db, () => {
        let stored: string | undefined;
        try {
          stored = deps.idempotency.replayFor(input.merchant_id, key, fingerprint);
        } catch (err) {
          if (err instanceof AppError && err.code === ErrorCode.IDEMPOTENCY_MISMATCH) {
            throw new AppError(ErrorCode.IDEMPOTENCY_MISMATCH, 'idempotency_key: already used with a different adjustment (amount or reason)');
          }
          throw err;
        }
        if (stored !== undefined) return JSON.parse(stored) as BalanceAdjustView;
        const view = book();
        deps.idempotency.remember(input.merchant_id, key, fingerprint, JSON.stringify(view), null);
        return view;
      });
    },

    /** Cancels a pending order (or a confirmed sell) by operator decision. */
    cancel(orderNo: string, reason: string): OrderDetailView {
      deps.lifecycle.cancelByOperator(requireOrder(orderNo), reason);
      return detail(orderNo);
    },
  };
}
export type OrderAdminService = ReturnType<typeof createOrderAdminService>;
