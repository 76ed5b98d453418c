/**
 * Withdrawals (sell orders) through the signed merchant API. They are
 * machine-to-machine and done at once — unless the merchant set an API
 * withdrawal threshold: above it the withdrawal waits for a second person's
 * approval like a console one (its sum held meanwhile), and the order is
 * created when it is approved (docs/accounts.md, "Two-person approval";
 * docs/api.md, "Held withdrawals").
 */
import { AppError, ErrorCode } from '../../src-shared/errors';
import type { CreateSellOrderInput } from '../../src-shared/schemas/merchant-api';
import type { MerchantRow } from '../repositories/merchant-repository';
import type { OrderRow } from '../repositories/order-repository';
import type { ReadTx, WriteTx } from '../store/store';
import { withdrawalDraft } from './approval-executors';
import type { ApprovalService } from './approval-service';
import type { LedgerService } from './ledger-service';
import { toMerchantView } from './merchant-service';
import type { OrderService } from './order-service';

/** A withdrawal accepted and waiting for approval: what the merchant is told. */
export interface HeldWithdrawal {
  held: true;
  approval_id: number;
  expires_at: number;
}

/** Where a held withdrawal stands now. */
export type HeldOutcome =
  | { state: 'pending'; expires_at: number }
  | { state: 'approved'; order: OrderRow }
  | { state: 'rejected' | 'expired' | 'cancelled' | 'failed'; reason: string };

export interface ApiWithdrawalDeps {
  orders: OrderService;
  approvals: ApprovalService;
  ledger: LedgerService;
}

export function createApiWithdrawalService(deps: ApiWithdrawalDeps) {
  return {
    /** Creates the sell order, or files it for approval when it is above the merchant's API threshold. */
    async createOrHold(tx: WriteTx, merchant: MerchantRow, input: CreateSellOrderInput): Promise<OrderRow | HeldWithdrawal> {
      const threshold = merchant.api_withdrawal_threshold;
      if (threshold === null || input.cny_amount <= threshold) return deps.orders.createSell(tx, merchant.id, input);
      const available = (await deps.ledger.balances(tx, merchant.id)).available;
      const draft = await withdrawalDraft(tx, deps.orders, toMerchantView(merchant), input, available);
      const approval = await deps.approvals.request(
        tx,
        {
          accountId: null,
          role: null,
          via: 'api',
          merchantIds: [merchant.id],
          platform: false,
          audit: { kind: 'merchant', login: merchant.api_key },
        },
        draft,
      );
      return { held: true, approval_id: approval.id, expires_at: approval.expires_at };
    },

    /** Where a withdrawal the merchant API held stands now (a replay of its Idempotency-Key answers this). */
    async outcome(tx: ReadTx, merchantId: number, approvalId: number): Promise<HeldOutcome> {
      const row = await deps.approvals.findOfMerchant(tx, merchantId, approvalId);
      if (!row) throw new AppError(ErrorCode.NOT_FOUND, `approval_id: withdrawal request ${approvalId} not found`);
      if (row.state === 'pending') return { state: 'pending', expires_at: row.expires_at };
      if (row.state === 'approved') {
        const { order_no } = JSON.parse(row.result!) as { order_no: string };
        return { state: 'approved', order: await deps.orders.requireForMerchant(tx, merchantId, order_no) };
      }
      const outcome = row.result === null ? row.state : (JSON.parse(row.result) as { outcome?: string }).outcome ?? row.state;
      return { state: row.state, reason: row.decision_note ? `${outcome}: ${row.decision_note}` : outcome };
    },
  };
}
export type ApiWithdrawalService = ReturnType<typeof createApiWithdrawalService>;

export function isHeldWithdrawal(value: unknown): value is HeldWithdrawal {
  return typeof value === 'object' && value !== null && (value as { held?: unknown }).held === true;
}
