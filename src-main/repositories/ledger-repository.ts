import type { Database } from 'better-sqlite3';
import type { Account, LedgerKind, MerchantAccount } from '../ledger/posting-rules';

export interface LedgerTransactionRow {
  id: number;
  kind: LedgerKind;
  merchant_id: number;
  order_id: number | null;
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

export function createLedgerRepository(db: Database) {
  const insertTransaction = db.prepare<Omit<LedgerTransactionRow, 'id'>>(
    `INSERT INTO ledger_transactions (kind, merchant_id, order_id, reason, createtime)
     VALUES (@kind, @merchant_id, @order_id, @reason, @createtime)`,
  );
  const insertEntry = db.prepare<Omit<LedgerEntryRow, 'id'>>(
    `INSERT INTO ledger_entries (transaction_id, account, merchant_id, amount) VALUES (@transaction_id, @account, @merchant_id, @amount)`,
  );
  // Two statements, not an upsert: the CHECK (>= 0) would judge the
  // inserted delta row itself before any conflict resolution.
  const ensureBalance = db.prepare<[number, number]>(
    'INSERT OR IGNORE INTO merchant_balances (merchant_id, available, frozen, deposit, updatetime) VALUES (?, 0, 0, 0, ?)',
  );
  const applyDelta = db.prepare<BalanceDelta & { merchant_id: number; now: number }>(
    `UPDATE merchant_balances SET available = available + @available, frozen = frozen + @frozen, deposit = deposit + @deposit,
       updatetime = @now WHERE merchant_id = @merchant_id`,
  );
  const balance = db.prepare<[number], BalanceRow>('SELECT * FROM merchant_balances WHERE merchant_id = ?');
  const allBalances = db.prepare<[], BalanceRow>('SELECT * FROM merchant_balances ORDER BY merchant_id');
  const ledgerSums = db.prepare<[number], { account: MerchantAccount; total: number }>(
    `SELECT account, sum(amount) AS total FROM ledger_entries WHERE merchant_id = ? GROUP BY account`,
  );
  const transactionsOfOrder = db.prepare<[number], LedgerTransactionRow>('SELECT * FROM ledger_transactions WHERE order_id = ? ORDER BY id');
  const entriesOfTransaction = db.prepare<[number], LedgerEntryRow>('SELECT * FROM ledger_entries WHERE transaction_id = ? ORDER BY id');
  const transactionsOfMerchant = db.prepare<[number, number, number], LedgerTransactionRow>(
    'SELECT * FROM ledger_transactions WHERE merchant_id = ? AND id < ? ORDER BY id DESC LIMIT ?',
  );
  const unbalanced = db.prepare<[], { transaction_id: number; total: number }>(
    'SELECT transaction_id, sum(amount) AS total FROM ledger_entries GROUP BY transaction_id HAVING sum(amount) <> 0',
  );
  const accountTotals = db.prepare<[], { account: Account; total: number }>(
    'SELECT account, sum(amount) AS total FROM ledger_entries GROUP BY account ORDER BY account',
  );

  return {
    insertTransaction(row: Omit<LedgerTransactionRow, 'id'>): number {
      return Number(insertTransaction.run(row).lastInsertRowid);
    },
    insertEntry(row: Omit<LedgerEntryRow, 'id'>): void {
      insertEntry.run(row);
    },
    applyBalanceDelta(merchantId: number, delta: BalanceDelta, now: number): void {
      ensureBalance.run(merchantId, now);
      applyDelta.run({ merchant_id: merchantId, ...delta, now });
    },
    balance(merchantId: number): BalanceRow | undefined {
      return balance.get(merchantId);
    },
    allBalances(): BalanceRow[] {
      return allBalances.all();
    },
    /** Balances summed from the entries themselves (the source of truth). */
    ledgerSums(merchantId: number): BalanceDelta {
      const out: BalanceDelta = { available: 0, frozen: 0, deposit: 0 };
      for (const r of ledgerSums.all(merchantId)) out[r.account.slice('merchant_'.length) as keyof BalanceDelta] = r.total;
      return out;
    },
    transactionsOfOrder(orderId: number): LedgerTransactionRow[] {
      return transactionsOfOrder.all(orderId);
    },
    entriesOfTransaction(transactionId: number): LedgerEntryRow[] {
      return entriesOfTransaction.all(transactionId);
    },
    /** Newest first, keyset-paginated by id. */
    transactionsOfMerchant(merchantId: number, beforeId: number, limit: number): LedgerTransactionRow[] {
      return transactionsOfMerchant.all(merchantId, beforeId, limit);
    },
    unbalancedTransactions(): { transaction_id: number; total: number }[] {
      return unbalanced.all();
    },
    accountTotals(): { account: Account; total: number }[] {
      return accountTotals.all();
    },
  };
}
export type LedgerRepository = ReturnType<typeof createLedgerRepository>;
