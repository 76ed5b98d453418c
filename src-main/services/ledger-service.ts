/**
 * The ledger (docs/ledger.md): every balance change is one ledger
 * transaction whose entries sum to zero, posted in the caller's unit of
 * work together with the cached balances, which never go negative.
 */
import { AppError, ErrorCode } from '../../src-shared/errors';
import { formatFen } from '../../src-shared/money';
import type { BalanceView, LedgerTransactionView } from '../../src-shared/schemas/money';
import { adjustmentPostings, holdPostings, isMerchantAccount, orderPostings, sumOf, type HoldKind, type LedgerKind, type Posting } from '../ledger/posting-rules';
import type { BalanceDelta, LedgerRepository, LedgerTransactionRow } from '../repositories/ledger-repository';
import type { MerchantRepository } from '../repositories/merchant-repository';
import type { OrderRow } from '../repositories/order-repository';
import type { ReadTx, WriteTx } from '../store/store';
import type { Clock } from './context';

export const ADJUSTMENT_REASON_MAX = 256;

function deltaOf(postings: readonly Posting[]): BalanceDelta {
  const d: BalanceDelta = { available: 0, frozen: 0, deposit: 0 };
  for (const p of postings) {
    if (p.account === 'merchant_available') d.available += p.amount;
    else if (p.account === 'merchant_frozen') d.frozen += p.amount;
    else if (p.account === 'merchant_deposit') d.deposit += p.amount;
  }
  return d;
}

export interface LedgerServiceDeps {
  clock: Clock;
  ledger: LedgerRepository;
  merchants: MerchantRepository;
}

