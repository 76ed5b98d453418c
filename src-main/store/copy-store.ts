/**
 * Copies a whole store into an empty one of either engine (`merchant-console
 * db copy`, docs/deployment.md): how a merchant who started on the desktop
 * (SQLite) moves to a team deployment (PostgreSQL), and back.
 *
 * The source is read in one snapshot and the target written in one unit of
 * work, so the copy is consistent and all-or-nothing. Rows keep their ids;
 * derived tables (the list counters) are rebuilt on the target, by its
 * triggers as the orders arrive (SQLite) or in one pass after them
 * (PostgreSQL); PostgreSQL's id sequences are moved past the copied ids
 * afterwards. Sealed secrets are copied as they are: the
 * target must be used with the same master key.
 */
import { ORDER_COUNTERS_FILL } from './migrations/0004-order-counts';
import { nonceBucket } from './migrations/0012-nonce-buckets';
import type { ReadTx, Store, WriteTx } from './store';

/**
 * Every table, parents before children (foreign keys). A table a migration
 * adds must be listed here (or in DERIVED_TABLES): `copyStore` refuses a
 * store with a table it does not know rather than leave it behind.
 */
export const COPIED_TABLES = [
  'settings',
  'merchants',
  'channels',
  'merchant_channels',
  'payment_methods',
  'accounts',
  'account_merchants',
  'auth_throttle',
  'orders',
  'nonces',
  'console_login_tokens',
  'console_sessions',
  'approval_requests',
  'ledger_transactions',
  'ledger_entries',
  'merchant_balances',
  'order_transitions',
  'order_jobs',
  'callback_deliveries',
  'callback_attempts',
  'idempotency_keys',
  'audit_log',
  'audit_head',
] as const;
type CopiedTable = (typeof COPIED_TABLES)[number];

/** Kept by triggers on orders: rebuilt on the target, compared after. */
export const DERIVED_TABLES = ['order_counts', 'order_totals'] as const;
/** The trigger that counts an inserted order (migration 4). */
const COUNTER_TRIGGER = 'orders_count_insert';

/**
 * Tables a migration fills (audit_head: the empty chain's end): a migrated
 * target holds their row already, so the emptiness check passes over them
 * and the copy replaces their rows with the source's.
 */
const REPLACED_TABLES: ReadonlySet<CopiedTable> = new Set(['audit_head']);

/** Tables whose key is a generated id (PostgreSQL sequences to move on). */
const ID_TABLES: ReadonlySet<CopiedTable> = new Set([
  'merchants',
  'channels',
  'payment_methods',
  'accounts',
  'orders',
  'approval_requests',
  'ledger_transactions',
  'ledger_entries',
  'order_transitions',
  'order_jobs',
  'callback_deliveries',
  'callback_attempts',
  'audit_log',
]);

/** The order rows are read and written in: a key that pages through the table. */
const KEY: Record<CopiedTable, string[]> = {
  settings: ['key'],
  merchants: ['id'],
  channels: ['id'],
  merchant_channels: ['merchant_id', 'channel_id'],
  payment_methods: ['id'],
  accounts: ['id'],
  account_merchants: ['account_id', 'merchant_id'],
  auth_throttle: ['key'],
  orders: ['id'],
  nonces: ['api_key', 'nonce'], // SQLite: keyOf
  console_login_tokens: ['id'],
  console_sessions: ['id'],
  approval_requests: ['id'],
  ledger_transactions: ['id'],
  ledger_entries: ['id'],
  merchant_balances: ['merchant_id'],
  order_transitions: ['id'],
  order_jobs: ['id'],
  callback_deliveries: ['id'],
  callback_attempts: ['id'],
  idempotency_keys: ['merchant_id', 'idem_key'],
  audit_log: ['id'],
  audit_head: ['id'],
};

/** The store's own tables (not the engine's bookkeeping: row_generation, SQLite's sqlite_*, PostgreSQL's schema_migrations). */
export async function tablesOf(tx: ReadTx): Promise<string[]> {
  const rows =
    tx.dialect === 'postgres'
      ? await tx.all<{ name: string }>(
          "SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename NOT IN ('schema_migrations', 'row_generation') ORDER BY 1",
        )
      : await tx.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> 'row_generation' ORDER BY 1");
  return rows.map((r) => r.name);
}

