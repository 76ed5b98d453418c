/**
 * The PostgreSQL engine of the store API (team deployments, docs/deployment.md):
 * a connection pool (node-postgres) and one database transaction per unit of
 * work. Writes run at READ COMMITTED; code that must see a row settle first
 * takes it with a row lock (repositories add FOR UPDATE where the SQLite
 * engine's single writer already serialises). A unit that hits a
 * serialization failure or a deadlock is rolled back and run again, whole.
 * Reads run in a REPEATABLE READ, READ ONLY transaction: one snapshot.
 *
 * Integers are BIGINT and come back as JS numbers (checked safe); sums
 * (NUMERIC) likewise. Text columns use the "C" collation so comparisons and
 * prefix ranges behave as in SQLite, whatever the database's locale.
 */
import pg from 'pg';
import {
  oneStatement,
  StoreError,
  type MigrationTx,
  type ReadTx,
  type SqlParams,
  type Store,
  type StoreErrorKind,
  type StoreStats,
  type WriteOptions,
  type WriteTx,
} from '../store';
import { LATEST_SCHEMA_VERSION, MIGRATIONS, SchemaTooNewError, type Migration } from '../migrations/index';
import { incompleteRowGeneration } from '../migrations/0010-row-generation';
import { migration0011RowGenerationPostgres, POSTGRES_ROW_GENERATION_TRIGGER_TYPE, POSTGRES_ROW_GENERATION_TRIGGERS } from '../migrations/0011-row-generation-postgres';
import { toPgStatement } from './placeholders';

export const MIN_SERVER_VERSION_NUM = 150000;

export interface PostgresStoreOptions {
  url: string;
  /** Connections in the pool (default DEFAULT_POOL_SIZE). */
  poolSize?: number;
  /** Apply migrations up to this version only (tests of older versions). */
  targetVersion?: number;
  /** Shown in pg_stat_activity. */
  applicationName?: string;
  /** Skip migrations (db copy reads a source as it is; tools that only inspect). */
  migrate?: boolean;
}

export interface PostgresStore extends Store {
  readonly dialect: 'postgres';
  /** Runs fn on one connection outside the pool's units of work (advisory locks, LISTEN); release it afterwards. */
  connect(): Promise<pg.PoolClient>;
}

/**
 * Connections per instance (serve --pool-size; docs/deployment.md sizes the server by it). Five, not ten:
 * on two cores shared with PostgreSQL ten kept the event loop's delay p99 under createOrder at 5 ms or more
 * (the main thread waited for a core more often), for no more orders or list pages per second within the
 * measurements' spread (docs/benchmarks.md, "A pool of five").
 */
export const DEFAULT_POOL_SIZE = 5;

const INT8_OID = 20;
const NUMERIC_OID = 1700;

function safeInteger(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`integer ${text} is beyond what JavaScript represents exactly`);
  return n;
}

const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID || oid === NUMERIC_OID) return safeInteger;
    return pg.types.getTypeParser(oid, format);
  },
} as unknown as pg.CustomTypesConfig;

function kindOf(code: string): StoreErrorKind {
  switch (code) {
    case '23505':
      return 'unique';
    case '23503':
      return 'foreign-key';
    case '23514':
      return 'check';
    case '23502':
      return 'not-null';
    case '40001':
    case '40P01':
      return 'serialization';
    case '53100': // disk_full
    case '58030': // io_error
    case '25006': // read_only_sql_transaction (a standby, or default_transaction_read_only)
      return 'storage';
  }
  if (/^(08|57P|53300)/.test(code) || /^E(CONNREFUSED|CONNRESET|PIPE|TIMEDOUT|HOSTUNREACH|NOTFOUND|AI_AGAIN)$/.test(code)) return 'unavailable';
  return 'other';
}

export function toStoreError(err: unknown): unknown {
  if (err instanceof StoreError) return err;
  const e = err as { code?: unknown; constraint?: unknown; message?: unknown } | null;
  if (err instanceof Error && typeof e?.code === 'string') {
    const wrapped = new StoreError(kindOf(e.code), e.code, err.message, typeof e.constraint === 'string' ? e.constraint : undefined);
    wrapped.stack = err.stack;
    return wrapped;
  }
  if (err instanceof Error && /Connection terminated|timeout exceeded when trying to connect/i.test(err.message)) {
    return new StoreError('unavailable', 'CONNECTION', err.message);
  }
  return err;
}