/** Every method runs in the caller's unit of work (tx). */
export function createLedgerService({ clock, ledger, merchants }: LedgerServiceDeps) {
  async function balances(tx: ReadTx, merchantId: number): Promise<BalanceView> {
    const row = await ledger.balance(tx, merchantId);
    return { available: row?.available ?? 0, frozen: row?.frozen ?? 0, deposit: row?.deposit ?? 0 };
  }

  async function toTransactionView(tx: ReadTx, t: LedgerTransactionRow): Promise<LedgerTransactionView> {
    const entries = await ledger.entriesOfTransaction(tx, t.id);
    return {
      id: t.id,
      kind: t.kind,
      merchant_id: t.merchant_id,
      order_id: t.order_id,
      reason: t.reason,
      createtime: t.createtime,
      entries: entries.map((e) => ({ account: e.account, merchant_id: e.merchant_id, amount: e.amount })),
    };
  }

  /**
   * Posts one balanced movement for a merchant. Throws INSUFFICIENT_BALANCE
   * (and writes nothing) when a merchant balance would go negative. The
   * balance row stays locked until the caller's unit of work ends, so the
   * check holds against every other instance.
   */
  async function post(
    tx: WriteTx,
    kind: LedgerKind,
    merchantId: number,
    orderId: number | null,
    reason: string,
    postings: Posting[],
    approvalId: number | null = null,
  ): Promise<number> {
    if (postings.length === 0) return 0;
    if (sumOf(postings) !== 0) throw new Error(`ledger: ${kind} postings do not balance (${sumOf(postings)})`);
    const now = clock.now();
    const before = await ledger.lockBalance(tx, merchantId, now);
    const delta = deltaOf(postings);
    for (const name of ['available', 'frozen', 'deposit'] as const) {
      if (before[name] + delta[name] < 0) {
        throw new AppError(
          ErrorCode.INSUFFICIENT_BALANCE,
          `insufficient balance: ${name} is ${formatFen(before[name])}, the ${kind.replace('_', ' ')} needs ${formatFen(-delta[name])}`,
        );
      }
    }
    const txId = await ledger.insertTransaction(tx, { kind, merchant_id: merchantId, order_id: orderId, approval_id: approvalId, reason, createtime: now });
    for (const p of postings) {
      await ledger.insertEntry(tx, { transaction_id: txId, account: p.account, merchant_id: isMerchantAccount(p.account) ? merchantId : null, amount: p.amount });
    }
    await ledger.applyBalanceDelta(tx, merchantId, delta, now);
    return txId;
  }

  return {
    balances,

    /** An order's movement (buy paid, sell freeze/payout/release). */
    postOrder(tx: WriteTx, kind: Exclude<LedgerKind, 'adjustment' | HoldKind>, order: OrderRow, reason: string): Promise<number> {
      return post(tx, kind, order.merchant_id, order.id, reason, orderPostings(kind, order));
    },

    /**
     * Operator adjustment of the available balance, amount in signed fen.
     * Refused when the merchant does not exist, the amount is 0 or the
     * balance would go negative.
     */
    async adjust(tx: WriteTx, merchantId: number, amount: number, reason: string): Promise<{ transaction_id: number; balances: BalanceView }> {
      if (!Number.isSafeInteger(amount) || amount === 0) throw new AppError(ErrorCode.VALIDATION, 'amount: must be a non-zero amount of yuan');
      const text = reason.trim();
      if (text.length === 0) throw new AppError(ErrorCode.VALIDATION, 'reason: is required');
      if (text.length > ADJUSTMENT_REASON_MAX) throw new AppError(ErrorCode.VALIDATION, `reason: must be at most ${ADJUSTMENT_REASON_MAX} characters`);
      if (!(await merchants.findById(tx, merchantId))) throw new AppError(ErrorCode.NOT_FOUND, `merchant_id: merchant ${merchantId} not found`);
      const id = await post(tx, 'adjustment', merchantId, null, text, adjustmentPostings(amount));
      return { transaction_id: id, balances: await balances(tx, merchantId) };
    },

    /**
     * A withdrawal waiting for approval: its sum held (available → frozen),
     * or released again; INSUFFICIENT_BALANCE when the hold cannot be covered.
     */
    hold(tx: WriteTx, kind: HoldKind, merchantId: number, approvalId: number, amount: number, reason: string): Promise<number> {
      return post(tx, kind, merchantId, null, reason, holdPostings(kind, amount), approvalId);
    },

    /** Balances summed from the ledger entries (the cache must equal this). */
    ledgerBalances(tx: ReadTx, merchantId: number): Promise<BalanceView> {
      return ledger.ledgerSums(tx, merchantId);
    },

    async transactionsOfOrder(tx: ReadTx, orderId: number): Promise<LedgerTransactionView[]> {
      const rows = await ledger.transactionsOfOrder(tx, orderId);
      return Promise.all(rows.map((r) => toTransactionView(tx, r)));
    },

    /** A merchant's movements, newest first; pass the last id seen to page on. */
    async transactionsOfMerchant(
      tx: ReadTx,
      merchantId: number,
      { beforeId, limit = 50 }: { beforeId?: number | undefined; limit?: number } = {},
    ): Promise<LedgerTransactionView[]> {
      const rows = await ledger.transactionsOfMerchant(tx, merchantId, beforeId ?? Number.MAX_SAFE_INTEGER, Math.min(Math.max(limit, 1), 500));
      return Promise.all(rows.map((r) => toTransactionView(tx, r)));
    },

    /**
     * Consistency check of the whole ledger: every transaction balanced and
     * every cached balance equal to its ledger sum. Empty when all is well.
     */
    async audit(tx: ReadTx): Promise<string[]> {
      const problems: string[] = [];
      for (const u of await ledger.unbalancedTransactions(tx)) problems.push(`ledger transaction ${u.transaction_id} sums to ${u.total}`);
      for (const b of await ledger.allBalances(tx)) {
        const l = await ledger.ledgerSums(tx, b.merchant_id);
        for (const name of ['available', 'frozen', 'deposit'] as const) {
          if (b[name] !== l[name]) problems.push(`merchant ${b.merchant_id} ${name}: cached ${b[name]}, ledger ${l[name]}`);
        }
      }
      return problems;
    },
  };
}
export type LedgerService = ReturnType<typeof createLedgerService>;
