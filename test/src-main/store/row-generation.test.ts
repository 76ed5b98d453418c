/**
 * The row generation (migration 0010 on SQLite, 0011 on PostgreSQL): what a
 * request checked against cached merchants, links and channels stakes
 * (docs/decisions.md, "Hot path"). Every insert, update and delete of those
 * three tables replaces it — through the store or through any other
 * connection to the database — and nothing else does; a change that is
 * rolled back leaves the generation it found, and the next change makes one
 * that was never there before. A database whose triggers a later migration
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
import { NEW_POSTGRES_GENERATION, POSTGRES_ROW_GENERATION_TRIGGERS } from '../../../src-main/store/migrations/0011-row-generation-postgres';
import { openStore } from '../../../src-main/store/open-store';
import type { Store, WriteTx } from '../../../src-main/store/store';
import { tempDir } from '../../support/temp-dir';
import { freshPostgresDatabase, runSqlOn, TEST_ENGINE } from '../../support/test-engine';

/**
 * A database of the test engine: how to open a store on it, and to change it from elsewhere. `broken`: the test
 * breaks its row generation, so on PostgreSQL it is a database of its own, dropped afterwards (not one a later
 * test gets emptied).
 */
async function freshDatabase(options: { broken?: boolean } = {}): Promise<{ open(): Promise<Store>; elsewhere(sql: string): Promise<void> }> {
  if (TEST_ENGINE === 'postgres') {
    const url = await freshPostgresDatabase({ empty: options.broken === true });
    return {
      open: () => openStore({ kind: 'postgres', url }),
      // Another session, as an admin command, psql or another instance would be.
      elsewhere: (sql) => runSqlOn(url, sql),
    };
  }
  const file = path.join(tempDir(), 'db.sqlite');
  return {
    open: () => openStore({ kind: 'sqlite', file }),
    // Another connection to the file, as an admin command or the sqlite3 shell would be.
    async elsewhere(sql) {
      const other = new BetterSqlite3(file);
      try {
        other.exec(sql);
      } finally {
        other.close();
      }
    },
  };
}

