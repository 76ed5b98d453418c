/**
 * SQLite's row generation (migration 0010): what stands in for PostgreSQL's
 * row versions when a request is checked against cached merchants, links
 * and channels (docs/decisions.md, "Hot path"). Every insert, update and
 * delete of those three tables replaces it — through the store or through
 * any other connection to the file — and nothing else does; a change that
 * is rolled back leaves the generation it found, and the next change makes
 * one that was never there before. A file whose triggers a later migration
 * dropped is not opened; without its row, nothing is cached and merchants
 * are still known.
 */
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createNonceRepository } from '../../../src-main/repositories/nonce-repository';
import { createChannelRepository } from '../../../src-main/repositories/channel-repository';
import { createOrderRepository, type NewOrderRow } from '../../../src-main/repositories/order-repository';
import { ROW_GENERATION_TRIGGERS } from '../../../src-main/store/migrations/0010-row-generation';
import { openSqliteStore, type SqliteStore } from '../../../src-main/store/sqlite/sqlite-store';
import type { WriteTx } from '../../../src-main/store/store';
import { tempDir } from '../../support/temp-dir';

async function opened(file = path.join(tempDir(), 'db.sqlite')): Promise<SqliteStore> {
  return openSqliteStore({ file });
}

/** fn on a fresh store, closed afterwards whatever fn does. */
async function withStore(fn: (store: SqliteStore) => Promise<void>): Promise<void> {
  const store = await opened();
  try {
    await fn(store);
  } finally {
    await store.close();
  }
}

/** Runs SQL on the file through a connection of its own, as an admin command or the sqlite3 shell would. */
function elsewhere(file: string, sql: string): void {
  const other = new BetterSqlite3(file);
  try {
    other.exec(sql);
  } finally {
    other.close();
  }
}

function anOrder(merchantId: number, channelId: number, n: number): NewOrderRow {
  return {
    order_no: `B${String(n).padStart(24, '0')}`, merchant_id: merchantId, channel_id: channelId, order_type: 1, status: 'pending', pay_method: 'alipay',
    cny_amount: 10_000, service_rate: '0.006', passage_rate: '0', deposit_rate: 0, base_rate: 0, service_amount: 60, passage_amount: 0,
    deposit_amount: 0, channel_amount: 0, merchant_actual_amount: 9_940, customer_name: null, payment_method_id: null,
    payment_method_snapshot: null, customer_payment_method: null, alpha_data_enc: null, pay_token: `tok_${n}`, pay_url: null,
    expires_at: 2_000_000_000, createtime: 1_800_000_000,
  };
}

async function generation(store: SqliteStore): Promise<string> {
  return (await store.read((tx) => tx.get<{ generation: string }>('SELECT generation FROM row_generation WHERE id = 1')))!.generation;
}

const addMerchant = (tx: WriteTx, key: string) =>
  tx.get<{ id: number }>(
    "INSERT INTO merchants (name, api_key, api_secret_enc, sign_type, enabled, createtime, updatetime) VALUES ('m', ?, 'v1:x', 'md5', 1, 1, 1) RETURNING id",
    [key],
  );
const addChannel = (tx: WriteTx) =>
  tx.get<{ id: number }>(
    "INSERT INTO channels (category, name, pay_method, min_amount, max_amount, createtime, updatetime) VALUES ('gamma', 'c', 'alipay', 100, 1000000, 1, 1) RETURNING id",
  );

