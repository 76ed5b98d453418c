/**
 * `merchant-console db copy`: a desktop store (SQLite data dir) into an empty
 * PostgreSQL database and back, with everything in it — orders in every
 * status, ledger, callbacks, idempotency keys — verified, and usable at once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openService, type MerchantConsoleService } from '../../../../src-main/service';
import { cli } from '../../../support/cli-harness';
import { expectLedgerConsistent, fund, newBuy, newSell, orderIn } from '../../../support/money';
import { allowPrivateCallbacks, seedMerchant } from '../../../support/service-harness';
import { tempDir } from '../../../support/temp-dir';
import { freshPostgresDatabase } from '../../../support/test-engine';

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

async function desktopStore(): Promise<{ dir: string; before: Awaited<ReturnType<typeof snapshot>> }> {
  const dir = tempDir();
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
    await expectLedgerConsistent(service);
    return { dir, before: await snapshot(service) };
  } finally {
    await service.close();
  }
}

describe('db copy', () => {
  it('copies a SQLite data dir into an empty PostgreSQL database and back, identical and usable', async () => {
    const { dir, before } = await desktopStore();
    const url = await freshPostgresDatabase();
    const copied = await cli(['db', 'copy', '--from', dir, '--to', url, '--json']);
    expect(copied.stderr).toBe('');
    expect(copied.code).toBe(0);
    const report = copied.json() as { tables: { table: string; source: number; target: number }[]; ledger_audit: string[] };
    expect(report.ledger_audit).toEqual([]);
    expect(report.tables.find((t) => t.table === 'orders')).toEqual({ table: 'orders', source: 9, target: 9 });

    const team = await openService({ dataDir: tempDir(), databaseUrl: url, masterKeyStore: { loadOrCreate: () => Buffer.from(fs.readFileSync(path.join(dir, 'master.key'), 'utf8'), 'base64') } });
    try {
      expect(await snapshot(team)).toEqual(before);
      await expectLedgerConsistent(team);
      // Usable at once: new rows get fresh ids after the copied ones, secrets open with the copied key.
      const merchants = await team.store.read((tx) => team.services.merchants.list(tx));
      const m = { id: merchants[0]!.id, apiKey: '', apiSecret: '', channels: { alpha: 1, beta: 2, gamma: 3 } };
      const order = await newSell(team, m, 10_000);
      expect(order.id).toBe(10);
      expect(team.services.merchants.secretOf((await team.store.read((tx) => team.services.merchants.require(tx, m.id))))).toMatch(/^sk_/);
    } finally {
      await team.close();
    }

    // And back: PostgreSQL into a new data dir, with the team's key.
    const back = tempDir();
    const returned = await cli(['db', 'copy', '--from', url, '--to', back, '--master-key-file', path.join(dir, 'master.key'), '--json']);
    expect(returned.stderr).toBe('');
    expect(returned.code).toBe(0);
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
    const again = await cli(['db', 'copy', '--from', dir, '--to', url]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/the target postgres:\/\/postgres@127\.0\.0\.1:\d+\/\S+ is not empty \(settings has \d+ rows?\); copy only into an empty store/);
  });

  it('names what is wrong with the arguments', async () => {
    expect((await cli(['db', 'copy', '--from', tempDir(), '--to', 'postgres://127.0.0.1:9/x'])).stderr).toMatch(/--from: no store in .* does not exist/);
    expect((await cli(['db', 'copy', '--from', 'mysql://h/db', '--to', tempDir()])).stderr).toMatch(/--from: give a data dir or a postgres:\/\/ URL/);
    const url = await freshPostgresDatabase();
    expect((await cli(['db', 'copy', '--from', url, '--to', tempDir()])).stderr).toMatch(/needs the master key .* --master-key-file/);
  });
});
