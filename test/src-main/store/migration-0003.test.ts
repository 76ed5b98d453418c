import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase, schemaVersion } from '../../../src-main/store/database';
import { LATEST_SCHEMA_VERSION } from '../../../src-main/store/migrations/index';
import { tempDir } from '../../support/temp-dir';

/** A version-2 store (the one before the ledger) with a merchant, a channel, a pending buy and a pending sell. */
function storeBeforeLedger(file: string): void {
  const db = openDatabase(file, { targetVersion: 2 });
  expect(schemaVersion(db)).toBe(2);
  db.exec(`
    INSERT INTO merchants (id, name, api_key, api_secret_enc, sign_type, createtime, updatetime) VALUES (1, 'M', 'mk_1', 'v1:x', 'md5', 100, 100);
    INSERT INTO channels (id, category, name, pay_method, max_amount, createtime, updatetime) VALUES (1, 'beta', 'C', 'bank', 100000, 100, 100);
    INSERT INTO payment_methods (id, merchant_id, kind, source, card_number_enc, card_number_masked, card_fingerprint, real_name, createtime, updatetime)
      VALUES (1, 1, 'bank', 'operator', 'v1:x', '****', 'f', 'R', 100, 100);
  `);
  const order = db.prepare(
    `INSERT INTO orders (order_no, merchant_id, channel_id, order_type, status, pay_method, cny_amount, service_rate, passage_rate, deposit_rate,
       base_rate, service_amount, passage_amount, deposit_amount, channel_amount, merchant_actual_amount, payment_method_id, pay_token, expires_at,
       createtime, updatetime)
     VALUES (?, 1, 1, ?, 'pending', 'bank', 1000, '0', '0', 0, 0, 0, 0, 0, 0, 1000, ?, ?, ?, 100, 100)`,
  );
  order.run('B1', 1, null, 'tok', 1900);
  order.run('S1', 2, 1, null, null);
  db.close();
}

describe('migration 3 (ledger and lifecycle)', () => {
  it('upgrades a version-2 store: channel timing defaults, stale pending sells cancelled with a recorded reason', () => {
    const file = path.join(tempDir(), 'store.sqlite');
    storeBeforeLedger(file);
    const db = openDatabase(file);
    try {
      expect(schemaVersion(db)).toBe(LATEST_SCHEMA_VERSION);
      expect(db.prepare('SELECT pay_timeout_seconds, settle_delay_seconds, payout_delay_seconds FROM channels').get()).toEqual({
        pay_timeout_seconds: 1800,
        settle_delay_seconds: 0,
        payout_delay_seconds: 5,
      });
      expect(db.prepare("SELECT order_no, status FROM orders ORDER BY order_no").all()).toEqual([
        { order_no: 'B1', status: 'pending' },
        { order_no: 'S1', status: 'cancelled' },
      ]);
      expect(db.prepare('SELECT from_status, to_status, source, reason FROM order_transitions').all()).toEqual([
        { from_status: 'pending', to_status: 'cancelled', source: 'operator', reason: expect.stringContaining('no funds were reserved') },
      ]);
      expect(db.prepare('SELECT count(*) AS n FROM ledger_entries').get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  });

  it('enforces the ledger invariants in the schema too', () => {
    const db = openDatabase(path.join(tempDir(), 'store.sqlite'));
    try {
      db.exec(`INSERT INTO merchants (id, name, api_key, api_secret_enc, sign_type, createtime, updatetime) VALUES (1, 'M', 'mk_1', 'v1:x', 'md5', 1, 1)`);
      expect(() => db.exec(`INSERT INTO merchant_balances (merchant_id, available, updatetime) VALUES (1, -1, 1)`)).toThrow(/CHECK constraint/);
      db.exec(`INSERT INTO ledger_transactions (id, kind, merchant_id, reason, createtime) VALUES (1, 'adjustment', 1, 'r', 1)`);
      expect(() => db.exec(`INSERT INTO ledger_entries (transaction_id, account, merchant_id, amount) VALUES (1, 'merchant_available', NULL, 5)`)).toThrow(/CHECK/);
      expect(() => db.exec(`INSERT INTO ledger_entries (transaction_id, account, merchant_id, amount) VALUES (1, 'platform_adjustment', 1, 5)`)).toThrow(/CHECK/);
      expect(() => db.exec(`INSERT INTO ledger_entries (transaction_id, account, merchant_id, amount) VALUES (1, 'merchant_available', 1, 0)`)).toThrow(/CHECK/);
      expect(() => db.exec(`INSERT INTO ledger_transactions (kind, merchant_id, reason, createtime) VALUES ('buy_paid', 1, 'no order', 1)`)).toThrow(/CHECK/);
      db.exec(`INSERT INTO channels (id, category, name, pay_method, max_amount, createtime, updatetime) VALUES (1, 'beta', 'C', 'bank', 100, 1, 1)`);
      expect(() => db.exec(`UPDATE channels SET pay_timeout_seconds = 5`)).toThrow(/CHECK/);
      expect(() => db.exec(`UPDATE channels SET payout_delay_seconds = -1`)).toThrow(/CHECK/);
    } finally {
      db.close();
    }
  });
});