/**
 * The connection runs in node-postgres's pipeline mode (docs/decisions.md,
 * "Hot path: round trips and the writer"): a statement is sent as soon as it
 * is started, without waiting for the answers to those before it, and the
 * server runs them in order. The engine sends what needs no answer before
 * the next statement (BEGIN, SAVEPOINT) without waiting for it, so a unit's
 * first statement travels with its BEGIN.
 */
class PgReadTx implements ReadTx {
  readonly dialect = 'postgres' as const;
  private ended = false;
  constructor(
    protected readonly client: pg.PoolClient,
    /**
     * The BEGIN, sent and not yet awaited: a statement's result counts only once it has succeeded.
     * Undefined when nothing was sent before the statements (a unit of one statement on a connection
     * whose session needed no switch).
     */
    protected readonly begun: Promise<unknown> | undefined,
  ) {}
  /**
   * COMMIT or ROLLBACK. Sent after every statement started before it (the
   * pipeline keeps their order); one started after it is refused, as the
   * connection may already serve another unit of work. A COMMIT the server
   * answers with ROLLBACK (a statement of the unit failed and nothing undid
   * it to a savepoint) is an error: nothing was stored.
   */
  /** No statement may start any more (the connection goes back to the pool). */
  close(): void {
    this.ended = true;
  }
  async end(command: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    this.ended = true;
    const [, result] = await Promise.all([this.begun, this.client.query(command)]);
    if (command === 'COMMIT' && result.command !== 'COMMIT') {
      throw new StoreError('other', 'ROLLED_BACK', 'the transaction was rolled back at COMMIT: one of its statements had failed');
    }
  }
  /** Sends now; resolves once the statement and the BEGIN before it have succeeded. */
  protected async send(config: string | pg.QueryConfig): Promise<pg.QueryResult> {
    if (this.ended) throw new StoreError('other', 'UNIT_ENDED', 'a statement was started after its unit of work ended');
    try {
      if (this.begun === undefined) return await this.client.query(config as pg.QueryConfig);
      const [, result] = await Promise.all([this.begun, this.client.query(config as pg.QueryConfig)]);
      return result;
    } catch (err) {
      throw toStoreError(err);
    }
  }
  protected query(sql: string, params: SqlParams | undefined): Promise<pg.QueryResult> {
    const s = toPgStatement(sql);
    return this.send({ name: s.name, text: s.text, values: s.values(params) });
  }
  async all<R>(sql: string, params?: SqlParams): Promise<R[]> {
    return (await this.query(sql, params)).rows as R[];
  }
  async get<R>(sql: string, params?: SqlParams): Promise<R | undefined> {
    return (await this.query(sql, params)).rows[0] as R | undefined;
  }
}

let savepointSeq = 0;

class PgWriteTx extends PgReadTx implements MigrationTx {
  readonly hooks: (() => void)[] = [];
  async run(sql: string, params?: SqlParams): Promise<number> {
    return (await this.query(sql, params)).rowCount ?? 0;
  }
  async exec(sql: string): Promise<void> {
    await this.send(sql);
  }
  async savepoint<T>(fn: (tx: WriteTx) => Promise<T>): Promise<T> {
    const name = `sp${++savepointSeq}`;
    // Not awaited: it travels with fn's first statement. Should it fail, the
    // transaction is aborted and that statement fails too.
    const hooksBefore = this.hooks.length;
    let opened: Promise<unknown> = Promise.resolve();
    try {
      // Not released on success: that would be one more round trip, and
      // COMMIT (or a rollback to an outer savepoint) ends it all the same;
      // a subtransaction's id stays with the transaction either way.
      const value = await together(this.client, () => {
        opened = this.send(`SAVEPOINT ${name}`);
        opened.catch(() => undefined);
        return fn(this);
      });
      await opened;
      return value;
    } catch (err) {
      // A failed SAVEPOINT aborted the transaction: the unit cannot go on (its COMMIT would be refused).
      await opened.catch(() => {
        throw toStoreError(err);
      });
      await this.exec(`ROLLBACK TO SAVEPOINT ${name}; RELEASE SAVEPOINT ${name}`);
      this.hooks.length = hooksBefore;
      throw toStoreError(err);
    }
  }
  afterCommit(fn: () => void): void {
    this.hooks.push(fn);
  }
}

/**
 * Holds the connection's writes until the returned function is called: the
 * statements started meanwhile (a BEGIN or SAVEPOINT and the statement fn
 * starts after it) leave in one write, so the server reads them at once.
 */