/** Tables of the store that the copy neither copies nor rebuilds (empty: the copy covers the schema). */
export async function uncoveredTables(tx: ReadTx): Promise<string[]> {
  const known = new Set<string>([...COPIED_TABLES, ...DERIVED_TABLES]);
  return (await tablesOf(tx)).filter((t) => !known.has(t));
}

export class UnknownTablesError extends Error {
  constructor(location: string, tables: string[]) {
    super(`${location} has table${tables.length === 1 ? '' : 's'} ${tables.join(', ')} that db copy does not know: nothing was copied (src-main/store/copy-store.ts lists what it copies)`);
    this.name = 'UnknownTablesError';
  }
}

export interface CopyProgress {
  table: string;
  copied: number;
  total: number;
}

export interface CopyReport {
  tables: { table: string; source: number; target: number }[];
  /** The list counters, rebuilt on the target: equal when both stores count the same orders (zero rows aside). */
  counters: { table: string; source: string; target: string }[];
}

export class TargetNotEmptyError extends Error {
  constructor(location: string, table: string, rows: number) {
    super(`the target ${location} is not empty (${table} has ${rows} row${rows === 1 ? '' : 's'}); copy only into an empty store`);
    this.name = 'TargetNotEmptyError';
  }
}

/** The copied rows differ from the source's: the target's unit of work was rolled back. */
export class CopyIncompleteError extends Error {
  constructor(
    location: string,
    readonly problems: string[],
  ) {
    super(`the copy is incomplete, so nothing was written to ${location}: ${problems.join('; ')}`);
    this.name = 'CopyIncompleteError';
  }
}

async function countRows(tx: ReadTx, table: string): Promise<number> {
  return (await tx.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))!.n;
}

/** The first table that has rows (those a migration fills aside), or undefined when the store holds nothing. */
export async function firstNonEmptyTable(store: Store): Promise<{ table: string; rows: number } | undefined> {
  return store.read(async (tx) => {
    for (const table of [...COPIED_TABLES, ...DERIVED_TABLES]) {
      if (REPLACED_TABLES.has(table as CopiedTable)) continue;
      const rows = await countRows(tx, table);
      if (rows > 0) return { table, rows };
    }
    return undefined;
  });
}

const CHUNK = 500;

/** SQLite keys nonces by bucket first (migration 0012): its key pages through them there. */
function keyOf(table: CopiedTable, dialect: ReadTx['dialect']): string[] {
  return table === 'nonces' && dialect === 'sqlite' ? ['bucket', 'api_key', 'nonce'] : KEY[table];
}

/** A row as the target stores it: only SQLite's nonces have a bucket, from their expiry (migration 0012). */
function targetRow(table: CopiedTable, row: Record<string, unknown>, dialect: WriteTx['dialect']): Record<string, unknown> {
  if (table !== 'nonces') return row;
  const { bucket: _, ...pair } = row;
  return dialect === 'sqlite' ? { bucket: nonceBucket(Number(pair.expires_at)), ...pair } : pair;
}