describe('SQLite row generation', () => {
  it('one row, a fresh random value at creation, nine triggers; orders and nonces leave it alone', () =>
    withStore(async (store) => {
      const rows = await store.read((tx) => tx.all<{ id: number; generation: string }>('SELECT * FROM row_generation'));
      expect(rows).toEqual([{ id: 1, generation: expect.stringMatching(/^[0-9a-f]{16}$/) }]);
      const triggers = await store.read((tx) => tx.all<{ name: string; tbl_name: string }>("SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%_generation' ORDER BY name"));
      expect(triggers.map((t) => t.name)).toEqual([...ROW_GENERATION_TRIGGERS].sort());
      expect(new Set(triggers.map((t) => t.tbl_name))).toEqual(new Set(['merchants', 'merchant_channels', 'channels']));
      const merchantId = (await store.write((tx) => addMerchant(tx, 'k')))!.id;
      const channelId = (await store.write((tx) => addChannel(tx)))!.id;
      const g = await generation(store);
      await store.write((tx) => createOrderRepository().insertReturning(tx, anOrder(merchantId, channelId, 1)));
      await store.write((tx) => tx.run("UPDATE orders SET status = 'paid'"));
      await store.write((tx) => tx.run("INSERT INTO nonces (api_key, nonce, expires_at) VALUES ('k', 'n', 1)"));
      await store.write((tx) => tx.run('DELETE FROM nonces'));
      expect(await generation(store)).toBe(g);
      // A second row cannot be added.
      await expect(store.write((tx) => tx.run("INSERT INTO row_generation (id, generation) VALUES (2, 'x')"))).rejects.toMatchObject({ kind: 'check' });
    }));

  it('is replaced by every insert, update and delete of merchants, merchant_channels and channels', () =>
    withStore(async (store) => {
      const seen = new Set([await generation(store)]);
      const changes: [string, (tx: WriteTx) => Promise<unknown>][] = [];
      let merchantId = 0;
      let channelId = 0;
      changes.push(['insert merchant', async (tx) => (merchantId = (await addMerchant(tx, 'k1'))!.id)]);
      changes.push(['insert channel', async (tx) => (channelId = (await addChannel(tx))!.id)]);
      changes.push(['insert link', (tx) => tx.run("INSERT INTO merchant_channels (merchant_id, channel_id, createtime) VALUES (?, ?, 1)", [merchantId, channelId])]);
      changes.push(['update merchant', (tx) => tx.run('UPDATE merchants SET enabled = 0 WHERE id = ?', [merchantId])]);
      changes.push(['update channel', (tx) => tx.run("UPDATE channels SET service_rate = '0.01' WHERE id = ?", [channelId])]);
      changes.push(['update link', (tx) => tx.run("UPDATE merchant_channels SET service_rate = '0.02' WHERE merchant_id = ?", [merchantId])]);
      // An update that sets what is there already counts too (the trigger does not compare).
      changes.push(['update merchant, same value', (tx) => tx.run('UPDATE merchants SET enabled = 0 WHERE id = ?', [merchantId])]);
      changes.push(['delete link', (tx) => tx.run('DELETE FROM merchant_channels WHERE merchant_id = ?', [merchantId])]);
      changes.push(['delete channel', (tx) => tx.run('DELETE FROM channels WHERE id = ?', [channelId])]);
      changes.push(['delete merchant', (tx) => tx.run('DELETE FROM merchants WHERE id = ?', [merchantId])]);
      for (const [name, change] of changes) {
        await store.write(change);
        const now = await generation(store);
        expect(seen.has(now), name).toBe(false);
        seen.add(now);
      }
      // An update that matches no row is no change.
      const before = await generation(store);
      await store.write((tx) => tx.run('UPDATE merchants SET enabled = 1 WHERE id = 999'));
      expect(await generation(store)).toBe(before);
    }));

  it('is replaced by a change another connection to the file makes (an admin command, the sqlite3 shell)', () =>
    withStore(async (store) => {
      await store.write((tx) => addMerchant(tx, 'k1'));
      const before = await generation(store);
      elsewhere(store.file, "UPDATE merchants SET name = 'renamed' WHERE api_key = 'k1'");
      const after = await generation(store);
      expect(after).not.toBe(before);
      // The store's writer sees it too (the unit of its own reads it there).
      expect(await store.write((tx) => tx.get<{ generation: string }>('SELECT generation FROM row_generation'))).toEqual({ generation: after });
    }));

  it('a change rolled back leaves the generation it found; the next change makes one never seen, not the rolled-back one', () =>
    withStore(async (store) => {
      await store.write((tx) => addMerchant(tx, 'k1'));
      const before = await generation(store);
      let inside = '';
      await expect(
        store.write(async (tx) => {
          await tx.run("UPDATE merchants SET name = 'undone' WHERE api_key = 'k1'");
          inside = (await tx.get<{ generation: string }>('SELECT generation FROM row_generation'))!.generation;
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      expect(inside).not.toBe(before);
      expect(await generation(store)).toBe(before);
      await store.write((tx) => tx.run("UPDATE merchants SET name = 'done' WHERE api_key = 'k1'"));
      const next = await generation(store);
      expect([before, inside]).not.toContain(next);
    }));
  it('a file whose triggers a later migration dropped is not opened (rather than served from stale rows)', async () => {
    const file = path.join(tempDir(), 'db.sqlite');
    await (await opened(file)).close();
    // What a rebuild of the table (create, copy, drop, rename) that forgot to create them again leaves.
    elsewhere(file, 'DROP TRIGGER merchants_update_generation');
    await expect(opened(file)).rejects.toThrow("the database's row generation is incomplete (trigger merchants_update_generation missing)");
  });

  it('without its row: merchants are still known and linked channels found, nothing is cached, a claim is stale', () =>
    withStore(async (store) => {
      const merchantId = (await store.write((tx) => addMerchant(tx, 'k1')))!.id;
      const channelId = (await store.write((tx) => addChannel(tx)))!.id;
      await store.write((tx) => tx.run('INSERT INTO merchant_channels (merchant_id, channel_id, createtime) VALUES (?, ?, 1)', [merchantId, channelId]));
      const g = await generation(store);
      elsewhere(store.file, 'DELETE FROM row_generation');
      const found = await store.write((tx) => createNonceRepository().merchantConsumingNonce(tx, 'k1', 'n1', 9));
      expect(found).toEqual({ merchant: expect.objectContaining({ id: merchantId, api_key: 'k1' }), fresh: true });
      expect(found).not.toHaveProperty('version');
      const link = await store.read((tx) => createChannelRepository().findLinkedVersioned(tx, merchantId, channelId));
      expect(link).toEqual({ row: expect.objectContaining({ id: channelId }) });
      const claim = { apiKey: 'k1', nonce: 'n2', nonceExpiresAt: 9, merchantId, merchantVersion: g, channelId, linkVersion: g, channelVersion: g };
      expect(await store.writeAlone((tx) => createOrderRepository().insertWithNonceIfCurrent(tx, claim, anOrder(merchantId, channelId, 2)))).toBe('stale');
      expect(await store.read((tx) => tx.get('SELECT (SELECT count(*) FROM orders) AS orders, (SELECT count(*) FROM nonces) AS nonces'))).toEqual({ orders: 0, nonces: 1 });
    }));
});