function corked(client: pg.PoolClient): () => void {
  const socket = (client as unknown as pg.Client).connection.stream;
  socket.cork();
  let held = true;
  return () => {
    if (held) socket.uncork();
    held = false;
  };
}

/** Runs fn's synchronous part with the connection's writes held (corked). */
function together<T>(client: pg.PoolClient, fn: () => T): T {
  const uncork = corked(client);
  try {
    return fn();
  } finally {
    uncork();
  }
}

/**
 * Sends a unit's BEGIN without waiting for it: its failure is reported by
 * the unit's first statement or its end. The statements sent with it are
 * not stopped by that failure (each has its own Sync in pipeline mode) and
 * would run on their own; a lost connection fails them too, so only a
 * cancel request landing on the BEGIN itself could do it (docs/decisions.md).
 */
function begin(client: pg.PoolClient, sql: string): Promise<unknown> {
  const begun = client.query(sql);
  begun.catch(() => undefined);
  return begun;
}

/** A URL fit for messages: no password. */
export function describePostgresUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    return u.href.replace(/^postgres(ql)?:\/\/:?@/, 'postgres://');
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/** Connection problems in words an operator can act on (before listening). */
export function explainConnectError(err: unknown, url: string): Error {
  const e = err as { code?: string; message?: string };
  const where = describePostgresUrl(url);
  let u: URL | undefined;
  try {
    u = new URL(url);
  } catch {
    u = undefined;
  }
  const database = u ? decodeURIComponent(u.pathname.replace(/^\//, '')) || '(default)' : '?';
  const user = u ? decodeURIComponent(u.username) || '(default)' : '?';
  switch (e.code) {
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
      return new Error(`cannot reach PostgreSQL at ${where} (${e.code}): is the server running, and is the host and port right?`);
    case '28P01':
    case '28000':
      return new Error(`PostgreSQL at ${where} refused the credentials of user ${user} (${e.code}): check the user name and password in the database URL`);
    case '3D000':
      return new Error(`database ${database} does not exist on the PostgreSQL server at ${where}: create it first (createdb ${database})`);
  }
  return new Error(`cannot use PostgreSQL at ${where}: ${e.message ?? String(err)}`);
}

/** Refuses a server older than PostgreSQL 15, the oldest the project supports and tests: refused at start rather than failing later. */
export function requireServerVersion(versionNum: number, versionText: string, url: string): void {
  if (!(versionNum >= MIN_SERVER_VERSION_NUM)) {
    throw new Error(`PostgreSQL 15 or newer is required; the server at ${describePostgresUrl(url)} runs ${versionText}`);
  }
}

/** A constant key for the migration advisory lock ("mc-migr"). */
const MIGRATION_LOCK_KEY = 0x6d632d6d69677200n;

async function migratePostgres(client: pg.PoolClient, migrations: readonly Migration[], targetVersion: number): Promise<void> {
  const known = migrations[migrations.length - 1]?.version ?? 0;
  // Instances that start together migrate once: the others wait here, then find nothing to do.
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
  try {
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`,
    );
    for (;;) {
      const row = (await client.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations')).rows[0];
      const current = row?.v ?? 0;
      if (current > known) throw new SchemaTooNewError(current, known);
      const next = migrations.find((m) => m.version > current && m.version <= targetVersion);
      if (!next) return;
      await client.query('BEGIN');
      try {
        const tx = new PgWriteTx(client, Promise.resolve());
        await client.query(next.schema.postgres);
        await next.data?.(tx);
        await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
          next.version,
          next.name,
          Math.floor(Date.now() / 1000),
        ]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY.toString()]).catch(() => undefined);
  }
}

/**
 * Cached merchants and links are trusted only while the row generation is
 * unchanged (migration 0011), which its triggers guarantee: a database at
 * that version without them as 0011 made them (a later migration recreated
 * a table and forgot them, or someone disabled one, or left it enabled for
 * ordinary sessions only, which replica sessions skip) is refused rather
 * than served from stale rows.
 */
async function checkRowGeneration(client: pg.PoolClient): Promise<void> {
  const version = (await client.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations')).rows[0]?.v ?? 0;
  if (version < migration0011RowGenerationPostgres.version) return;
  const present = await client.query<{ table: string; name: string }>(
    `SELECT c.relname AS table, t.tgname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc f ON f.oid = t.tgfoid
     WHERE NOT t.tgisinternal AND t.tgenabled = 'A' AND t.tgtype = $1 AND f.proname = 'row_generation_bump'
       AND c.relnamespace = current_schema()::regnamespace AND f.pronamespace = current_schema()::regnamespace`,
    [POSTGRES_ROW_GENERATION_TRIGGER_TYPE],
  );
  const have = new Set(present.rows.map((r) => `${r.table}.${r.name}`));
  const missing = POSTGRES_ROW_GENERATION_TRIGGERS.filter((t) => !have.has(`${t.table}.${t.name}`)).map((t) => t.name);
  const row = await client.query('SELECT 1 FROM row_generation WHERE id = 1');
  const problem = incompleteRowGeneration(missing, row.rowCount === 1);
  if (problem) throw new Error(problem);
}

/** Retries of a unit of work that lost a serialization race or a deadlock. */
const MAX_RETRIES = 5;

export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    types: typeParsers,
    application_name: options.applicationName ?? 'merchant-console',
    connectionTimeoutMillis: 10_000,
    // Statements are sent without waiting for the answers before them (PgReadTx).
    pipeline: true,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its connection (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);

  let first: pg.PoolClient;
  try {
    first = await pool.connect();
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw explainConnectError(err, options.url);
  }
  try {
    const row = (await first.query<{ num: string; text: string }>('SELECT current_setting($1) AS num, current_setting($2) AS text', ['server_version_num', 'server_version'])).rows[0];
    requireServerVersion(Number(row?.num), row?.text ?? '?', options.url);
    if (options.migrate !== false) {
      await migratePostgres(first, MIGRATIONS, options.targetVersion ?? LATEST_SCHEMA_VERSION);
      await checkRowGeneration(first);
    }
  } catch (err) {
    first.release(true);
    await pool.end().catch(() => undefined);
    throw toStoreError(err);
  }
  first.release();

  const stats: StoreStats = { writes: 0, commits: 0, largestBatch: 1, relaxedCommits: 0, alone: 0 };
  let closed = false;
  const active = new Set<Promise<unknown>>();

  function track<T>(p: Promise<T>): Promise<T> {
    active.add(p);
    const done = () => active.delete(p);
    p.then(done, done);
    return p;
  }

  // pg-pool listens for a connection's errors only while it is idle: one lost
  // while a unit holds it (a server restart, pg_terminate_backend) would be an
  // 'error' event nobody hears, which ends the process. The unit's statements
  // fail and it is released as broken; the event itself needs no action.
  const heard = new WeakSet<pg.PoolClient>();
  // Connections whose session runs with synchronous_commit off (since a relaxed writeAlone); every other
  // use of a connection expects the server's setting, so it is reset first (RESET, not `on`: a server that
  // waits for a standby, remote_apply, keeps doing so).
  const relaxedSessions = new WeakSet<pg.PoolClient>();
  /** Switches the session's synchronous_commit if needed (not awaited here: it leaves with the next statement); undefined when it needs no switch. */
  function sessionSyncCommit(client: pg.PoolClient, durable: boolean): Promise<unknown> | undefined {
    if (relaxedSessions.has(client) !== durable) return undefined;
    if (durable) relaxedSessions.delete(client);
    else relaxedSessions.add(client);
    return begin(client, durable ? 'RESET synchronous_commit' : 'SET synchronous_commit TO off');
  }

  async function connect(): Promise<pg.PoolClient> {
    if (closed) throw new StoreError('unavailable', 'STORE_CLOSED', 'the store is closed');
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      throw toStoreError(err);
    }
    if (!heard.has(client)) {
      heard.add(client);
      client.on('error', () => undefined);
    }
    return client;
  }

  /**
   * One attempt at a unit of work on one connection: BEGIN, fn, COMMIT (or
   * ROLLBACK when anything fails). The BEGIN and the statements fn starts in
   * its synchronous part leave in one write.
   */
  async function unitOnce<X extends PgReadTx, T>(beginSql: string, open: (client: pg.PoolClient, begun: Promise<unknown>) => X, fn: (tx: X) => Promise<T>): Promise<{ value: T; tx: X }> {
    const client = await connect();
    let broken = false;
    const uncork = corked(client);
    const switched = sessionSyncCommit(client, true);
    const begun = begin(client, beginSql);
    const tx = open(client, switched ? Promise.all([switched, begun]) : begun);
    try {
      const running = fn(tx);
      uncork();
      const value = await running;
      await tx.end('COMMIT');
      return { value, tx };
    } catch (err) {
      uncork();
      await tx.end('ROLLBACK').catch(() => (broken = true));
      throw toStoreError(err);
    } finally {
      client.release(broken);
    }
  }

  const readOnce = async <T>(fn: (tx: ReadTx) => Promise<T>): Promise<T> =>
    (await unitOnce('BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY', (client, begun) => new PgReadTx(client, begun), fn)).value;

  async function writeOnce<T>(fn: (tx: WriteTx) => Promise<T>, durable: boolean): Promise<{ value: T; hooks: (() => void)[] }> {
    // A relaxed unit (a read's nonce) does not wait for its WAL flush; atomic all the same.
    const beginSql = durable ? 'BEGIN' : 'BEGIN; SET LOCAL synchronous_commit TO off';
    const { value, tx } = await unitOnce<PgWriteTx, T>(beginSql, (client, begun) => new PgWriteTx(client, begun), fn);
    return { value, hooks: tx.hooks };
  }

  /**
   * A unit of one statement: sent on its own, without BEGIN and COMMIT, so
   * it is the statement's implicit transaction (one round trip, one
   * statement for the server). Nothing to end: the connection is idle again
   * once it has answered, whether it succeeded or failed.
   */
  async function aloneOnce<T>(fn: (tx: WriteTx) => Promise<T>, durable: boolean): Promise<{ value: T; hooks: (() => void)[] }> {
    const client = await connect();
    let broken = false;
    // A relaxed statement (a read's nonce) has no transaction to SET LOCAL in: the connection's session setting
    // is switched, sent in the same write as the statement, and switched back by the next unit that needs it.
    const uncork = corked(client);
    const switched = sessionSyncCommit(client, durable);
    const tx = new PgWriteTx(client, switched);
    try {
      const running = fn(oneStatement(tx));
      uncork();
      const value = await running;
      return { value, hooks: tx.hooks };
    } catch (err) {
      uncork();
      await switched?.catch(() => (broken = true));
      throw toStoreError(err);
    } finally {
      tx.close();
      client.release(broken);
    }
  }

  /** A write unit of work, tried again whole (up to MAX_RETRIES) when it lost a serialization race or a deadlock. */
  function retried<T>(attempt: () => Promise<{ value: T; hooks: (() => void)[] }>, kind: { durable: boolean; alone: boolean }): Promise<T> {
    return track(
      (async () => {
        for (let tries = 0; ; tries++) {
          try {
            const { value, hooks } = await attempt();
            stats.writes++;
            stats.commits++;
            if (kind.alone) stats.alone++;
            if (!kind.durable) stats.relaxedCommits++;
            for (const hook of hooks) hook();
            return value;
          } catch (err) {
            if (err instanceof StoreError && err.kind === 'serialization' && tries < MAX_RETRIES) {
              // Let the winner finish before trying again.
              await new Promise((r) => setTimeout(r, 2 + Math.random() * 8 * (tries + 1)));
              continue;
            }
            throw err;
          }
        }
      })(),
    );
  }

  const store: PostgresStore = {
    dialect: 'postgres',
    location: describePostgresUrl(options.url),
    stats,

    read<T>(fn: (tx: ReadTx) => Promise<T>): Promise<T> {
      return track(
        (async () => {
          for (let attempt = 0; ; attempt++) {
            try {
              return await readOnce(fn);
            } catch (err) {
              if (err instanceof StoreError && err.kind === 'serialization' && attempt < MAX_RETRIES) continue;
              throw err;
            }
          }
        })(),
      );
    },

    write<T>(fn: (tx: WriteTx) => Promise<T>, writeOptions: WriteOptions = {}): Promise<T> {
      const durable = writeOptions.durable !== false;
      return retried(() => writeOnce(fn, durable), { durable, alone: false });
    },

    writeAlone<T>(fn: (tx: WriteTx) => Promise<T>, writeOptions: WriteOptions = {}): Promise<T> {
      const durable = writeOptions.durable !== false;
      return retried(() => aloneOnce(fn, durable), { durable, alone: true });
    },

    async connect(): Promise<pg.PoolClient> {
      const client = await connect();
      try {
        await sessionSyncCommit(client, true);
      } catch (err) {
        client.release(true);
        throw toStoreError(err);
      }
      return client;
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await Promise.allSettled([...active]);
      await pool.end();
    },
  };
  return store;
}
