/**
 * `merchant-console db copy`: a desktop store (SQLite data dir) into an empty
 * PostgreSQL database and back, with everything in it — orders in every
 * status, ledger, callbacks, idempotency keys, staff accounts, approvals
 * with their withdrawal holds, sessions and the audit trail — verified, and
 * usable at once; its progress lines, its refusals, and a copy that does
 * not verify. The copy itself on SQLite: test/src-main/store/copy-store.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openService, type MerchantConsoleService } from '../../../../src-main/service';
import { COPIED_TABLES, DERIVED_TABLES, firstNonEmptyTable, tablesOf } from '../../../../src-main/store/copy-store';
import { databasePath } from '../../../../src-main/store/data-dir';
import { openStore } from '../../../../src-main/store/open-store';
import type { Store } from '../../../../src-main/store/store';
import { createNonceRepository } from '../../../../src-main/repositories/nonce-repository';
import { nonceBucket } from '../../../../src-main/store/migrations/0012-nonce-buckets';
import { cli, spawnCli } from '../../../support/cli-harness';
import { expectLedgerConsistent, fund, newBuy, newSell, orderIn } from '../../../support/money';
import { allowPrivateCallbacks, seedMerchant } from '../../../support/service-harness';
import { tempDir } from '../../../support/temp-dir';
import { freshPostgresDatabase, runSqlOn } from '../../../support/test-engine';
import { dumpTables, seedTeamRecords } from '../team-records';

async function withStore<T>(config: Parameters<typeof openStore>[0], fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(config);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** The real bin in a child process: stderr is a pipe, not a terminal. */
async function runBin(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = await spawnCli(args);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, stdout, stderr };
}

/** What a store holds, as the services show it (ids included). */
async function snapshot(service: MerchantConsoleService) {
  const { merchants, orderReports, ledger } = service.services;
  return service.store.read(async (tx) => {
    const out: Record<string, unknown> = {};
    for (const m of await merchants.list(tx)) {
      out[`merchant ${m.id}`] = {
        merchant: m,
        orders: await orderReports.list(tx, m.id, { order_no_match: 'prefix', page: 1, limit: 100 }),
        balances: await ledger.balances(tx, m.id),
        ledger: await ledger.transactionsOfMerchant(tx, m.id, { limit: 500 }),
      };
    }
    out.callbacks = await tx.all('SELECT * FROM callback_deliveries ORDER BY id');
    out.counters = await tx.all('SELECT * FROM order_totals WHERE n > 0 ORDER BY merchant_id, order_type, status');
    return out;
  });
}

const nonces = createNonceRepository();
/** Expiries of the nonces a desktop store holds: three buckets' worth (900 s each), far in the future. */
const COPIED_NONCE_EXPIRIES = [4_000_000_000, 4_000_000_899, 4_000_000_900, 4_000_001_800];

/** A desktop data dir with a store; `keyOf`: another data dir whose master key it uses. */
async function desktopStore(keyOf?: string): Promise<{ dir: string; before: Awaited<ReturnType<typeof snapshot>>; rows: Record<string, unknown[]> }> {
  const dir = tempDir();
  if (keyOf) fs.copyFileSync(path.join(keyOf, 'master.key'), path.join(dir, 'master.key'));
  // The desktop's store: SQLite in the data dir (this file runs on the postgres project, so name no database).
  const service = await openService({ dataDir: dir });
  try {
    const a = await seedMerchant(service, 'Alpha');
    const b = await seedMerchant(service, 'Beta');
    await allowPrivateCallbacks(service);
    await service.store.write((tx) => service.services.merchants.update(tx, { id: a.id, callback_url: 'http://127.0.0.1:9/cb' }));
    await fund(service, a.id, 1_000_000);
    for (const status of ['pending', 'paid', 'completed', 'cancelled'] as const) await orderIn(service, a, 1, status);
    for (const status of ['pending', 'confirmed', 'completed', 'cancelled'] as const) await orderIn(service, a, 2, status);
    await newBuy(service, b, 5_000);
    // Staff accounts, approvals (withdrawal holds in the ledger), sessions bound to accounts, the audit trail.
    await seedTeamRecords(service, a.id);
    // Nonces in three buckets (SQLite keys them by bucket, PostgreSQL by the pair: migration 0012).
    await service.store.write(async (tx) => {
      for (const [i, expiresAt] of COPIED_NONCE_EXPIRIES.entries()) await nonces.consume(tx, 'mk_copied', `n-${i}`, expiresAt);
    });
    await expectLedgerConsistent(service);
    return { dir, before: await snapshot(service), rows: await dumpTables(service.store) };
  } finally {
    await service.close();
  }
}

