/**
 * The copy behind `merchant-console db copy` (store/copy-store.ts), on
 * SQLite: it covers every table the migrations make, in foreign-key order,
 * copies the staff accounts, approvals with their withdrawal holds,
 * sessions and the hash-chained audit trail row for row, refuses a store
 * with a table it does not know, and rolls the target back when what it
 * wrote differs from the source. PostgreSQL and the command itself:
 * test/src-main/store/postgres/db-copy.test.ts.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openService } from '../../../src-main/service';
import { COPIED_TABLES, CopyIncompleteError, copyStore, DERIVED_TABLES, firstNonEmptyTable, tablesOf, UnknownTablesError, type CopyProgress } from '../../../src-main/store/copy-store';
import { databasePath } from '../../../src-main/store/data-dir';
import { openStore } from '../../../src-main/store/open-store';
import type { Store } from '../../../src-main/store/store';
import { expectLedgerConsistent, fund, newBuy, newSell, orderIn } from '../../support/money';
import { seedMerchant, testService } from '../../support/service-harness';
import { tempDir } from '../../support/temp-dir';
import { dumpTables, seedTeamRecords } from './team-records';

const KEY = Buffer.alloc(32, 7);

let open: Store[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

/** An empty, migrated SQLite store in a data dir of its own. */
async function emptyStore(dir = tempDir()): Promise<Store> {
  const store = await openStore({ kind: 'sqlite', file: databasePath(dir) });
  open.push(store);
  return store;
}

/** A store with orders, ledger, accounts, approvals (withdrawal holds) and audit entries. */
async function fullStore() {
  const service = await testService({ masterKeyStore: { loadOrCreate: () => KEY } });
  const m = await seedMerchant(service, 'Alpha');
  await fund(service, m.id, 1_000_000);
  for (const status of ['paid', 'completed', 'cancelled'] as const) await orderIn(service, m, 1, status);
  await newSell(service, m, 20_000);
  await newBuy(service, m);
  await seedTeamRecords(service, m.id);
  return service;
}

