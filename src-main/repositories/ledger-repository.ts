import type { Account, LedgerKind, MerchantAccount } from '../ledger/posting-rules';
import type { ReadTx, WriteTx } from '../store/store';

export interface LedgerTransactionRow {
  id: number;
  kind: LedgerKind;
  merchant_id: number;
  order_id: number | null;
  /** The approval request a withdrawal hold belongs to (migration 9). */
  approval_id: number | null;
  reason: string;
  createtime: number;
}

export interface LedgerEntryRow {
  id: number;
  transaction_id: number;
  account: Account;
  merchant_id: number | null;
  amount: number;
}

export interface BalanceRow {
  merchant_id: number;
  available: number;
  frozen: number;
  deposit: number;
  updatetime: number;
}

export interface BalanceDelta {
  available: number;
  frozen: number;
  deposit: number;
}

export function createLedgerRepository() {
  return {
    async insertTransaction(tx: WriteTx, row: Omit<LedgerTransactionRow, 'id'>): Promise<number> {
      const inserted = await tx.get<{ id: number }>(
        `INSERT INTO ledger_transactions (kind, merchant_id, order_id, approval_id, reason, createtime)
         VALUES (@kind, @merchant_id, @order_id, @approval_id, @reason, @createtime) RETURNING id`,
        row,
      );
      return inserted!.id;
    },
    async insertEntry(tx: WriteTx, row: Omit<LedgerEntryRow, 'id'>): Promise<void> {
      await tx.run(
        'INSERT INTO ledger_entries (transaction_id, account, merchant_id, amount) VALUES (@transaction_id, @account, @merchant_id, @amount)',
        row,
      );
    },
    /**
     * The merchant's cached balances, created at zero when missing, and
     * locked until the end of the unit of work: two units moving one
     * merchant's money (on any instance) run one after the other, so a
     * check against the balance holds until the movement is written.
     */
    async lockBalance(tx: WriteTx, merchantId: number, now: number): Promise<BalanceRow> {
      // Two statements, not an upsert: the CHECK (>= 0) would judge the
      // inserted delta row itself before any conflict resolution.
      await tx.run('INSERT INTO merchant_balances (merchant_id, available, frozen, deposit, updatetime) VALUES (?, 0, 0, 0, ?) ON CONFLICT DO NOTHING', [
        merchantId,
        now,
      ]);
      const row = await tx.get<BalanceRow>(`SELECT * FROM merchant_balances WHERE merchant_id = ?${tx.dialect === 'postgres' ? ' FOR UPDATE' : ''}`, [merchantId]);
      return row!;
    },
    async applyBalanceDelta(tx: WriteTx, merchantId: number, delta: BalanceDelta, now: number): Promise<void> {
      await tx.run(
        `UPDATE merchant_balances SET available = available + @available, frozen = frozen + @frozen, deposit = deposit + @deposit,
           updatetime = @now WHERE merchant_id = @merchant_id`,
        { merchant_id: merchantId, ...delta, now },
      );
    },
    balance(tx: ReadTx, merchantId: number): Promise<BalanceRow | undefined> {
      return tx.get('SELECT * FROM merchant_balances WHERE merchant_id = ?', [merchantId]);
    },
    allBalances(tx: ReadTx): Promise<BalanceRow[]> {
      return tx.all('SELECT * FROM merchant_balances ORDER BY merchant_id');
    },
    /** Balances summed from the entries themselves (the source of truth). */
    async ledgerSums(tx: ReadTx, merchantId: number): Promise<BalanceDelta> {
      const out: BalanceDelta = { available: 0, frozen: 0, deposit: 0 };
      const rows = await tx.all<{ account: MerchantAccount; total: number }>(
        'SELECT account, sum(amount) AS total FROM ledger_entries WHERE merchant_id = ? GROUP BY account',
        [merchantId],
      );
      for (const r of rows) out[r.account.slice('merchant_'.length) as keyof BalanceDelta] = r.total;
      return out;
    },
    transactionsOfOrder(tx: ReadTx, orderId: number): Promise<LedgerTransactionRow[]> {
      return tx.all('SELECT * FROM ledger_transactions WHERE order_id = ? ORDER BY id', [orderId]);
    },
    entriesOfTransaction(tx: ReadTx, transactionId: number): Promise<LedgerEntryRow[]> {
      return tx.all('SELECT * FROM ledger_entries WHERE transaction_id = ? ORDER BY id', [transactionId]);
    },
    /** Newest first, keyset-paginated by id. */
    transactionsOfMerchant(tx: ReadTx, merchantId: number, beforeId: number, limit: number): Promise<LedgerTransactionRow[]> {
      return tx.all('SELECT * FROM ledger_transactions WHERE merchant_id = ? AND id < ? ORDER BY id DESC LIMIT ?', [merchantId, beforeId, limit]);
    },
    unbalancedTransactions(tx: ReadTx): Promise<{ transaction_id: number; total: number }[]> {
      return tx.all('SELECT transaction_id, sum(amount) AS total FROM ledger_entries GROUP BY transaction_id HAVING sum(amount) <> 0');
    },
    accountTotals(tx: ReadTx): Promise<{ account: Account; total: number }[]> {
      return tx.all('SELECT account, sum(amount) AS total FROM ledger_entries GROUP BY account ORDER BY account');
    },
  };
}
export type LedgerRepository = ReturnType<typeof createLedgerRepository>;
