/**
 * The ledger (docs/ledger.md): every balance change is one ledger
 * transaction whose entries sum to zero, posted in the caller's SQLite
 * transaction together with the cached balances, which never go negative.
 */
import { AppError, ErrorCode } from '../../src-shared/errors';
import { formatFen } from '../../src-shared/money';
import type { BalanceView, LedgerTransactionView } from '../../src-shared/schemas/money';
import { adjustmentPostings, isMerchantAccount, orderPostings, sumOf, type LedgerKind, type Posting } from '../ledger/posting-rules';
import type { BalanceDelta, LedgerTransactionRow } from '../repositories/ledger-repository';
import type { OrderRow } from '../repositories/order-repository';
import { writeTransaction } from '../store/transaction';
import type { ServiceContext } from './context';

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

export function createLedgerService(ctx: ServiceContext) {
  const { repos, db, clock } = ctx;

  function balances(merchantId: number): BalanceView {
    const row = repos.ledger.balance(merchantId);
    return { available: row?.available ?? 0, frozen: row?.frozen ?? 0, deposit: row?.deposit ?? 0 };
  }

  function toTransactionView(tx: LedgerTransactionRow): LedgerTransactionView {
    return {
      id: tx.id,
      kind: tx.kind,
      merchant_id: tx.merchant_id,
      order_id: tx.order_id,
      reason: tx.reason,
      createtime: tx.createtime,
      entries: repos.ledger.entriesOfTransaction(tx.id).map((e) => ({ account: e.account, merchant_id: e.merchant_id, amount: e.amount })),
    };
  }

  /**
   * Posts one balanced movement for a merchant. Throws INSUFFICIENT_BALANCE
   * (and writes nothing) when a merchant balance would go negative.
   */
  function post(kind: LedgerKind, merchantId: number, orderId: number | null, reason: string, postings: Posting[]): number {
    if (postings.length === 0) return 0;
    if (sumOf(postings) !== 0) throw new Error(`ledger: ${kind} postings do not balance (${sumOf(postings)})`);
    return writeTransaction(db, () => {
      const now = clock.now();
      const before = balances(merchantId);
      const delta = deltaOf(postings);
      for (const name of ['available', 'frozen', 'deposit'] as const) {
        if (before[name] + delta[name] < 0) {
          throw new AppError(
            ErrorCode.INSUFFICIENT_BALANCE,
            `insufficient balance: ${name} is ${formatFen(before[name])}, the ${kind.replace('_', ' ')} needs ${formatFen(-delta[name])}`,
          );
        }
      }
      const txId = repos.ledger.insertTransaction({ kind, merchant_id: merchantId, order_id: orderId, reason, createtime: now });
      for (const p of postings) {
        repos.ledger.insertEntry({ transaction_id: txId, account: p.account, merchant_id: isMerchantAccount(p.account) ? merchantId : null, amount: p.amount });
      }
      repos.ledger.applyBalanceDelta(merchantId, delta, now);
      return txId;
    });
  }

  return {
    balances,

    /** An order's movement (buy paid, sell freeze/payout/release). */
    postOrder(kind: Exclude<LedgerKind, 'adjustment'>, order: OrderRow, reason: string): number {
      return post(kind, order.merchant_id, order.id, reason, orderPostings(kind, order));
    },

    /**
     * Operator adjustment of the available balance, amount in signed fen.
     * Refused when the merchant does not exist, the amount is 0 or the
     * balance would go negative.
     */
    adjust(merchantId: number, amount: number, reason: string): { transaction_id: number; balances: BalanceView } {
      if (!Number.isSafeInteger(amount) || amount === 0) throw new AppError(ErrorCode.VALIDATION, 'amount: must be a non-zero amount of yuan');
      const text = reason.trim();
      if (text.length === 0) throw new AppError(ErrorCode.VALIDATION, 'reason: is required');
      if (text.length > ADJUSTMENT_REASON_MAX) throw new AppError(ErrorCode.VALIDATION, `reason: must be at most ${ADJUSTMENT_REASON_MAX} characters`);
      return writeTransaction(db, () => {
        if (!repos.merchants.findById(merchantId)) throw new AppError(ErrorCode.NOT_FOUND, `merchant_id: merchant ${merchantId} not found`);
        const id = post('adjustment', merchantId, null, text, adjustmentPostings(amount));
        return { transaction_id: id, balances: balances(merchantId) };
      });
    },

    /** Balances summed from the ledger entries (the cache must equal this). */
    ledgerBalances(merchantId: number): BalanceView {
      return repos.ledger.ledgerSums(merchantId);
    },

    transactionsOfOrder(orderId: number): LedgerTransactionView[] {
      return repos.ledger.transactionsOfOrder(orderId).map(toTransactionView);
    },

    /** A merchant's movements, newest first; pass the last id seen to page on. */
    transactionsOfMerchant(merchantId: number, { beforeId, limit = 50 }: { beforeId?: number; limit?: number } = {}): LedgerTransactionView[] {
      return repos.ledger.transactionsOfMerchant(merchantId, beforeId ?? Number.MAX_SAFE_INTEGER, Math.min(Math.max(limit, 1), 500)).map(toTransactionView);
    },

    /**
     * Consistency check of the whole ledger: every transaction balanced and
     * every cached balance equal to its ledger sum. Empty when all is well.
     */
    audit(): string[] {
      const problems: string[] = [];
      for (const u of repos.ledger.unbalancedTransactions()) problems.push(`ledger transaction ${u.transaction_id} sums to ${u.total}`);
      for (const b of repos.ledger.allBalances()) {
        const l = repos.ledger.ledgerSums(b.merchant_id);
        for (const name of ['available', 'frozen', 'deposit'] as const) {
          if (b[name] !== l[name]) problems.push(`merchant ${b.merchant_id} ${name}: cached ${b[name]}, ledger ${l[name]}`);
        }
      }
      return problems;
    },
  };
}
export type LedgerService = ReturnType<typeof createLedgerService>;
