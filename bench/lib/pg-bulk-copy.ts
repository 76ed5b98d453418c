/**
 * Loads a seeded SQLite template into an empty PostgreSQL database for the
 * benchmark, fast. `merchant-console db copy` is the product's way and is
 * right for a merchant's store; at 1,000,000 orders it had not finished the
 * orders table after 20 minutes before 1f35deb (counter triggers per order,
 * upserting the same few order_totals rows in one transaction), and a
 * throwaway copy needs none of its service-level checks.
 *
 * Here: the schema comes from the real migrations (the PostgreSQL engine
 * opens the database once); then, in one transaction with
 * session_replication_role=replica (no triggers, no foreign-key checks: the
 * source is a consistent store), every table of the copy list
 * (src-main/store/copy-store.ts, parents first) is inserted in multi-row
 * statements; the list counters are rebuilt with migration 0004's own GROUP
 * BY; id sequences move past the copied ids; row counts and counters are
 * compared with the source before the commit.
 */
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { COPIED_TABLES, DERIVED_TABLES } from '../../src-main/store/copy-store';
import { openPostgresStore } from '../../src-main/store/postgres/postgres-store';

/** PostgreSQL takes at most 65,535 parameters per statement. */
const MAX_PARAMS = 60_000;

export async function bulkCopyToPostgres(sqliteFile: string, url: string, log: (line: string) => void): Promise<void> {
  // The schema, exactly as a team deployment gets it.
  await (await openPostgresStore({ url, applicationName: 'merchant-console bench loader' })).close();
  const src = new BetterSqlite3(sqliteFile, { readonly: true });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL session_replication_role = replica');
    const withIds: string[] = [];
    for (const table of COPIED_TABLES) {
      const target = new Set(
        (await client.query<{ name: string }>('SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1', [table])).rows.map(
          (r) => r.name,
        ),
      );
      const columns = (src.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map((c) => c.name).filter((c) => target.has(c));
      if (target.has('id')) withIds.push(table);
      // Tables a migration fills (audit_head) get the source's rows instead.
      await client.query(`DELETE FROM ${table}`);
      const perStatement = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
      const insert = (rows: unknown[][]) =>
        client.query(
          `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${rows.map((_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`).join(', ')}`,
          rows.flat(),
        );
      let rows: unknown[][] = [];
      let copied = 0;
      for (const row of src.prepare(`SELECT ${columns.join(', ')} FROM ${table}`).raw().iterate() as Iterable<unknown[]>) {
        rows.push(row);
        if (rows.length === perStatement) {
          await insert(rows);
          copied += rows.length;
          rows = [];
        }
      }
      if (rows.length > 0) await insert(rows);
      copied += rows.length;
      if (copied > 10_000) log(`  ${table}: ${copied} rows`);
    }
    // The counters the triggers would have kept, by migration 0004's own statements.
    for (const table of DERIVED_TABLES) await client.query(`DELETE FROM ${table}`);
    await client.query(`INSERT INTO order_counts (merchant_id, day, order_type, status, n)
      SELECT merchant_id, createtime / 86400, order_type, status, count(*) FROM orders GROUP BY 1, 2, 3, 4`);
    await client.query(`INSERT INTO order_totals (merchant_id, order_type, status, n)
      SELECT merchant_id, order_type, status, count(*) FROM orders GROUP BY 1, 2, 3`);
    for (const table of withIds) {
      const seq = (await client.query<{ seq: string | null }>(`SELECT pg_get_serial_sequence($1, 'id') AS seq`, [table])).rows[0]?.seq;
      if (seq) await client.query(`SELECT setval($1, coalesce((SELECT max(id) FROM ${table}), 0) + 1, false)`, [seq]);
    }
    const problems: string[] = [];
    for (const table of [...COPIED_TABLES, ...DERIVED_TABLES]) {
      const where = (DERIVED_TABLES as readonly string[]).includes(table) ? ' WHERE n > 0' : '';
      const want = (src.prepare(`SELECT count(*) AS n FROM ${table}${where}`).get() as { n: number }).n;
      const got = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}${where}`)).rows[0]!.n);
      if (want !== got) problems.push(`${table}: ${want} rows in SQLite, ${got} in PostgreSQL`);
    }
    if (problems.length > 0) throw new Error(`bulk copy incomplete: ${problems.join('; ')}`);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await client.end();
    src.close();
  }
}
