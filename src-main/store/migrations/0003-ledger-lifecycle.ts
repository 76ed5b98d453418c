import type { Migration } from './index';
import { PG } from './pg-types';

/**
 * Money and order lifecycle: the double-entry ledger with cached merchant
 * balances, the record of every status transition, scheduled order work
 * (payout start, settlement, payout completion) and per-channel timing.
 */
export const migration0003LedgerLifecycle: Migration = {
  version: 3,
  name: 'ledger, balances, order transitions, order jobs, channel timing settings',
  schema: {
    sqlite: `
      -- Seconds: a buy order unpaid this long is cancelled; a paid buy settles
      -- this long after payment; an accepted payout completes this long after.
      ALTER TABLE channels ADD COLUMN pay_timeout_seconds INTEGER NOT NULL DEFAULT 1800
        CHECK (pay_timeout_seconds BETWEEN 60 AND 604800);
      ALTER TABLE channels ADD COLUMN settle_delay_seconds INTEGER NOT NULL DEFAULT 0
        CHECK (settle_delay_seconds BETWEEN 0 AND 604800);
      ALTER TABLE channels ADD COLUMN payout_delay_seconds INTEGER NOT NULL DEFAULT 5
        CHECK (payout_delay_seconds BETWEEN 0 AND 604800);

      -- One ledger transaction per money movement; its entries sum to zero.
      CREATE TABLE ledger_transactions (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('buy_paid', 'sell_freeze', 'sell_paid_out', 'sell_release', 'adjustment')),
        merchant_id INTEGER NOT NULL REFERENCES merchants(id),
        order_id INTEGER REFERENCES orders(id),
        reason TEXT NOT NULL,
        createtime INTEGER NOT NULL,
        CHECK ((kind = 'adjustment') = (order_id IS NULL))
      );
      -- An order's effect is posted at most once, whatever retries happen.
      CREATE UNIQUE INDEX ledger_transactions_once_per_order ON ledger_transactions(order_id, kind) WHERE order_id IS NOT NULL;
      CREATE INDEX ledger_transactions_by_merchant ON ledger_transactions(merchant_id, id);

      -- Signed fen. Merchant accounts carry merchant_id; platform and
      -- external accounts (the other side of every movement) do not.
      CREATE TABLE ledger_entries (
        id INTEGER PRIMARY KEY,
        transaction_id INTEGER NOT NULL REFERENCES ledger_transactions(id),
        account TEXT NOT NULL CHECK (account IN (
          'merchant_available', 'merchant_frozen', 'merchant_deposit',
          'external_payer', 'external_payee', 'platform_service_fee', 'channel_passage', 'channel_commission', 'platform_adjustment')),
        merchant_id INTEGER REFERENCES merchants(id),
        amount INTEGER NOT NULL CHECK (amount <> 0),
        CHECK ((account IN ('merchant_available', 'merchant_frozen', 'merchant_deposit')) = (merchant_id IS NOT NULL))
      );
      CREATE INDEX ledger_entries_by_transaction ON ledger_entries(transaction_id);
      CREATE INDEX ledger_entries_by_merchant_account ON ledger_entries(merchant_id, account, amount) WHERE merchant_id IS NOT NULL;

      -- Balances derived from the ledger, cached for the sell-order check;
      -- written in the same transaction as the entries, never negative.
      CREATE TABLE merchant_balances (
        merchant_id INTEGER PRIMARY KEY REFERENCES merchants(id),
        available INTEGER NOT NULL DEFAULT 0 CHECK (available >= 0),
        frozen INTEGER NOT NULL DEFAULT 0 CHECK (frozen >= 0),
        deposit INTEGER NOT NULL DEFAULT 0 CHECK (deposit >= 0),
        updatetime INTEGER NOT NULL
      );

      CREATE TABLE order_transitions (
        id INTEGER PRIMARY KEY,
        order_id INTEGER NOT NULL REFERENCES orders(id),
        from_status TEXT NOT NULL,
        to_status TEXT NOT NULL,
        source TEXT NOT NULL CHECK (source IN ('channel', 'operator', 'expiry')),
        reason TEXT NOT NULL,
        createtime INTEGER NOT NULL
      );
      CREATE INDEX order_transitions_by_order ON order_transitions(order_id, id);

      -- Work due on an order at a time: stored, so it survives restarts.
      CREATE TABLE order_jobs (
        id INTEGER PRIMARY KEY,
        order_id INTEGER NOT NULL REFERENCES orders(id),
        kind TEXT NOT NULL CHECK (kind IN ('start_payout', 'settle', 'complete_payout')),
        due_at INTEGER NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        createtime INTEGER NOT NULL,
        UNIQUE (order_id, kind)
      );
      CREATE INDEX order_jobs_by_due ON order_jobs(due_at);

      -- The expiry sweeper's scan: unpaid buy orders by deadline.
      CREATE INDEX orders_pending_by_expiry ON orders(expires_at) WHERE status = 'pending' AND expires_at IS NOT NULL;
`,
    postgres: `
      -- Seconds: a buy order unpaid this long is cancelled; a paid buy settles
      -- this long after payment; an accepted payout completes this long after.
      ALTER TABLE channels ADD COLUMN pay_timeout_seconds ${PG.int} NOT NULL DEFAULT 1800
        CHECK (pay_timeout_seconds BETWEEN 60 AND 604800);
      ALTER TABLE channels ADD COLUMN settle_delay_seconds ${PG.int} NOT NULL DEFAULT 0
        CHECK (settle_delay_seconds BETWEEN 0 AND 604800);
      ALTER TABLE channels ADD COLUMN payout_delay_seconds ${PG.int} NOT NULL DEFAULT 5
        CHECK (payout_delay_seconds BETWEEN 0 AND 604800);

      -- One ledger transaction per money movement; its entries sum to zero.
      CREATE TABLE ledger_transactions (
        id ${PG.id},
        kind ${PG.text} NOT NULL CHECK (kind IN ('buy_paid', 'sell_freeze', 'sell_paid_out', 'sell_release', 'adjustment')),
        merchant_id ${PG.int} NOT NULL REFERENCES merchants(id),
        order_id ${PG.int} REFERENCES orders(id),
        reason ${PG.text} NOT NULL,
        createtime ${PG.int} NOT NULL,
        CHECK ((kind = 'adjustment') = (order_id IS NULL))
      );
      -- An order's effect is posted at most once, whatever retries happen.
      CREATE UNIQUE INDEX ledger_transactions_once_per_order ON ledger_transactions(order_id, kind) WHERE order_id IS NOT NULL;
      CREATE INDEX ledger_transactions_by_merchant ON ledger_transactions(merchant_id, id);

      -- Signed fen. Merchant accounts carry merchant_id; platform and
      -- external accounts (the other side of every movement) do not.
      CREATE TABLE ledger_entries (
        id ${PG.id},
        transaction_id ${PG.int} NOT NULL REFERENCES ledger_transactions(id),
        account ${PG.text} NOT NULL CHECK (account IN (
          'merchant_available', 'merchant_frozen', 'merchant_deposit',
          'external_payer', 'external_payee', 'platform_service_fee', 'channel_passage', 'channel_commission', 'platform_adjustment')),
        merchant_id ${PG.int} REFERENCES merchants(id),
        amount ${PG.int} NOT NULL CHECK (amount <> 0),
        CHECK ((account IN ('merchant_available', 'merchant_frozen', 'merchant_deposit')) = (merchant_id IS NOT NULL))
      );
      CREATE INDEX ledger_entries_by_transaction ON ledger_entries(transaction_id);
      CREATE INDEX ledger_entries_by_merchant_account ON ledger_entries(merchant_id, account, amount) WHERE merchant_id IS NOT NULL;

      -- Balances derived from the ledger, cached for the sell-order check;
      -- written in the same transaction as the entries, never negative.
      CREATE TABLE merchant_balances (
        merchant_id ${PG.int} PRIMARY KEY REFERENCES merchants(id),
        available ${PG.int} NOT NULL DEFAULT 0 CHECK (available >= 0),
        frozen ${PG.int} NOT NULL DEFAULT 0 CHECK (frozen >= 0),
        deposit ${PG.int} NOT NULL DEFAULT 0 CHECK (deposit >= 0),
        updatetime ${PG.int} NOT NULL
      );

      CREATE TABLE order_transitions (
        id ${PG.id},
        order_id ${PG.int} NOT NULL REFERENCES orders(id),
        from_status ${PG.text} NOT NULL,
        to_status ${PG.text} NOT NULL,
        source ${PG.text} NOT NULL CHECK (source IN ('channel', 'operator', 'expiry')),
        reason ${PG.text} NOT NULL,
        createtime ${PG.int} NOT NULL
      );
      CREATE INDEX order_transitions_by_order ON order_transitions(order_id, id);

      -- Work due on an order at a time: stored, so it survives restarts.
      CREATE TABLE order_jobs (
        id ${PG.id},
        order_id ${PG.int} NOT NULL REFERENCES orders(id),
        kind ${PG.text} NOT NULL CHECK (kind IN ('start_payout', 'settle', 'complete_payout')),
        due_at ${PG.int} NOT NULL,
        attempts ${PG.int} NOT NULL DEFAULT 0,
        last_error ${PG.text},
        createtime ${PG.int} NOT NULL,
        UNIQUE (order_id, kind)
      );
      CREATE INDEX order_jobs_by_due ON order_jobs(due_at);

      -- The expiry sweeper's scan: unpaid buy orders by deadline.
      CREATE INDEX orders_pending_by_expiry ON orders(expires_at) WHERE status = 'pending' AND expires_at IS NOT NULL;
`,
  },
  // Sell orders created before this version reserved no funds; cancelling
  // them keeps every later release balanced (nothing was frozen).
  async data(tx) {
    const now = Math.floor(Date.now() / 1000);
    const stale = await tx.all<{ id: number }>(`SELECT id FROM orders WHERE order_type = 2 AND status = 'pending'`);
    for (const { id } of stale) {
      await tx.run(`UPDATE orders SET status = 'cancelled', updatetime = ? WHERE id = ?`, [now, id]);
      await tx.run(
        `INSERT INTO order_transitions (order_id, from_status, to_status, source, reason, createtime) VALUES (?, 'pending', 'cancelled', 'operator', ?, ?)`,
        [id, 'created before balances existed (schema 3): no funds were reserved, so it cannot be paid out', now],
      );
    }
  },
};
