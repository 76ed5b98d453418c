import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LATEST_SCHEMA_VERSION } from '../../../src-main/store/migrations/index';
import { openSqliteStore, type SqliteStore } from '../../../src-main/store/sqlite/sqlite-store';
import { StoreError, type ReadTx } from '../../../src-main/store/store';
import { tempDir } from '../../support/temp-dir';

const schemaVersion = async (tx: ReadTx) => (await tx.get<{ user_version: number }>('PRAGMA user_version'))!.user_version;

/** A version-2 store (the one before the ledger) with a merchant, a channel, a pending buy and a pending sell. */
async function storeBeforeLedger(file: string): Promise<void> {
  const store = await openSqliteStore({ file, targetVersion: 2 });
  try {
    expect(await store.read(schemaVersion)).toBe(2);
    await store.write(async (tx) => {
      await tx.run("INSERT INTO merchants (id, name, api_key, api_secret_enc, sign_type, createtime, updatetime) VALUES (1, 'M', 'mk_1', 'v1:x', 'md5', 100, 100)");
      await tx.run("INSERT INTO channels (id, category, name, pay_method, max_amount, createtime, updatetime) VALUES (1, 'beta', 'C', 'bank', 100000, 100, 100)");
      await tx.run(`INSERT INTO payment_methods (id, merchant_id, kind, source, card_number_enc, card_number_masked, card_fingerprint, real_name, createtime, updatetime)
        VALUES (1, 1, 'bank', 'operator', 'v1:x', '****', 'f', 'R', 100, 100)`);
      const order = `INSERT INTO orders (order_no, merchant_id, channel_id, order_type, status, pay_method, cny_amount, service_rate, passage_rate, deposit_rate,
         base_rate, service_amount, passage_amount, deposit_amount, channel_amount, merchant_actual_amount, payment_method_id, pay_token, expires_at,
         createtime, updatetime)
       VALUES (?, 1, 1, ?, 'pending', 'bank', 1000, '0', '0', 0, 0, 0, 0, 0, 0, 1000, ?, ?, ?, 100, 100)`;
      await tx.run(order, ['B1', 1, null, 'tok', 1900]);
      await tx.run(order, ['S1', 2, 1, null, null]);
    });
  } finally {
    await store.close();
  }
}

async function withStore(file: string, fn: (store: SqliteStore) => Promise<void>): Promise<void> {
  const store = await openSqliteStore({ file });
  try {
    await fn(store);
  } finally {
    await store.close();
  }
}

describe('migration 3 (ledger and lifecycle)', () => {
  it('upgrades a version-2 store: channel timing defaults, stale pending sells cancelled with a recorded reason', async () => {
    const file = path.join(tempDir(), 'store.sqlite');
    await storeBeforeLedger(file);
    await withStore(file, (store) =>
      store.read(async (tx) => {
        expect(await schemaVersion(tx)).toBe(LATEST_SCHEMA_VERSION);
        expect(await tx.get('SELECT pay_timeout_seconds, settle_delay_seconds, payout_delay_seconds FROM channels')).toEqual({
          pay_timeout_seconds: 1800,
          settle_delay_seconds: 0,
          payout_delay_seconds: 5,
        });
        expect(await tx.all('SELECT order_no, status FROM orders ORDER BY order_no')).toEqual([
          { order_no: 'B1', status: 'pending' },
          { order_no: 'S1', status: 'cancelled' },
        ]);
        expect(await tx.all('SELECT from_status, to_status, source, reason FROM order_transitions')).toEqual([
          { from_status: 'pending', to_status: 'cancelled', source: 'operator', reason: expect.stringContaining('no funds were reserved') },
        ]);
        expect(await tx.get('SELECT count(*) AS n FROM ledger_entries')).toEqual({ n: 0 });
      }),
    );
  });

  it('enforces the ledger invariants in the schema too', async () => {
    await withStore(path.join(tempDir(), 'store.sqlite'), async (store) => {
      const run = (sql: string) => store.write((tx) => tx.run(sql));
      const refusedByCheck = async (sql: string) => {
        const err = await run(sql).then(() => undefined, (e: unknown) => e);
        expect(err, sql).toBeInstanceOf(StoreError);
        expect((err as StoreError).kind, sql).toBe('check');
        expect((err as StoreError).message, sql).toMatch(/CHECK constraint/);
      };
      await run(`INSERT INTO merchants (id, name, api_key, api_secret_enc, sign_type, createtime, updatetime) VALUES (1, 'M', 'mk_1', 'v1:x', 'md5', 1, 1)`);
      await refusedByCheck(`INSERT INTO merchant_balances (merchant_id, available, updatetime) VALUES (1, -1, 1)`);
      await run(`INSERT INTO ledger_transactions (id, kind, merchant_id, reason, createtime) VALUES (1, 'adjustment', 1, 'r', 1)`);
      await refusedByCheck(`INSERT INTO ledger_entries (transaction_id, account, merchant_id, amount) VALUES (1, 'merchant_available', NULL, 5)`);
      await refusedByCheck(`INSERT INTO ledger_entries (transaction_id, account, merchant_id, amount) VALUES (1, 'platform_adjustment', 1, 5)`);
      await refusedByCheck(`INSERT INTO ledger_entries (transaction_id, account, merchant_id, amount) VALUES (1, 'merchant_available', 1, 0)`);
      await refusedByCheck(`INSERT INTO ledger_transactions (kind, merchant_id, reason, createtime) VALUES ('buy_paid', 1, 'no order', 1)`);
      await run(`INSERT INTO channels (id, category, name, pay_method, max_amount, createtime, updatetime) VALUES (1, 'beta', 'C', 'bank', 100, 1, 1)`);
      await refusedByCheck(`UPDATE channels SET pay_timeout_seconds = 5`);
      await refusedByCheck(`UPDATE channels SET payout_delay_seconds = -1`);
    });
  });
});
