/**
 * What operators (CLI, console) do and see around orders and balances:
 * order detail (the read model of order-report-service) of any merchant's
 * order; balances; adjustments; cancelling. Merchant-facing views stay in
 * order-service.
 */
import { AppError, ErrorCode } from '../../src-shared/errors';
import { parseSignedYuan } from '../../src-shared/money';
import type { OrderDetailView } from '../../src-shared/schemas/console';
import type { BalanceAdjustInput, BalanceAdjustView, BalanceView } from '../../src-shared/schemas/money';
import type { ChannelRepository } from '../repositories/channel-repository';
import type { MerchantRepository } from '../repositories/merchant-repository';
import type { OrderRepository, OrderRow } from '../repositories/order-repository';
import type { ReadTx, WriteTx } from '../store/store';
import type { PublicUrl } from './context';
import type { CallbackService } from './callback-service';
import type { LedgerService } from './ledger-service';
import type { OrderLifecycleService } from './order-lifecycle-service';
import { orderDetailOf } from './order-report-service';

export interface OrderAdminDeps {
  publicUrl: PublicUrl;
  orders: OrderRepository;
  merchants: MerchantRepository;
  channels: ChannelRepository;
  ledger: LedgerService;
  lifecycle: OrderLifecycleService;
  callbacks: CallbackService;
}

/** Every method runs in the caller's unit of work (tx). */
export function createOrderAdminService(deps: OrderAdminDeps) {
  const { orders, merchants } = deps;

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

  /** Any merchant's order, by its number. */
  async function detail(tx: ReadTx, orderNo: string): Promise<OrderDetailView> {
    return orderDetailOf(tx, await requireOrder(tx, orderNo), deps);
  }

  return {
    requireOrder,
    detail,

    async balances(tx: ReadTx, merchantId: number): Promise<BalanceView> {
      await requireMerchant(tx, merchantId);
      return deps.ledger.balances(tx, merchantId);
    },

    /** Operator adjustment of a merchant's available balance, in yuan, with a reason (the console's idempotency: console-handlers). */
    async adjust(tx: WriteTx, input: BalanceAdjustInput): Promise<BalanceAdjustView> {
      const parsed = parseSignedYuan(input.amount);
      if (!parsed.ok) throw new AppError(ErrorCode.VALIDATION, `amount: ${parsed.rule}`);
      await requireMerchant(tx, input.merchant_id);
      const r = await deps.ledger.adjust(tx, input.merchant_id, parsed.fen, input.reason);
      return { merchant_id: input.merchant_id, transaction_id: r.transaction_id, amount: parsed.fen, reason: input.reason, balances: r.balances };
    },

    /** Cancels a pending order (or a confirmed sell) by operator decision. */
    async cancel(tx: WriteTx, orderNo: string, reason: string): Promise<OrderDetailView> {
      await deps.lifecycle.cancelByOperator(tx, await requireOrder(tx, orderNo), reason);
      return detail(tx, orderNo);
    },
  };
}
export type OrderAdminService = ReturnType<typeof createOrderAdminService>;