async function copyTable(src: ReadTx, dst: WriteTx, table: CopiedTable, onProgress: (p: CopyProgress) => void): Promise<number> {
  const total = await countRows(src, table);
  const key = keyOf(table, src.dialect);
  let copied = 0;
  let after: unknown[] | undefined;
  onProgress({ table, copied, total });
  if (REPLACED_TABLES.has(table)) await dst.run(`DELETE FROM ${table}`);
  for (;;) {
    const where = after ? `WHERE (${key.join(', ')}) > (${key.map(() => '?').join(', ')})` : '';
    const read = await src.all<Record<string, unknown>>(`SELECT * FROM ${table} ${where} ORDER BY ${key.join(', ')} LIMIT ${CHUNK}`, after ?? []);
    if (read.length === 0) break;
    const rows = read.map((r) => targetRow(table, r, dst.dialect));
    const columns = Object.keys(rows[0]!);
    const values = rows.map(() => `(${columns.map(() => '?').join(', ')})`).join(', ');
    await dst.run(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${values}`, rows.flatMap((r) => columns.map((c) => r[c])));
    copied += rows.length;
    const last = read[read.length - 1]!;
    after = key.map((k) => last[k]);
    onProgress({ table, copied, total });
    if (rows.length < CHUNK) break;
  }
  return copied;
}

/** Row counts and list counters of the source's snapshot against the target's unit of work. */
async function compare(src: ReadTx, dst: ReadTx): Promise<CopyReport> {
  const tables: CopyReport['tables'] = [];
  for (const table of COPIED_TABLES) tables.push({ table, source: await countRows(src, table), target: await countRows(dst, table) });
  const counters: CopyReport['counters'] = [];
  for (const table of DERIVED_TABLES) counters.push({ table, source: await counterDigest(src, table), target: await counterDigest(dst, table) });
  return { tables, counters };
}

/**
 * Copies `source` into `target` (refused unless the target is empty) and
 * compares the row count of every table and the rebuilt list counters
 * before the target's unit of work commits: a copy that differs
 * (CopyIncompleteError) leaves the target as empty as it was.
 */
export async function copyStore(source: Store, target: Store, onProgress: (p: CopyProgress) => void = () => undefined): Promise<CopyReport> {
  for (const store of [source, target]) {
    const unknown = await store.read(uncoveredTables);
    if (unknown.length > 0) throw new UnknownTablesError(store.location, unknown);
  }
  const occupied = await firstNonEmptyTable(target);
  if (occupied) throw new TargetNotEmptyError(target.location, occupied.table, occupied.rows);
  // One snapshot of the source, one unit of work on the target: a consistent copy, or nothing.
  // (The target's unit waits on the source's reads: fine for a tool that has the target to itself.)
  return source.read((src) =>
    target.write(async (dst) => {
      // PostgreSQL: the counters are filled once from the copied orders instead of by the trigger per order. In one
      // transaction every order would update the same few order_totals rows again, each update walking the row's
      // growing chain of versions: quadratic (a store of 1,000,000 orders had not finished after 20 minutes).
      if (dst.dialect === 'postgres') await dst.run(`ALTER TABLE orders DISABLE TRIGGER ${COUNTER_TRIGGER}`);
      for (const table of COPIED_TABLES) await copyTable(src, dst, table, onProgress);
      if (dst.dialect === 'postgres') {
        await dst.run(`ALTER TABLE orders ENABLE TRIGGER ${COUNTER_TRIGGER}`);
        for (const statement of ORDER_COUNTERS_FILL.split(';').map((s) => s.trim()).filter(Boolean)) await dst.run(statement);
        for (const table of ID_TABLES) {
          await dst.get(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), coalesce((SELECT max(id) FROM ${table}), 0) + 1, false)`);
        }
      }
      const report = await compare(src, dst);
      const problems = copyProblems(report);
      if (problems.length > 0) throw new CopyIncompleteError(target.location, problems);
      return report;
    }),
  );
}

/** What a counter table says, independent of rows left at zero: rows, orders and a weighted sum over the keys. */
async function counterDigest(tx: ReadTx, table: (typeof DERIVED_TABLES)[number]): Promise<string> {
  const day = table === 'order_counts' ? 'day' : '0';
  const row = await tx.get<{ rows: number; n: number; weighted: number }>(
    `SELECT count(*) AS rows, coalesce(sum(n), 0) AS n,
       coalesce(sum(n * (merchant_id * 7 + ${day} * 13 + order_type * 17 + length(status) * 19)), 0) AS weighted
     FROM ${table} WHERE n > 0`,
  );
  return `${row!.rows} rows, ${row!.n} orders, ${row!.weighted}`;
}

/** Differences a copy report shows (empty: the copy is complete). */
export function copyProblems(report: CopyReport): string[] {
  return [
    ...report.tables.filter((t) => t.source !== t.target).map((t) => `${t.table}: ${t.source} rows in the source, ${t.target} in the target`),
    ...report.counters.filter((c) => c.source !== c.target).map((c) => `${c.table}: source ${c.source}, target ${c.target}`),
  ];
}
