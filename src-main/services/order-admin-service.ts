/**
 * What operators (CLI, console) do and see around orders and balances:
 * order detail with fee breakdown, timeline, ledger and callbacks; balances;
 * adjustments; cancelling. Merchant-facing views stay in order-service.
 */
import { AppError, ErrorCode } from '../../src-shared/errors';
import { formatFen, parseSignedYuan } from '../../src-shared/money';
import type { BalanceAdjustInput, BalanceAdjustView, BalanceView, OrderDetailView } from '../../src-shared/schemas/money';
import type { ChannelRepository } from '../repositories/channel-repository';
import type { MerchantRepository } from '../repositories/merchant-repository';
import type { OrderRepository, OrderRow } from '../repositories/order-repository';
import type { ReadTx, WriteTx } from '../store/store';
import type { PublicUrl } from './context';
import type { CallbackService } from './callback-service';
import type { LedgerService } from './ledger-service';
import { adjustmentIdempotencyKey, requestFingerprint, type IdempotencyService } from './idempotency-service';
import type { OrderLifecycleService } from './order-lifecycle-service';
import { payUrlOf } from './order-service';

export interface OrderAdminDeps {
  publicUrl: PublicUrl;
  orders: OrderRepository;
  merchants: MerchantRepository;
  channels: ChannelRepository;
  ledger: LedgerService;
  lifecycle: OrderLifecycleService;
  callbacks: CallbackService;
  idempotency: IdempotencyService;
}

/** Every method runs in the caller's unit of work (tx). */
export function createOrderAdminService(deps: OrderAdminDeps) {
  const { orders, merchants, channels } = deps;

  async function requireOrder(tx: ReadTx, orderNo: string): Promise<OrderRow> {
    const row = await orders.findByNo(tx, orderNo);
    if (!row) throw new AppError(ErrorCode.NOT_FOUND, `order_no: order ${orderNo} not found`);
    return row;
  }

  async function requireMerchant(tx: ReadTx, merchantId: number) {
    const m = await merchants.findById(tx, merchantId);
    if (!m) throw new AppError(ErrorCode.NOT_FOUND, `merchant_id: merchant ${merchantId} not found`);
    return m;
  }

  async function detail(tx: ReadTx, orderNo: string): Promise<OrderDetailView> {
    const o = await requireOrder(tx, orderNo);
    const merchant = (await merchants.findById(tx, o.merchant_id))!;
    const channel = (await channels.findById(tx, o.channel_id))!;
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
      pay_url: payUrlOf(o, deps.publicUrl()),
      expires_at: o.expires_at,
      createtime: o.createtime,
      updatetime: o.updatetime,
      timeline: (await deps.lifecycle.timelineOf(tx, o.id)).map((t) => ({
        from: t.from_status,
        to: t.to_status,
        source: t.source,
        reason: t.reason,
        time: t.createtime,
      })),
      ledger: await deps.ledger.transactionsOfOrder(tx, o.id),
      scheduled: (await deps.lifecycle.jobsOf(tx, o.id)).map((j) => ({ kind: j.kind, due_at: j.due_at, attempts: j.attempts, last_error: j.last_error })),
      callbacks: await deps.callbacks.listOfOrder(tx, o),
    };
  }

  return {
    requireOrder,
    detail,

    async balances(tx: ReadTx, merchantId: number): Promise<BalanceView> {
      await requireMerchant(tx, merchantId);
      return deps.ledger.balances(tx, merchantId);
    },

    /**
     * Operator adjustment of a merchant's available balance, in yuan, with a reason.
     * With `idempotencyKey` (the console form's key, docs/console.md): a retry with the same key,
     * amount and reason answers the first adjustment and books nothing; the same key with another
     * amount or reason is refused (4003). The key is checked and kept in the adjustment's unit of work.
     */
    async adjust(tx: WriteTx, input: BalanceAdjustInput, idempotencyKey?: string): Promise<BalanceAdjustView> {
      const parsed = parseSignedYuan(input.amount);
      if (!parsed.ok) throw new AppError(ErrorCode.VALIDATION, `amount: ${parsed.rule}`);
      await requireMerchant(tx, input.merchant_id);
      const book = async (): Promise<BalanceAdjustView> => {
        const r = await deps.ledger.adjust(tx, input.merchant_id, parsed.fen, input.reason);
        return { merchant_id: input.merchant_id, transaction_id: r.transaction_id, amount: parsed.fen, reason: input.reason, balances: r.balances };
      };
      if (idempotencyKey === undefined) return book();
      const { answer } = await deps.idempotency.once(tx, {
        merchantId: input.merchant_id,
        key: adjustmentIdempotencyKey(idempotencyKey),
        // The adjustment as booked: "+100" and "100.00" are the same amount; the reason as kept.
        fingerprint: requestFingerprint({ amount: String(parsed.fen), reason: input.reason.trim() }, {}),
        mismatchMessage: 'idempotency_key: already used with a different adjustment (amount or reason)',
        write: async () => ({ answer: JSON.stringify(await book()), orderId: null }),
      });
      return JSON.parse(answer) as BalanceAdjustView;
    },

    /** Cancels a pending order (or a confirmed sell) by operator decision. */
    async cancel(tx: WriteTx, orderNo: string, reason: string): Promise<OrderDetailView> {
      await deps.lifecycle.cancelByOperator(tx, await requireOrder(tx, orderNo), reason);
      return detail(tx, orderNo);
    },
  };
}
export type OrderAdminService = ReturnType<typeof createOrderAdminService>;