/** fn on a fresh store, closed afterwards whatever fn does. */
async function withStore(fn: (store: Store, elsewhere: (sql: string) => Promise<void>) => Promise<void>, options: { broken?: boolean } = {}): Promise<void> {
  const db = await freshDatabase(options);
  const store = await db.open();
  try {
    await fn(store, db.elsewhere);
  } finally {
    await store.close();
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

async function generation(store: Store): Promise<string> {
  return (await store.read((tx) => tx.get<{ generation: string }>('SELECT generation FROM row_generation WHERE id = 1')))!.generation;
}

/** The engine's triggers that keep the generation, by table. */
async function triggersOf(store: Store): Promise<{ name: string; table: string }[]> {
  return store.read((tx) =>
    tx.all<{ name: string; table: string }>(
      tx.dialect === 'postgres'
        ? `SELECT t.tgname AS name, c.relname AS "table" FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
           WHERE NOT t.tgisinternal AND t.tgname LIKE '%generation' ORDER BY 1`
        : "SELECT name, tbl_name AS \"table\" FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%_generation' ORDER BY name",
    ),
  );
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

describe(`row generation (${TEST_ENGINE})`, () => {
  it('one row, a fresh random value at creation, the triggers on the three tables; orders and nonces leave it alone', () =>
    withStore(async (store) => {
      const rows = await store.read((tx) => tx.all<{ id: number; generation: string }>('SELECT * FROM row_generation'));
      expect(rows).toEqual([{ id: 1, generation: expect.stringMatching(/^[0-9a-f]{16}$/) }]);
      const triggers = await triggersOf(store);
      if (TEST_ENGINE === 'postgres') {
        // Per statement, after insert, update, delete and truncate, and ALWAYS (fired by replica sessions too).
        const states = await store.read((tx) => tx.all<{ tgtype: number; tgenabled: string }>("SELECT tgtype, tgenabled FROM pg_trigger WHERE tgname LIKE '%row_generation'"));
        expect(states).toEqual([1, 2, 3].map(() => ({ tgtype: 4 + 8 + 16 + 32, tgenabled: 'A' })));
      }
      const expected = TEST_ENGINE === 'postgres' ? POSTGRES_ROW_GENERATION_TRIGGERS.map((t) => t.name) : ROW_GENERATION_TRIGGERS;
      expect(triggers.map((t) => t.name)).toEqual([...expected].sort());
      expect(new Set(triggers.map((t) => t.table))).toEqual(new Set(['merchants', 'merchant_channels', 'channels']));
      const merchantId = (await store.write((tx) => addMerchant(tx, 'k')))!.id;
      const channelId = (await store.write((tx) => addChannel(tx)))!.id;
      const g = await generation(store);
      await store.write((tx) => createOrderRepository().insertReturning(tx, anOrder(merchantId, channelId, 1)));
      await store.write((tx) => tx.run("UPDATE orders SET status = 'paid'"));
      await store.write((tx) => createNonceRepository().consume(tx, 'k', 'n', 1));
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
      changes.push(['insert link', (tx) => tx.run('INSERT INTO merchant_channels (merchant_id, channel_id, createtime) VALUES (?, ?, 1)', [merchantId, channelId])]);
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
      // An update that matches no row: no change on SQLite (row triggers); PostgreSQL's trigger is per statement,
      // so it replaces the generation anyway (every cached entry is read once more, nothing worse).
      const before = await generation(store);
      await store.write((tx) => tx.run('UPDATE merchants SET enabled = 1 WHERE id = 999'));
      if (TEST_ENGINE === 'postgres') expect(await generation(store)).not.toBe(before);
      else expect(await generation(store)).toBe(before);
    }));

  it.runIf(TEST_ENGINE === 'postgres')('PostgreSQL: replaced once by a statement that changes many rows, and by a TRUNCATE', () =>
    withStore(async (store) => {
      await store.write(async (tx) => {
        for (const key of ['k1', 'k2', 'k3']) await addMerchant(tx, key);
      });
      const before = await generation(store);
      await store.write((tx) => tx.run("UPDATE merchants SET name = 'all renamed'"));
      const afterUpdate = await generation(store);
      expect(afterUpdate).not.toBe(before);
      await store.write((tx) => tx.run('TRUNCATE merchant_channels'));
      const afterTruncate = await generation(store);
      expect(afterTruncate).not.toBe(afterUpdate);
    }));

  it.runIf(TEST_ENGINE === 'postgres')('PostgreSQL: replaced by a session that skips ordinary triggers (session_replication_role = replica: a bulk load, a logical replication apply)', () =>
    withStore(async (store, elsewhere) => {
      await store.write((tx) => addMerchant(tx, 'k1'));
      const before = await generation(store);
      await elsewhere("SET session_replication_role = replica; UPDATE merchants SET name = 'loaded' WHERE api_key = 'k1'");
      expect(await generation(store)).not.toBe(before);
    }));

  it('is replaced by a change another connection makes (an admin command, the sqlite3 shell or psql, another instance)', () =>
    withStore(async (store, elsewhere) => {
      await store.write((tx) => addMerchant(tx, 'k1'));
      const before = await generation(store);
      await elsewhere("UPDATE merchants SET name = 'renamed' WHERE api_key = 'k1'");
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

  it('a database whose triggers a later migration dropped is not opened (rather than served from stale rows)', async () => {
    const db = await freshDatabase({ broken: true });
    await (await db.open()).close();
    // What a rebuild of the table that forgot to create them again leaves.
    const dropped = TEST_ENGINE === 'postgres' ? 'merchants_row_generation' : 'merchants_update_generation';
    await db.elsewhere(TEST_ENGINE === 'postgres' ? `DROP TRIGGER ${dropped} ON merchants` : `DROP TRIGGER ${dropped}`);
    await expect(db.open()).rejects.toThrow(`the database's row generation is incomplete (trigger ${dropped} missing)`);
  });

  it.runIf(TEST_ENGINE === 'postgres')(
    'PostgreSQL: a trigger that would not fire everywhere counts as missing (disabled, replica-only, or not ALWAYS: skipped by replica sessions), and so does another one under its name, and the row',
    async () => {
      const db = await freshDatabase({ broken: true });
      await (await db.open()).close();
      const missing = "the database's row generation is incomplete (trigger channels_row_generation missing)";
      for (const state of ['DISABLE TRIGGER', 'ENABLE REPLICA TRIGGER', 'ENABLE TRIGGER']) {
        await db.elsewhere(`ALTER TABLE channels ${state} channels_row_generation`);
        await expect(db.open(), state).rejects.toThrow(missing);
      }
      await db.elsewhere('ALTER TABLE channels ENABLE ALWAYS TRIGGER channels_row_generation');
      await (await db.open()).close();
      // A trigger of that name that is per row (or for other events, or runs another function) is not the one.
      await db.elsewhere(
        `DROP TRIGGER channels_row_generation ON channels;
         CREATE TRIGGER channels_row_generation AFTER INSERT OR UPDATE OR DELETE ON channels FOR EACH ROW EXECUTE FUNCTION row_generation_bump();
         ALTER TABLE channels ENABLE ALWAYS TRIGGER channels_row_generation`,
      );
      await expect(db.open()).rejects.toThrow(missing);
      await db.elsewhere(
        `DROP TRIGGER channels_row_generation ON channels;
         CREATE TRIGGER channels_row_generation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON channels FOR EACH STATEMENT EXECUTE FUNCTION row_generation_bump();
         ALTER TABLE channels ENABLE ALWAYS TRIGGER channels_row_generation; DELETE FROM row_generation`,
      );
      await expect(db.open()).rejects.toThrow("the database's row generation is incomplete (its row is missing)");
    },
  );

  it.runIf(TEST_ENGINE === 'postgres')("PostgreSQL: the statement docs/deployment.md gives for changes made with triggers off replaces it", () =>
    withStore(async (store, elsewhere) => {
      const before = await generation(store);
      await elsewhere(`UPDATE row_generation SET generation = ${NEW_POSTGRES_GENERATION}`);
      const after = await generation(store);
      expect(after).toMatch(/^[0-9a-f]{16}$/);
      expect(after).not.toBe(before);
    }));

  it.runIf(TEST_ENGINE === 'postgres')("PostgreSQL: replaced whatever the changing session's search_path (a data-only pg_restore runs with an empty one)", () =>
    withStore(async (store, elsewhere) => {
      await store.write((tx) => addMerchant(tx, 'k1'));
      const before = await generation(store);
      const schema = (await store.read((tx) => tx.get<{ s: string }>('SELECT current_schema() AS s')))!.s;
      await elsewhere(`SET search_path = ''; UPDATE "${schema}".merchants SET name = 'restored' WHERE api_key = 'k1'`);
      expect(await generation(store)).not.toBe(before);
    }));

  it('without its row: merchants are still known and linked channels found, nothing is cached, a claim is declined', () =>
    withStore(async (store, elsewhere) => {
      const merchantId = (await store.write((tx) => addMerchant(tx, 'k1')))!.id;
      const channelId = (await store.write((tx) => addChannel(tx)))!.id;
      await store.write((tx) => tx.run('INSERT INTO merchant_channels (merchant_id, channel_id, createtime) VALUES (?, ?, 1)', [merchantId, channelId]));
      const g = await generation(store);
      await elsewhere('DELETE FROM row_generation');
      const found = await store.write((tx) => createNonceRepository().merchantConsumingNonce(tx, 'k1', 'n1', 9));
      expect(found).toEqual({ merchant: expect.objectContaining({ id: merchantId, api_key: 'k1' }), fresh: true });
      expect(found).not.toHaveProperty('generation');
      const link = await store.read((tx) => createChannelRepository().findLinkedWithGeneration(tx, merchantId, channelId));
      expect(link).toEqual({ row: expect.objectContaining({ id: channelId }) });
      const claim = { apiKey: 'k1', nonce: 'n2', nonceExpiresAt: 9, merchantId, generation: g, channelId, linkGeneration: g };
      expect(await store.writeAlone((tx) => createOrderRepository().insertWithNonceIfCurrent(tx, claim, anOrder(merchantId, channelId, 2)))).toBe('declined');
      expect(await store.read((tx) => tx.get('SELECT (SELECT count(*) FROM orders) AS orders, (SELECT count(*) FROM nonces) AS nonces'))).toEqual({ orders: 0, nonces: 1 });
    }, { broken: true }));
});