describe('db copy', () => {
  it('copies a SQLite data dir into an empty PostgreSQL database and back, identical and usable', async () => {
    const { dir, before, rows } = await desktopStore();
    const url = await freshPostgresDatabase();
    const copied = await cli(['db', 'copy', '--from', dir, '--to', url, '--json']);
    expect(copied.stderr).toBe('');
    expect(copied.code).toBe(0);
    const report = copied.json() as {
      tables: { table: string; source: number; target: number }[];
      ledger_audit: string[];
      audit_chain: { entries: number; head_hash: string };
    };
    expect(report.ledger_audit).toEqual([]);
    expect(report.tables.find((t) => t.table === 'orders')).toEqual({ table: 'orders', source: 9, target: 9 });
    expect(report.tables.map((t) => t.table)).toEqual([...COPIED_TABLES]);
    // Every table row for row (migration 9's too: accounts, approvals, holds, sessions, the audit trail).
    expect(rows.approval_requests).toHaveLength(3);
    expect(await withStore({ kind: 'postgres', url }, dumpTables)).toEqual(rows);
    expect(report.audit_chain).toEqual({ entries: rows.audit_log!.length, head_hash: (rows.audit_head![0] as { last_hash: string }).last_hash });

    const team = await openService({ dataDir: tempDir(), databaseUrl: url, masterKeyStore: { loadOrCreate: () => Buffer.from(fs.readFileSync(path.join(dir, 'master.key'), 'utf8'), 'base64') } });
    try {
      expect(await snapshot(team)).toEqual(before);
      await expectLedgerConsistent(team);
      // Usable at once: new rows get fresh ids after the copied ones, secrets open with the copied key.
      const merchants = await team.store.read((tx) => team.services.merchants.list(tx));
      const m = { id: merchants[0]!.id, apiKey: '', apiSecret: '', channels: { alpha: 1, beta: 2, gamma: 3 } };
      const order = await newSell(team, m, 10_000);
      expect(order.id).toBe(10);
      // The list counters were filled in one pass after the copy, and count new orders again.
      expect(await team.store.read((tx) => tx.get('SELECT sum(n) AS n FROM order_totals'))).toEqual({ n: 10 });
      expect(team.services.merchants.secretOf((await team.store.read((tx) => team.services.merchants.require(tx, m.id))))).toMatch(/^sk_/);
    } finally {
      await team.close();
    }
    const teamRows = await withStore({ kind: 'postgres', url }, dumpTables);

    // And back: PostgreSQL into a new data dir, with the team's key.
    const back = tempDir();
    const returned = await cli(['db', 'copy', '--from', url, '--to', back, '--master-key-file', path.join(dir, 'master.key'), '--json']);
    expect(returned.stderr).toBe('');
    expect(returned.code).toBe(0);
    expect(await withStore({ kind: 'sqlite', file: databasePath(back) }, dumpTables)).toEqual(teamRows);
    // The copied nonces back in their buckets: each still refused.
    expect(teamRows.nonces).toHaveLength(COPIED_NONCE_EXPIRIES.length);
    await withStore({ kind: 'sqlite', file: databasePath(back) }, async (store) => {
      expect(await store.read((tx) => tx.all('SELECT bucket, nonce FROM nonces ORDER BY nonce'))).toEqual(
        COPIED_NONCE_EXPIRIES.map((e, i) => ({ bucket: nonceBucket(e), nonce: `n-${i}` })),
      );
      for (const [i, expiresAt] of COPIED_NONCE_EXPIRIES.entries()) expect(await store.write((tx) => nonces.consume(tx, 'mk_copied', `n-${i}`, expiresAt))).toBe(false);
    });
    expect(returned.json()).toMatchObject({ audit_chain: { entries: rows.audit_log!.length } });
    const desktop = await openService({ dataDir: back });
    try {
      const after = await snapshot(desktop);
      expect(Object.keys(after).filter((k) => k.startsWith('merchant'))).toEqual(Object.keys(before).filter((k) => k.startsWith('merchant')));
      expect((after['merchant 1'] as { orders: { total: number } }).orders.total).toBe(9);
      await expectLedgerConsistent(desktop);
    } finally {
      await desktop.close();
    }
  }, 120_000);

  it('refuses a target that is not empty, and changes nothing there', async () => {
    const { dir } = await desktopStore();
    const url = await freshPostgresDatabase();
    expect((await cli(['db', 'copy', '--from', dir, '--to', url])).code).toBe(0);
    const before = await withStore({ kind: 'postgres', url }, dumpTables);
    const again = await cli(['db', 'copy', '--from', dir, '--to', url]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/the target postgres:\/\/postgres@127\.0\.0\.1:\d+\/\S+ is not empty \(settings has \d+ rows?\); copy only into an empty store/);
    expect(await withStore({ kind: 'postgres', url }, dumpTables)).toEqual(before);
  });

  it('refuses a data dir that holds a store already, and changes nothing there', async () => {
    const { dir } = await desktopStore();
    const url = await freshPostgresDatabase();
    expect((await cli(['db', 'copy', '--from', dir, '--to', url])).code).toBe(0);
    // Another desktop store under the same key: only its not being empty stands in the way.
    const occupied = (await desktopStore(dir)).dir;
    const key = fs.readFileSync(path.join(occupied, 'master.key'), 'utf8');
    const before = await withStore({ kind: 'sqlite', file: databasePath(occupied) }, dumpTables);
    const refused = await cli(['db', 'copy', '--from', url, '--to', occupied, '--master-key-file', path.join(dir, 'master.key')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`merchant-console db copy: the target ${databasePath(occupied)} is not empty (settings has 2 rows); copy only into an empty store`);
    expect(await withStore({ kind: 'sqlite', file: databasePath(occupied) }, dumpTables)).toEqual(before);
    expect(fs.readFileSync(path.join(occupied, 'master.key'), 'utf8')).toBe(key);
  });

  it('shows one progress line per table, in copy order, when stderr is not a terminal', async () => {
    const { dir, rows } = await desktopStore();
    const url = await freshPostgresDatabase();
    const run = await runBin(['db', 'copy', '--from', dir, '--to', url]);
    expect(run.code).toBe(0);
    expect(run.stderr.split('\n')).toEqual([...COPIED_TABLES.map((t) => `${t}: ${rows[t]!.length} row${rows[t]!.length === 1 ? '' : 's'}`), '']);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^copied \S+merchant-console\.sqlite → postgres:\/\/postgres@127\.0\.0\.1:\d+\/\S+$/);
    expect(lines).toContain(`  ${'approval_requests'.padEnd(22)} 3`);
    expect(lines.at(-1)).toBe(`  row counts equal, list counters rebuilt and equal, ledger audit passed, audit trail verified (${rows.audit_log!.length} entries)`);
  }, 60_000);

  it('a copy that does not verify is refused with exit 1, and the target stays empty', async () => {
    const { dir } = await desktopStore();
    // A fault on the target (dropped afterwards with its database): copied order transitions vanish.
    const url = await freshPostgresDatabase({ empty: true });
    await withStore({ kind: 'postgres', url }, async () => undefined);
    await runSqlOn(
      url,
      `CREATE FUNCTION lose_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN DELETE FROM order_transitions WHERE id = NEW.id; RETURN NULL; END $$;
       CREATE TRIGGER lose_row AFTER INSERT ON order_transitions FOR EACH ROW EXECUTE FUNCTION lose_row();`,
    );
    const transitions = (await withStore({ kind: 'sqlite', file: databasePath(dir) }, dumpTables)).order_transitions!.length;
    const run = await cli(['db', 'copy', '--from', dir, '--to', url, '--json']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect((JSON.parse(run.stderr) as { error: string }).error).toMatch(
      new RegExp(`the copy is incomplete, so nothing was written to postgres://postgres@127\\.0\\.0\\.1:\\d+/\\S+: order_transitions: ${transitions} rows in the source, 0 in the target$`),
    );
    expect(await withStore({ kind: 'postgres', url }, firstNonEmptyTable)).toBeUndefined();
  });

  it('refuses a store with a table it does not know, and removes the data dir it was about to fill', async () => {
    const url = await freshPostgresDatabase({ empty: true });
    await withStore({ kind: 'postgres', url }, async () => undefined);
    await runSqlOn(url, 'CREATE TABLE loyalty_points (merchant_id BIGINT, points BIGINT)');
    const key = path.join(tempDir(), 'team.key');
    fs.writeFileSync(key, Buffer.alloc(32, 1).toString('base64'));
    const target = path.join(tempDir(), 'desktop');
    const run = await cli(['db', 'copy', '--from', url, '--to', target, '--master-key-file', key]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/postgres:\/\/\S+ has table loyalty_points that db copy does not know: nothing was copied/);
    expect(fs.existsSync(target)).toBe(false);
  });

  it('covers every table of the migrated PostgreSQL schema, each after the tables it references', async () => {
    const url = await freshPostgresDatabase();
    await withStore({ kind: 'postgres', url }, async (store) => {
      expect(await store.read(tablesOf)).toEqual([...COPIED_TABLES, ...DERIVED_TABLES].sort());
      const references = await store.read((tx) =>
        tx.all<{ child: string; parent: string }>(
          `SELECT DISTINCT conrelid::regclass::text AS child, confrelid::regclass::text AS parent
           FROM pg_constraint WHERE contype = 'f' AND connamespace = current_schema()::regnamespace`,
        ),
      );
      const copied: readonly string[] = COPIED_TABLES;
      const checked = references.filter((r) => copied.includes(r.child) && r.parent !== r.child);
      for (const { child, parent } of checked) expect(copied.indexOf(parent), `${child} references ${parent}`).toBeLessThan(copied.indexOf(child));
      expect(checked.map((r) => `${r.child} → ${r.parent}`)).toContain('ledger_transactions → approval_requests');
    });
  });

  it('checks the master key before it writes anything to the target', async () => {
    const { dir } = await desktopStore();
    const url = await freshPostgresDatabase();
    // A desktop key sealed in the OS keychain: only the desktop app can give it back.
    const sealed = (await desktopStore()).dir;
    fs.writeFileSync(path.join(sealed, 'master.key.safe'), 'sealed by the keychain');
    fs.rmSync(path.join(sealed, 'master.key'));
    const keychain = await cli(['db', 'copy', '--from', sealed, '--to', url]);
    expect(keychain.code).toBe(1);
    expect(keychain.stderr).toMatch(/sealed in the OS keychain by the desktop app .* MERCHANT_CONSOLE_KEYCHAIN=off/);
    expect(await withStore({ kind: 'postgres', url }, firstNonEmptyTable)).toBeUndefined();

    // A key that does not open the source's secrets, into an existing (empty) data dir.
    expect((await cli(['db', 'copy', '--from', dir, '--to', url])).code).toBe(0);
    const target = tempDir();
    const otherKey = path.join(tempDir(), 'other.key');
    fs.writeFileSync(otherKey, Buffer.alloc(32, 9).toString('base64'));
    const wrong = await cli(['db', 'copy', '--from', url, '--to', target, '--master-key-file', otherKey]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/the master key does not match the one the secrets in postgres:\/\/\S+ were sealed with/);
    expect(fs.readdirSync(target)).toEqual([]);

    // A data dir whose own master.key is another key.
    fs.copyFileSync(otherKey, path.join(target, 'master.key'));
    const clash = await cli(['db', 'copy', '--from', url, '--to', target, '--master-key-file', path.join(dir, 'master.key')]);
    expect(clash.code).toBe(1);
    expect(clash.stderr).toMatch(/master\.key holds another master key than the copied secrets were sealed with/);
    expect(fs.readdirSync(target)).toEqual(['master.key']);
  });

  it('names what is wrong with the arguments', async () => {
    expect((await cli(['db', 'copy', '--from', tempDir(), '--to', 'postgres://127.0.0.1:9/x'])).stderr).toMatch(/--from: no store in .* does not exist/);
    expect((await cli(['db', 'copy', '--from', 'mysql://h/db', '--to', tempDir()])).stderr).toMatch(/--from: give a data dir or a postgres:\/\/ URL/);
    const url = await freshPostgresDatabase();
    expect((await cli(['db', 'copy', '--from', url, '--to', tempDir()])).stderr).toMatch(/needs the master key .* --master-key-file/);
  });
});