describe('copyStore', () => {
  it('covers every table the migrations make, each after the tables it references', async () => {
    const store = await emptyStore();
    expect(await store.read(tablesOf)).toEqual([...COPIED_TABLES, ...DERIVED_TABLES].sort());
    const parents = await store.read(async (tx) => {
      const out: Record<string, string[]> = {};
      for (const table of COPIED_TABLES) {
        out[table] = (await tx.all<{ parent: string }>('SELECT DISTINCT "table" AS parent FROM pragma_foreign_key_list(?)', [table])).map((r) => r.parent);
      }
      return out;
    });
    for (const [i, table] of COPIED_TABLES.entries()) {
      for (const parent of parents[table]!) expect(COPIED_TABLES.indexOf(parent as never), `${table} references ${parent}`).toBeLessThan(i);
    }
    // Tables that reference others are there (the check above saw something).
    expect(parents.ledger_transactions).toEqual(expect.arrayContaining(['merchants', 'orders', 'approval_requests']));
  });

  it('copies accounts, approvals with their withdrawal holds, sessions and the audit trail row for row', async () => {
    const source = await fullStore();
    const before = await dumpTables(source.store);
    // What migration 9 added is really there to be copied.
    expect(before.accounts).toHaveLength(2);
    expect(before.account_merchants).toHaveLength(1);
    expect(before.auth_throttle).toHaveLength(1);
    expect(before.approval_requests).toHaveLength(3);
    expect(before.ledger_transactions!.filter((t) => (t as { approval_id: number | null }).approval_id !== null)).toHaveLength(3);
    expect(before.audit_log!.length).toBeGreaterThanOrEqual(5);
    expect(before.console_sessions).toEqual([expect.objectContaining({ account_id: 1 })]);
    expect(before.console_login_tokens).toEqual([expect.objectContaining({ account_id: 2, purpose: 'setup' })]);

    const dir = tempDir();
    const target = await emptyStore(dir);
    const progress: CopyProgress[] = [];
    const report = await copyStore(source.store, target, (p) => progress.push(p));
    expect(await dumpTables(target)).toEqual(before);
    expect(report.tables.map((t) => t.table)).toEqual([...COPIED_TABLES]);
    expect(report.tables.every((t) => t.source === t.target)).toBe(true);
    // Progress: every table, in copy order, each ending with all its rows.
    const finals = COPIED_TABLES.map((table) => progress.filter((p) => p.table === table).at(-1));
    expect(finals.map((p) => p && p.copied === p.total && p.total === before[p.table]!.length)).toEqual(COPIED_TABLES.map(() => true));
    expect([...new Set(progress.map((p) => p.table))]).toEqual([...COPIED_TABLES]);

    // The target as a service sees it: ledger consistent with the holds, the audit chain intact.
    await target.close();
    open = open.filter((s) => s !== target);
    const copied = await openService({ dataDir: dir, masterKeyStore: { loadOrCreate: () => KEY } });
    try {
      await expectLedgerConsistent(copied);
      const chain = await copied.services.audit.verify(copied.store);
      expect(chain).toMatchObject({ ok: true, entries: before.audit_log!.length, problem: null });
    } finally {
      await copied.close();
    }
  });

  it('refuses a store with a table it does not know, and writes nothing', async () => {
    const source = await fullStore();
    await source.store.write((tx) => tx.run('CREATE TABLE loyalty_points (merchant_id INTEGER, points INTEGER)'));
    const target = await emptyStore();
    const err = await copyStore(source.store, target).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnknownTablesError);
    expect(String(err)).toMatch(/has table loyalty_points that db copy does not know: nothing was copied/);
    expect(await firstNonEmptyTable(target)).toBeUndefined();
  });

  it('refuses a target that is not empty, naming a table with rows (the audit chain end a migration writes does not count)', async () => {
    const source = await fullStore();
    const target = await emptyStore();
    expect(await target.read((tx) => tx.all('SELECT last_id FROM audit_head'))).toEqual([{ last_id: 0 }]);
    expect(await firstNonEmptyTable(target)).toBeUndefined();
    await target.write((tx) => tx.run("INSERT INTO settings (key, value) VALUES ('listener', '{}')"));
    await expect(copyStore(source.store, target)).rejects.toThrow(/the target .* is not empty \(settings has 1 row\); copy only into an empty store/);
  });

  it('rolls the target back when what it wrote differs from the source, naming each difference', async () => {
    const source = await fullStore();
    const target = await emptyStore();
    // Faults the comparison must catch: rows that vanish as they are copied, a list counter that drifts.
    await target.write(async (tx) => {
      await tx.run('CREATE TRIGGER lose_transitions AFTER INSERT ON order_transitions BEGIN DELETE FROM order_transitions WHERE id = NEW.id; END');
      await tx.run('CREATE TRIGGER drift_totals AFTER INSERT ON orders BEGIN UPDATE order_totals SET n = n + 1 WHERE merchant_id = NEW.merchant_id; END');
    });
    const transitions = (await dumpTables(source.store)).order_transitions!.length;
    expect(transitions).toBeGreaterThan(0);
    const err = await copyStore(source.store, target).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CopyIncompleteError);
    expect((err as CopyIncompleteError).problems).toEqual([
      `order_transitions: ${transitions} rows in the source, 0 in the target`,
      expect.stringMatching(/^order_totals: source 5 rows, 5 orders, \d+, target 5 rows, 15 orders, \d+$/),
    ]);
    expect(String(err)).toContain(`the copy is incomplete, so nothing was written to ${target.location}`);
    expect(await firstNonEmptyTable(target)).toBeUndefined();
    expect(path.basename(target.location)).toBe('merchant-console.sqlite');
  });
});
