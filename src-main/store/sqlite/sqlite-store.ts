/**
 * The SQLite engine of the store API: one file, WAL. A durable unit of work
 * is on disk before it is acknowledged, so an acknowledged order survives a
 * crash of the process and of the machine.
 *
 * Two connections:
 *  - the writer runs every write unit of work through group commit: units
 *    that arrive while a batch is in progress run together, each in its own
 *    savepoint (or none, for a unit that writes last: WriteOptions.writesLast),
 *    and share one commit. A unit's promise settles only after that commit
 *    is durable, and one unit's failure undoes only its savepoint.
 *  - the reader (read-only) runs read units one at a time, each in a
 *    snapshot of what is committed and durable, so it never sees a write
 *    batch that is still open, may roll back or is not yet on disk.
 *
 * The commit path keeps fsync off the event loop (docs/decisions.md, "The
 * commit's fsync off the event loop"): the writer runs at
 * synchronous=NORMAL, so COMMIT only writes the batch's frames to the WAL;
 * then the WAL file is fdatasync'd on libuv's thread pool — the one sync
 * synchronous=FULL would have done inside COMMIT — and only after it are the
 * batch's units acknowledged and their afterCommit hooks run. Until then the
 * batch is committed but not yet durable, so nothing of it may be seen: the
 * next batch may run its units meanwhile (on the writer, in its own open
 * transaction), but it commits only after the batch before is durable and
 * acknowledged, and its units are answered only after its own sync. Read
 * units meanwhile read the reader's snapshot taken right before that
 * commit (the last durable state; docs/decisions.md, "Reads during a WAL
 * sync"), and so do the reads of a unit of `fromDurableSnapshot` (a list
 * page's nonce), answered before its batch commits. A failed sync fails the
 * batch's units and stops the store for good (`onFatal`). A batch made only
 * of `durable: false` units needs no sync (docs/decisions.md, "A read's
 * nonce").
 *
 * Units of work only touch the database (better-sqlite3 is synchronous); a
 * batch lets other work of the event loop run between its units every
 * `yieldAfterMs` (its transaction kept open; units that arrive then join it
 * only while the batch before syncs), and between its acknowledgements, so
 * no batch holds the loop for long.
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import BetterSqlite3, { type Database, type Statement } from 'better-sqlite3';
import {
  StoreError,
  type MigrationTx,
  type ReadOptions,
  type ReadTx,
  type SqlParams,
  type Store,
  type StoreErrorKind,
  type StoreStats,
  type WriteOptions,
  type WriteTx,
} from '../store';
import { LATEST_SCHEMA_VERSION, MIGRATIONS, SchemaTooNewError, type Migration } from '../migrations/index';
import { incompleteRowGeneration, migration0010RowGeneration, ROW_GENERATION_TRIGGERS } from '../migrations/0010-row-generation';
import { startCheckpointer, type Checkpointer } from './checkpointer';
import { rowMaker, type RowMaker } from './row-maker';
import { ensureOwnerOnly } from '../owner-only';

export interface SqliteStoreOptions {
  file: string;
  /** Native binding path (the Electron build of better-sqlite3). */
  nativeBinding?: string | undefined;
  /** Apply migrations up to this version only (tests of older versions). */
  targetVersion?: number;
  /** Largest group-commit batch. */
  maxBatch?: number;
  /** Bytes of WAL past which the store starts it over (`restartWal`; tests: fewer). */
  restartWalBytes?: number;
  /** How long the batch after that commit waits for the checkpoint worker (`restartWal`; tests on a loaded machine: longer). */
  restartWaitMs?: number;
  /** Longest stretch (ms) a batch runs its units before letting the event loop do other work (default 1). */
  yieldAfterMs?: number;
  /**
   * Called once when the WAL could not be flushed to disk: the batch's units
   * failed and the store stopped. Its data may have been committed without
   * being durable; only a restart (SQLite's recovery from what is on disk)
   * tells. Default: the error is thrown on the event loop, which ends the
   * process (a supervisor restarts `serve`).
   */
  onFatal?: (err: StoreError) => void;
}

/**
 * Tests only: wraps the WAL sync of every durable batch (hold it open, make
 * it fail). Module-wide so tests can reach stores that services open.
 */
export const sqliteTestHooks: {
  syncWal?: ((sync: () => Promise<void>) => Promise<void>) | undefined;
  /** The store starts the WAL over: by the checkpoint worker, or (no worker running) on the event loop. */
  walRestart?: ((by: 'worker' | 'event loop') => void) | undefined;
  /** The store asks the worker to catch up (a checkpoint, batches going on) before it asks for a restart. */
  walCatchUp?: (() => void) | undefined;
  /** The worker's answer to a walRestart by it: true once it has started the WAL over. */
  walRestartedByWorker?: ((ok: boolean) => void) | undefined;
} = {};

export interface SqliteStore extends Store {
  readonly dialect: 'sqlite';
  readonly file: string;
  /** WAL checkpoints on a worker thread (serve and the desktop app); stop() before close(). */
  startCheckpointer(options?: { intervalMs?: number; onError?: (message: string) => void }): Checkpointer;
}

function kindOf(code: string): StoreErrorKind {
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return 'unique';
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return 'foreign-key';
  if (code === 'SQLITE_CONSTRAINT_CHECK') return 'check';
  if (code === 'SQLITE_CONSTRAINT_NOTNULL') return 'not-null';
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return 'unavailable';
  if (/^SQLITE_(FULL|IOERR|READONLY|CORRUPT|NOTADB|CANTOPEN|PERM)/.test(code)) return 'storage';
  return 'other';
}

/** A driver error as a StoreError (anything else passes through). */
export function toStoreError(err: unknown): unknown {
  if (err instanceof StoreError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (err instanceof Error && typeof code === 'string' && code.startsWith('SQLITE_')) {
    const wrapped = new StoreError(kindOf(code), code, err.message);
    wrapped.stack = err.stack;
    return wrapped;
  }
  return err;
}

/**
 * The statement SQLite is given for a repository's SQL text. SQLite's
 * planner reads the value of a bare parameter used as LIMIT (`LIMIT ?`,
 * `LIMIT @limit`), so the statement is compiled again at every run after a
 * bind (sqlite3_stmt_status REPREPARE: 100 of 100 runs; a list page 42
 * instead of 34 µs on 1,000,000 orders; docs/benchmarks.md, "Statements
 * compiled again"). As an expression (`CAST(? AS INTEGER)`: the same value
 * for the integers callers pass) it is compiled once. OFFSET is not read.
 * (SQLite's switch for this, SQLITE_DBCONFIG_ENABLE_QPSG, is not reachable
 * through better-sqlite3.)
 */
export function sqliteStatementText(sql: string): string {
  return sql.replace(/\bLIMIT\s+(\?|@[A-Za-z_]\w*)/g, 'LIMIT CAST($1 AS INTEGER)');
}

/** A prepared statement, and for one that returns rows the function that makes each row's object from its raw values. */
interface Prepared {
  statement: Statement;
  row: RowMaker | undefined;
}

/**
 * Prepared statements of one connection, by SQL text. With `rawRows` (the
 * store's connections), a statement that returns rows returns them raw,
 * made into objects by `row`; a migration's connection keeps better-sqlite3's
 * objects, as its own DDL changes the tables under its statements.
 */
function statementCache(db: Database, { rawRows }: { rawRows: boolean }) {
  const cache = new Map<string, Prepared>();
  let schema: number | undefined;
  const prepare = (sql: string): Prepared => {
    let p = cache.get(sql);
    if (!p) {
      let statement: Statement;
      try {
        statement = db.prepare(sqliteStatementText(sql));
      } catch (err) {
        throw toStoreError(err);
      }
      const row = rawRows && statement.reader ? rowMaker(statement.columns().map((c) => c.name)) : undefined;
      if (row) statement.raw(true);
      p = { statement, row };
      cache.set(sql, p);
    }
    return p;
  };
  // Reads sqlite_master: running it makes the connection load the schema again if the file's changed.
  const loadSchema = db.prepare('SELECT 1 FROM sqlite_master LIMIT 0');
  /**
   * Called at the start of every transaction with the file's schema version
   * (read inside it): when the schema is not the one the statements were
   * made with (another process migrated the file), the connection loads it
   * again and the statements are all made again. SQLite re-compiles a
   * statement after a schema change by itself, but a row maker keeps the
   * column names it was made with (after a table rebuilt with its columns in
   * another order, `SELECT *` would put values under the wrong names); and
   * a statement prepared before the connection noticed the change reports
   * the old columns, so the schema is loaded first.
   */
  const atSchema = (version: number): void => {
    if (version === schema) return;
    loadSchema.all();
    cache.clear();
    schema = version;
  };
  return Object.assign(prepare, { atSchema });
}

type Prepare = ReturnType<typeof statementCache>;

function bindAll({ statement: s, row }: Prepared, params: SqlParams | undefined): unknown[] {
  const rows = params === undefined ? s.all() : Array.isArray(params) ? s.all(...(params as unknown[])) : s.all(params);
  if (row) for (let i = 0; i < rows.length; i++) rows[i] = row(rows[i] as unknown[]);
  return rows;
}

function bindGet({ statement: s, row }: Prepared, params: SqlParams | undefined): unknown {
  const values = params === undefined ? s.get() : Array.isArray(params) ? s.get(...(params as unknown[])) : s.get(params);
  return row && values !== undefined ? row(values as unknown[]) : values;
}

function bindRun({ statement: s }: Prepared, params: SqlParams | undefined): number {
  if (params === undefined) return s.run().changes;
  return (Array.isArray(params) ? s.run(...(params as unknown[])) : s.run(params)).changes;
}

class SqliteReadTx implements ReadTx {
  readonly dialect = 'sqlite' as const;
  /** snapshotDb: the reader, whose snapshot every statement must still be in (read units). */
  constructor(
    protected readonly prepare: Prepare,
    private readonly snapshotDb?: Database,
  ) {}
  async all<R>(sql: string, params?: SqlParams): Promise<R[]> {
    try {
      if (this.snapshotDb?.inTransaction === false) throw snapshotLost();
      return bindAll(this.prepare(sql), params) as R[];
    } catch (err) {
      throw toStoreError(err);
    }
  }
  async get<R>(sql: string, params?: SqlParams): Promise<R | undefined> {
    try {
      if (this.snapshotDb?.inTransaction === false) throw snapshotLost();
      return bindGet(this.prepare(sql), params) as R | undefined;
    } catch (err) {
      throw toStoreError(err);
    }
  }
}

/**
 * SQLite ended the reader's transaction under a unit (an error such as
 * SQLITE_FULL in one of its statements): a statement now would read the
 * latest rows on its own, perhaps a batch not yet durable.
 */
function snapshotLost(): StoreError {
  return new StoreError('storage', 'SNAPSHOT_LOST', "the read's snapshot was ended by SQLite after an error; read again");
}

class SqliteWriteTx extends SqliteReadTx implements MigrationTx {
  readonly hooks: (() => void)[] = [];
  /** Savepoints open in this unit: they are named by depth, so each name's statements are prepared once. */
  private depth = 0;
  constructor(
    prepare: Prepare,
    protected readonly db: Database,
    /** WriteTx.aloneFacts: the batch's, for a unit of writeAlone. */
    readonly aloneFacts?: Map<string, unknown>,
  ) {
    super(prepare);
  }
  async run(sql: string, params?: SqlParams): Promise<number> {
    try {
      return bindRun(this.prepare(sql), params);
    } catch (err) {
      throw toStoreError(err);
    }
  }
  async exec(sql: string): Promise<void> {
    try {
      this.db.exec(sql);
    } catch (err) {
      throw toStoreError(err);
    }
  }
  async savepoint<T>(fn: (tx: WriteTx) => Promise<T>): Promise<T> {
    const name = `sp${++this.depth}`;
    this.prepare(`SAVEPOINT ${name}`).statement.run();
    const hooksBefore = this.hooks.length;
    try {
      const value = await fn(this);
      this.prepare(`RELEASE ${name}`).statement.run();
      return value;
    } catch (err) {
      // Disk full or I/O: SQLite may have rolled back the whole transaction; nothing is left to undo here.
      if (this.db.inTransaction) {
        this.prepare(`ROLLBACK TO ${name}`).statement.run();
        this.prepare(`RELEASE ${name}`).statement.run();
      }
      this.hooks.length = hooksBefore;
      throw toStoreError(err);
    } finally {
      this.depth--;
    }
  }
  afterCommit(fn: () => void): void {
    this.hooks.push(fn);
  }
}

/**
 * The tx of a unit that writes last (WriteOptions.writesLast), which runs
 * without a savepoint: statements that read, then at most one that writes
 * (a statement better-sqlite3 does not call read-only), then none. `wrote`
 * tells the batch whether a failure of the unit left something it cannot
 * undo alone.
 */
class SqliteWritesLastTx extends SqliteWriteTx {
  wrote = false;
  /**
   * reader: where all() and get() run instead of the writer, for a unit of
   * WriteOptions.fromDurableSnapshot that reads the reader's snapshot (a
   * statement that writes fails there, on the read-only connection).
   */
  constructor(
    prepare: Prepare,
    db: Database,
    private readonly reader: { prepare: Prepare; db: Database } | undefined,
    aloneFacts: Map<string, unknown> | undefined,
  ) {
    super(prepare, db, aloneFacts);
  }
  override async all<R>(sql: string, params?: SqlParams): Promise<R[]> {
    return this.statement(true, sql, (prepared) => bindAll(prepared, params) as R[]);
  }
  override async get<R>(sql: string, params?: SqlParams): Promise<R | undefined> {
    return this.statement(true, sql, (prepared) => bindGet(prepared, params) as R | undefined);
  }
  override async run(sql: string, params?: SqlParams): Promise<number> {
    return this.statement(false, sql, (prepared) => bindRun(prepared, params));
  }
  override async exec(): Promise<void> {
    throw new StoreError('other', 'WRITE_NOT_LAST', 'a unit of work that writes last runs no script');
  }
  override async savepoint<T>(): Promise<T> {
    throw new StoreError('other', 'WRITE_NOT_LAST', 'a unit of work that writes last takes no savepoint');
  }
  private statement<T>(reads: boolean, sql: string, execute: (prepared: Prepared) => T): T {
    if (this.wrote) throw new StoreError('other', 'WRITE_NOT_LAST', 'a unit of work that writes last ran a statement after its write');
    // SQLite rolled the batch back (disk full, I/O) under a unit that went on: the statement would commit on its own.
    if (!this.db.inTransaction) throw batchRolledBack();
    const reader = reads ? this.reader : undefined;
    if (reader && !reader.db.inTransaction) throw snapshotLost();
    const prepared = (reader?.prepare ?? this.prepare)(sql);
    // Counted before it runs, as the rows it returns are made after: only a failure of the statement itself
    // (an SQLite error) leaves nothing written.
    const writes = !prepared.statement.readonly;
    this.wrote = writes;
    try {
      return execute(prepared);
    } catch (err) {
      const failure = toStoreError(err);
      if (failure instanceof StoreError) this.wrote = false;
      throw failure;
    }
  }
}

/** SQLite rolled the batch's transaction back (disk full, I/O) under a unit that writes last, which went on. */
function batchRolledBack(): StoreError {
  return new StoreError('storage', 'BATCH_ROLLED_BACK', 'the batch was rolled back by SQLite; nothing of it is stored');
}

/** A unit that writes last failed after its write: its batch is rolled back; it gets its own error, every other unit this one. */
class BatchAborted extends StoreError {
  constructor(
    readonly job: Job,
    readonly unitError: unknown,
  ) {
    super('storage', 'BATCH_ABORTED', 'another unit of work of the same batch failed after a write it could not undo alone; nothing of the batch is stored');
  }
}

interface Job {
  fn: (tx: WriteTx) => Promise<unknown>;
  durable: boolean;
  /** WriteOptions.writesLast: no savepoint of its own. */
  writesLast: boolean;
  /** WriteOptions.fromDurableSnapshot: during a sync, reads on the durable snapshot and answered before its commit. */
  fromDurableSnapshot: boolean;
  /** A unit of writeAlone: it shares the batch's aloneFacts (WriteTx.aloneFacts). */
  alone: boolean;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** `atCommit`: answered once its batch has committed, before that batch's sync (it read nothing that is not durable). */
type Outcome = { ok: boolean; value: unknown; hooks: (() => void)[]; atCommit?: boolean };

/** A batch's units and how they ended; `answered`: units answered before the commit, during a sync (fromDurableSnapshot). */
interface BatchUnits {
  jobs: Job[];
  outcomes: Outcome[];
  answered: number;
  /** A durable unit has run in this batch: the writer now holds rows that will not be durable before its sync. */
  durableRan: boolean;
  /** WriteTx.aloneFacts of this batch's transaction: emptied before every unit that is not of writeAlone. */
  aloneFacts: Map<string, unknown>;
}

/** A committed batch waiting for its WAL sync and then acknowledging its units; `done` never rejects. */
interface InFlight {
  settled: boolean;
  done: Promise<void>;
}

const SETTLED: InFlight = { settled: true, done: Promise.resolve() };

/**
 * A snapshot is pinned for a sync only if a read unit or a unit of
 * fromDurableSnapshot came within this many ms: under writes alone no
 * snapshot holds back the WAL's checkpoints.
 */
const SNAPSHOT_DEMAND_MS = 1000;

/**
 * Bytes of WAL (128 MiB) past which the store starts it over itself (`restartWal`). Each restart holds the
 * next batch for about 10 ms (the database file's fsync): at 64 MiB, 2.6 a second under createOrder on
 * 1,000,000 orders (docs/benchmarks.md, "The event loop idle under createOrder").
 */
const RESTART_WAL_BYTES = 128 * 2 ** 20;

/**
 * How long the next batch waits for the worker's checkpoint that lets the
 * WAL start over; how long after a try that did not start it over (the
 * checkpoint did not come back or could not copy everything, or a read's
 * mark on the WAL kept it from starting over) the store tries again:
 * doubling from the first to the last while tries keep failing.
 */
const RESTART_WAIT_MS = 1000;
const RESTART_RETRY_FIRST_MS = 100;
const RESTART_RETRY_LAST_MS = 5000;

/**
 * How often, at most, a commit looks at the WAL's size (an fstat) to know whether it has outgrown
 * restartWalBytes: at every batch that was about 0.4 µs of a list request (docs/benchmarks.md, "Evening on
 * 2026-11-30"). Under createOrder the WAL grows by about 1.7 MiB in 10 ms (166 MiB/s: 2.6 restarts a second
 * at 64 MiB), so it outgrows the 128 MiB by at most about that before the store sees it.
 */
const WAL_SIZE_CHECK_MS = 10;

/** How long a batch waits for the write lock another connection holds (SQLite's busy_timeout before). */
const WRITE_LOCK_TIMEOUT_MS = 5000;

function applyPragmas(db: Database): void {
  db.pragma('busy_timeout = 5000');
  // 32 MiB of page cache instead of SQLite's 2 MiB: the hot end of the order
  // indexes and recent rows of every merchant stay in memory, where a list
  // request otherwise rereads them from the OS (docs/benchmarks.md). Grows
  // only as pages are read; idle memory is unchanged.
  db.pragma('cache_size = -32768');
  db.pragma('foreign_keys = ON');
}

export function schemaVersionOf(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Applies every migration above the file's version, each in its own BEGIN IMMEDIATE transaction. */
export async function migrateSqlite(db: Database, migrations: readonly Migration[], targetVersion: number): Promise<void> {
  const known = migrations[migrations.length - 1]?.version ?? 0;
  const prepare = statementCache(db, { rawRows: false });
  for (;;) {
    // Which migration is next, known only under the write lock; a rebuild needs foreign keys off before it.
    const peek = migrations.find((m) => m.version > schemaVersionOf(db) && m.version <= targetVersion);
    const rebuild = peek?.sqliteRebuildsTables === true;
    if (rebuild) db.pragma('foreign_keys = OFF');
    db.exec('BEGIN IMMEDIATE');
    try {
      // Read under the write lock: another process may have migrated meanwhile.
      const current = schemaVersionOf(db);
      if (current > known) throw new SchemaTooNewError(current, known);
      const next = migrations.find((m) => m.version > current && m.version <= targetVersion);
      if (!next) {
        db.exec('COMMIT');
        return;
      }
      if (next.sqliteRebuildsTables && !rebuild) {
        // Another process moved on meanwhile: start over with the right setting.
        db.exec('ROLLBACK');
        continue;
      }
      const tx = new SqliteWriteTx(prepare, db);
      db.exec(next.schema.sqlite);
      await next.data?.(tx);
      if (rebuild) {
        const broken = db.pragma('foreign_key_check') as unknown[];
        if (broken.length > 0) throw new Error(`migration ${next.version}: ${broken.length} foreign key(s) broken by the rebuild`);
      }
      db.pragma(`user_version = ${next.version}`);
      db.exec('COMMIT');
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw toStoreError(err);
    } finally {
      if (rebuild) db.pragma('foreign_keys = ON');
    }
  }
}

/**
 * Cached merchants and channels are trusted only while the row generation
 * is unchanged (migration 0010), which its triggers guarantee: a file at
 * that version without them (a later migration rebuilt a table and forgot
 * them) is refused rather than served from stale rows.
 */
function checkRowGeneration(db: Database): void {
  if (schemaVersionOf(db) < migration0010RowGeneration.version) return;
  const present = new Set(
    (db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").all() as { name: string }[]).map((r) => r.name),
  );
  const missing = ROW_GENERATION_TRIGGERS.filter((name) => !present.has(name));
  const rows = db.prepare('SELECT count(*) AS n FROM row_generation WHERE id = 1').get() as { n: number };
  const problem = incompleteRowGeneration(missing, rows.n === 1);
  if (problem) throw new Error(problem);
}

function openConnection(file: string, options: { readonly: boolean; nativeBinding?: string | undefined }): Database {
  return new BetterSqlite3(file, {
    readonly: options.readonly,
    ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}),
  });
}

export async function openSqliteStore(options: SqliteStoreOptions): Promise<SqliteStore> {
  const maxBatch = options.maxBatch ?? 256;
  const yieldAfterMs = options.yieldAfterMs ?? 1;
  /** The WAL file to sync after a durable commit (null: an in-memory database, nothing to sync). */
  let walFile: string | null = null;
  const restartWalBytes = options.restartWalBytes ?? RESTART_WAL_BYTES;
  let writer: Database;
  try {
    // Owner-only (pay tokens, sealed secrets): created 0600 before SQLite opens it, so its side files are too.
    if (options.file !== ':memory:' && options.file !== '') ensureOwnerOnly(options.file, { sqlite: true });
    writer = openConnection(options.file, { readonly: false, nativeBinding: options.nativeBinding });
  } catch (err) {
    throw toStoreError(err);
  }
  let reader: Database | undefined;
  try {
    applyPragmas(writer);
    const wal = (writer.pragma('journal_mode = WAL', { simple: true }) as string) === 'wal';
    // Migrations commit on their own, durably inside COMMIT; after them the store syncs the WAL itself.
    writer.pragma('synchronous = FULL');
    await migrateSqlite(writer, MIGRATIONS, options.targetVersion ?? LATEST_SCHEMA_VERSION);
    checkRowGeneration(writer);
    writer.pragma('synchronous = NORMAL');
    // The writer never waits for the write lock inside SQLite: its busy handler
    // sleeps on the event loop's thread, so while another store of this process
    // holds the lock across a yield (runBatch), waiting there would stop the
    // very loop that lets that store finish. A batch waits for the lock
    // asynchronously instead (beginWrite).
    writer.pragma('busy_timeout = 0');
    // Statement and savepoint journals in memory, not in a temp file. An
    // order insert (its indexes and counter triggers) journals about 50 KiB
    // of pages; past 64 KiB SQLite moves the journal to a file and, inside a
    // transaction, keeps writing it there until COMMIT: every later unit of
    // the batch then paid about 30 pwrite calls (strace) and 20 µs. The
    // journal holds what one statement or unit changed and is emptied after
    // it; the reader keeps temp files (its sorts may be large).
    writer.pragma('temp_store = MEMORY');
    // Absolute: the sync opens it later, whatever the working directory is then.
    walFile = wal ? `${path.resolve(writer.name)}-wal` : null;
    // Each time the WAL starts over it is cut back to this size, so that its size tells how much it holds (`restartWal`).
    writer.pragma(`journal_size_limit = ${restartWalBytes}`);
    reader = openConnection(options.file, { readonly: true, nativeBinding: options.nativeBinding });
    applyPragmas(reader);
  } catch (err) {
    reader?.close();
    writer.close();
    throw toStoreError(err);
  }
  const readerDb = reader;
  const prepareWrite = statementCache(writer, { rawRows: true });
  const prepareRead = statementCache(readerDb, { rawRows: true });
  const readTx = new SqliteReadTx(prepareRead, readerDb);

  const stats: StoreStats = { writes: 0, commits: 0, largestBatch: 0, relaxedCommits: 0, alone: 0 };
  const pending: Job[] = [];
  let scheduled = false;
  let flushing: Promise<void> | null = null;
  let closed = false;
  /** Set for good once a WAL sync failed: every later unit of work is refused with it. */
  let failed: StoreError | null = null;
  /** Settles when the commit that waits for its WAL sync is durable (or its sync failed); null while none waits. */
  let syncGate: Promise<void> | null = null;
  let walFd: number | undefined;

  // Reads one at a time on the reader: each holds its snapshot for its whole unit of work.
  let readQueue: Promise<unknown> = Promise.resolve();
  const takeSnapshot = readerDb.prepare('PRAGMA schema_version').pluck();
  const readBegin = readerDb.prepare('BEGIN');
  const readEnd = readerDb.prepare('COMMIT');
  /** COMMITs of the writer so far; `snapshotAt`: their number when the reader's open snapshot was taken (-1: none open). */
  let commits = 0;
  let snapshotAt = -1;
  /** Units reading in the reader's snapshot now (read units, and units of fromDurableSnapshot during a sync). */
  let snapshotUsers = 0;
  /** The reader's open snapshot was taken right before the commit whose sync is under way: the last durable state. */
  let pinned = false;
  /** When a read unit or a unit of fromDurableSnapshot last came: a snapshot is pinned for a sync only while they do. */
  let snapshotWantedAt = Number.NEGATIVE_INFINITY;
  /** The checkpointer's onError: where a failed checkpoint of startWalOver is told too. */
  let checkpointError: ((message: string) => void) | undefined;
  /** The checkpoint worker while it runs: it starts the WAL over for the store (`restartWal`). */
  let checkpointer: Checkpointer | null = null;
  /** Settles once the worker's checkpoint asked for by the last commit has run (or not): the next batch begins after it. */
  let walRestart: Promise<void> | null = null;
  /** No new try to start the WAL over before then (performance.now()), and how long after a failed try the next one. */
  let restartNotBefore = 0;
  let restartRetryMs = RESTART_RETRY_FIRST_MS;
  const restartWaitMs = options.restartWaitMs ?? RESTART_WAIT_MS;
  /** After a checkpoint for a restart on the event loop: 'next', the next commit starts the WAL over; 'check', the one after sees whether it did. */
  let restartStep: 'next' | 'check' | null = null;
  /** When a commit may next look at the WAL's size (WAL_SIZE_CHECK_MS). */
  let walSizeCheckNotBefore = 0;
  /** The worker's checkpoint before a restart by it, while batches go on: asked for, or answered. */
  let restartCatchUp: 'asked' | 'answered' | null = null;
  /** How many units syncAndAcknowledge answers per turn of the event loop, as its last slices found (at most maxBatch). */
  let ackChunk = 1;

  // The batch's own statements, prepared once (db.exec compiles its text every time).
  const begin = writer.prepare('BEGIN IMMEDIATE');
  const writerSchema = writer.prepare('PRAGMA schema_version').pluck();
  const commit = writer.prepare('COMMIT');
  const jobSavepoint = writer.prepare('SAVEPOINT job');
  const jobRelease = writer.prepare('RELEASE job');
  const jobRollback = writer.prepare('ROLLBACK TO job');

  /**
   * BEGIN IMMEDIATE, waiting up to WRITE_LOCK_TIMEOUT_MS for the write lock
   * off the event loop (another process, e.g. an admin command, or another
   * store of this process, holds it). A failure is SQLITE_BUSY as before.
   */
  async function beginWrite(): Promise<void> {
    const deadline = performance.now() + WRITE_LOCK_TIMEOUT_MS;
    for (let wait = 1; ; wait = Math.min(wait * 2, 20)) {
      try {
        begin.run();
        // Under the write lock: no other process can change the schema until COMMIT.
        prepareWrite.atSchema(writerSchema.get() as number);
        return;
      } catch (err) {
        if ((err as { code?: unknown }).code !== 'SQLITE_BUSY' || performance.now() >= deadline) throw err;
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  /** A new snapshot on the reader: everything committed so far. */
  function takeReaderSnapshot(): void {
    if (readerDb.inTransaction) readEnd.run();
    readBegin.run();
    // Taken here (its first read), not at a unit's first statement.
    prepareRead.atSchema(takeSnapshot.get() as number);
    snapshotAt = commits;
  }

  function endReaderSnapshot(): void {
    if (readerDb.inTransaction) readEnd.run();
    snapshotAt = -1;
    pinned = false;
  }

  /**
   * Enters the reader's snapshot for a unit, if it shows everything
   * acknowledged and nothing that is not durable: while a sync is under way
   * the one pinned right before that commit, otherwise the latest (taken
   * now unless the open one is). False when there is none such: a sync
   * without a pinned snapshot, or an older snapshot still in use.
   */
  function enterSnapshot(): boolean {
    // SQLite ended the reader's transaction itself (an error such as SQLITE_FULL in a sort): that snapshot is gone.
    if (snapshotAt !== -1 && !readerDb.inTransaction) {
      snapshotAt = -1;
      pinned = false;
    }
    if (syncGate) {
      if (!pinned) return false;
    } else if (snapshotAt !== commits) {
      if (snapshotUsers > 0 || !tryTakeReaderSnapshot()) return false;
    }
    snapshotUsers++;
    return true;
  }

  /** takeReaderSnapshot, false if it failed (the reader left without a snapshot): a snapshot is never worth failing a unit for. */
  function tryTakeReaderSnapshot(): boolean {
    try {
      takeReaderSnapshot();
      return true;
    } catch {
      try {
        endReaderSnapshot();
      } catch {
        // The reader's transaction could not be ended either: enterSnapshot sees it as gone next time.
      }
      snapshotAt = -1;
      return false;
    }
  }

  /** Left by its last user while no sync is under way, the snapshot ends: an open one keeps the WAL from being reset. */
  function leaveSnapshot(): void {
    if (--snapshotUsers === 0 && !syncGate) endReaderSnapshot();
  }

  /**
   * Right before a durable batch's COMMIT, when no sync is under way (a
   * batch commits only once the one before is durable), so that what is
   * committed is durable or relaxed: the reader's snapshot of it is kept for
   * the units that read during the sync to come.
   */
  function pinDurableSnapshot(): void {
    if (snapshotUsers === 0 && !tryTakeReaderSnapshot()) return;
    // In use and older than the last commit (a relaxed one since), or lost: units reading during this sync wait for it instead.
    pinned = snapshotAt === commits && readerDb.inTransaction;
  }

  /** The sync is over (or the commit failed): the pinned snapshot ends, or once its last user leaves. */
  function releasePin(): void {
    pinned = false;
    if (snapshotUsers === 0) endReaderSnapshot();
  }

  /**
   * SQLite writes the WAL from its start again only at the first write of
   * a transaction (its commit) that began after a checkpoint had copied
   * every frame, and while no connection holds a mark on the WAL (a
   * reader's snapshot; a checkpoint, for a moment). Under load the next
   * batch begins right after a commit, so the worker's checkpoints, every
   * 200 ms, hardly ever fall in between, and a snapshot pinned at every
   * durable commit rules it out (the WAL grew without end: 720 MiB in 5 s);
   * with the worker running, its own read mark rules it out at every
   * commit (checkpointer.ts, `ownsWalRestarts`: no header fsync on the
   * event loop), so this is the only way the WAL starts over.
   * The writer's own automatic checkpoint inside COMMIT did it, on the event
   * loop, with two fsyncs there (5-8 ms; a disk stall held every request
   * that long). So once the WAL has grown past restartWalBytes
   * (journal_size_limit cuts it back to that size whenever it starts over,
   * so its size says so), the commit pins nothing, and the worker
   * checkpoints at once and starts the WAL over itself, with a write of its
   * own (checkpointer.ts, startWalOver): the fsync of the new header, which
   * SQLite needs before frames overwrite the old ones, and the cut back to
   * journal_size_limit happen on its thread. The next batch begins only
   * after that (its units may gather meanwhile; the event loop runs on).
   * That wait is short because the worker has caught up first: the first
   * commit past restartWalBytes only asks it for a checkpoint, batches go
   * on meanwhile, and the first commit after its answer asks for the
   * restart, whose checkpoint then copies only what came since (the wait
   * was 15 ms a restart when that copy was up to 200 ms of writes, 11 ms
   * after; 4 % of createOrder's time on 1,000,000 orders before;
   * docs/benchmarks.md).
   * Without a worker, the store checkpoints on the event loop right after
   * the commit, and only while it pins (else the automatic checkpoint
   * does); the next commit then starts the WAL over, with that fsync, on
   * the event loop.
   */
  function restartWanted(pinning: boolean): boolean {
    if (restartStep === 'next') {
      // Its transaction began after the checkpoint: this commit writes the WAL from its start.
      restartStep = 'check';
      return false;
    }
    const now = performance.now();
    if (runningWorker() ? now < restartNotBefore : !pinning) return false;
    // Whether a restart took is checked at once; whether one is due, only every WAL_SIZE_CHECK_MS.
    if (restartStep === null && now < walSizeCheckNotBefore) return false;
    walSizeCheckNotBefore = now + WAL_SIZE_CHECK_MS;
    const outgrown = walOutgrown();
    const step = restartStep;
    restartStep = null;
    if (!outgrown) {
      if (step === 'check') restartRetryMs = RESTART_RETRY_FIRST_MS;
      return false;
    }
    if (step === 'check') {
      // It did not start over (a read's mark on the WAL then): not at every commit.
      restartFailed();
      return false;
    }
    const worker = runningWorker();
    if (worker && restartCatchUp !== 'answered') {
      if (restartCatchUp === null) {
        restartCatchUp = 'asked';
        sqliteTestHooks.walCatchUp?.();
        // Whatever it answers: the restart's own checkpoint says whether everything is copied.
        void worker.catchUp(restartWaitMs).then(() => (restartCatchUp = 'answered'));
      }
      return false;
    }
    restartCatchUp = null;
    return true;
  }

  function restartFailed(): void {
    restartNotBefore = performance.now() + restartRetryMs;
    restartRetryMs = Math.min(restartRetryMs * 2, RESTART_RETRY_LAST_MS);
  }

  /** The checkpoint worker, unless none was started, it was stopped, or it has exited on its own. */
  function runningWorker(): Checkpointer | null {
    return checkpointer?.running ? checkpointer : null;
  }

  function walOutgrown(): boolean {
    if (walFile === null) return false;
    try {
      walFd ??= fs.openSync(walFile, 'r+');
      return fs.fstatSync(walFd).size > restartWalBytes;
    } catch {
      // Not worth failing a batch for: the sync opens the same file and reports what is wrong.
      return false;
    }
  }

  function startWalOver(): void {
    const worker = runningWorker();
    if (worker) {
      sqliteTestHooks.walRestart?.('worker');
      walRestart = worker.startWalOver(restartWaitMs).then((ok) => {
        sqliteTestHooks.walRestartedByWorker?.(ok);
        // Started over by the worker: the next batch writes the new WAL (no header of its own to sync).
        if (ok) restartRetryMs = RESTART_RETRY_FIRST_MS;
        // Not all copied back or not started over (a stalled disk, a reader's mark, a failure): writes go on,
        // the WAL grows until a later try.
        else restartFailed();
        walRestart = null;
      });
      return;
    }
    sqliteTestHooks.walRestart?.('event loop');
    try {
      writer.pragma('wal_checkpoint(PASSIVE)');
      restartStep = 'next';
    } catch (err) {
      // Committed already: the batch is unaffected, and the next durable commit asks again.
      checkpointError?.(String((err as Error)?.message ?? err));
    }
  }

  /** A batch with a durable unit is acknowledged only after its WAL sync (none for a database in memory). */
  function needsSync(batch: Job[]): boolean {
    return walFile !== null && batch.some((job) => job.durable);
  }

  /** fdatasync of the WAL on libuv's thread pool: what synchronous=FULL does inside COMMIT, off the event loop. */
  function syncWal(): Promise<void> {
    const sync = () =>
      new Promise<void>((resolve, reject) => {
        try {
          walFd ??= fs.openSync(walFile!, 'r+');
        } catch (err) {
          reject(err);
          return;
        }
        fs.fdatasync(walFd, (err) => (err ? reject(err) : resolve()));
      });
    return sqliteTestHooks.syncWal ? sqliteTestHooks.syncWal(sync) : sync();
  }

  /** The WAL could not be made durable: fail everything waiting, refuse everything after, say so once. */
  function stop(batch: Job[], cause: unknown): void {
    const reason = (cause as Error)?.message ?? String(cause);
    failed = new StoreError(
      'storage',
      (cause as { code?: string })?.code === 'ENOSPC' ? 'SQLITE_FULL' : 'SQLITE_IOERR_FSYNC',
      `the database's write-ahead log could not be flushed to disk (${reason}); the store stopped: what was last committed may not be durable, restart the process`,
    );
    for (const job of batch) job.reject(failed);
    for (const job of pending.splice(0)) job.reject(failed);
    const fatal = failed;
    if (options.onFatal) options.onFatal(fatal);
    else
      process.nextTick(() => {
        throw fatal;
      });
  }

  /**
   * Runs the batch's units (and units that arrive meanwhile, up to maxBatch
   * of those it answers after its commit) in the open transaction, each in
   * its own savepoint (none for a unit that writes last), yielding the event
   * loop every yieldAfterMs.
   */
  async function runUnits(units: BatchUnits): Promise<void> {
    const { jobs: batch, outcomes } = units;
    let sliceStart = performance.now();
    // During a sync the batch cannot commit: units it has answered already do not count towards maxBatch then.
    const waiting = (): number => (syncGate !== null ? batch.length - units.answered : batch.length);
    // Units queued meanwhile join this batch (up to maxBatch) until it lets the loop run while it could commit: those
    // that arrive then wait for the next batch. Taken in, they held every answer of an open batch until no more came,
    // and under a steady load each batch took in every connection, the next one unit alone (docs/benchmarks.md,
    // "Night of 2026-11-30"). While the batch before syncs, this one cannot commit anyway, and they join it.
    let joinArrivals = true;
    for (let i = outcomes.length; i < batch.length || (joinArrivals && pending.length > 0 && waiting() < maxBatch); i++) {
      if (performance.now() - sliceStart > yieldAfterMs) {
        // Let the event loop breathe (sockets, timers, reads of the committed state); the transaction stays open.
        await new Promise<void>((resolve) => setImmediate(resolve));
        // The batch before failed its sync meanwhile: everything after it is refused (runBatch rolls back).
        if (failed) throw failed;
        joinArrivals = syncGate !== null;
        sliceStart = performance.now();
      }
      // A unit that joins shares the batch's commit.
      if (i === batch.length) {
        if (pending.length === 0) break;
        batch.push(pending.shift()!);
      }
      const job = batch[i]!;
      if (job.durable) units.durableRan = true;
      // A unit of `write` may change anything: what units of writeAlone established before it no longer holds.
      if (!job.alone && units.aloneFacts.size > 0) units.aloneFacts.clear();
      const aloneFacts = job.alone ? units.aloneFacts : undefined;
      if (job.writesLast) {
        // A read's nonce waits for no sync (docs/decisions.md, "Reads during a WAL sync"). Its reads see only what is
        // durable: the writer's rows while no sync is under way and no durable unit ran in this batch before it (it is
        // answered at its batch's commit, before the sync), else the reader's snapshot, pinned for the sync under
        // way or the latest (it is answered as soon as it has run).
        const onWriter = job.fromDurableSnapshot && syncGate === null && !units.durableRan;
        const onSnapshot = job.fromDurableSnapshot && !onWriter && enterSnapshot();
        // No savepoint: until its one write the unit has written nothing, and a statement that fails leaves nothing.
        const tx = new SqliteWritesLastTx(prepareWrite, writer, onSnapshot ? { prepare: prepareRead, db: readerDb } : undefined, aloneFacts);
        let outcome: Outcome;
        try {
          outcome = { ok: true, value: await job.fn(tx), hooks: tx.hooks };
        } catch (err) {
          if (!writer.inTransaction) throw err;
          // Failed after its write (it broke its word): only the batch's rollback undoes that.
          if (tx.wrote) throw new BatchAborted(job, err);
          outcome = { ok: false, value: toStoreError(err), hooks: [] };
        } finally {
          if (onSnapshot) leaveSnapshot();
        }
        // No RELEASE here to fail if SQLite rolled the batch back under a unit that swallowed the error.
        if (outcome.ok && !writer.inTransaction) throw batchRolledBack();
        outcomes.push(outcome);
        if (onSnapshot) {
          // Its write has run (a unique key refuses another), its answer shows only durable rows: answered now.
          if (syncGate !== null) units.answered++;
          settle(job, outcome);
        } else if (onWriter) {
          outcome.atCommit = true;
        }
        continue;
      }
      const tx = new SqliteWriteTx(prepareWrite, writer, aloneFacts);
      jobSavepoint.run();
      try {
        const value = await job.fn(tx);
        jobRelease.run();
        outcomes.push({ ok: true, value, hooks: tx.hooks });
      } catch (err) {
        // Some errors (disk full, I/O) make SQLite roll back the whole
        // transaction. Running on would put later jobs in autocommit
        // mode, outside the batch: stop and fail the batch instead.
        if (!writer.inTransaction) throw err;
        jobRollback.run();
        jobRelease.run();
        outcomes.push({ ok: false, value: toStoreError(err), hooks: [] });
      }
    }
  }

  /**
   * One batch up to its COMMIT. While the batch before it waits for its WAL
   * sync, this one already runs its units (they see that batch's rows, on
   * the writer only), but it commits only once that batch is durable and
   * acknowledged: nothing of either is acknowledged, seen by a read unit or
   * given to a hook before it is on disk, and batches still commit and
   * acknowledge one after the other. Returns the committed batch in flight
   * (its sync, then its acknowledgements), or one already settled when the
   * batch failed.
   */
  async function runBatch(batch: Job[], before: InFlight | null): Promise<InFlight> {
    // A new transaction: no facts from the one before (another connection may have written in between).
    const units: BatchUnits = { jobs: batch, outcomes: [], answered: 0, durableRan: false, aloneFacts: new Map() };
    let restartWal = false;
    try {
      // The WAL starts over at this batch's commit if the worker has copied back every frame before it begins.
      if (walRestart) await walRestart;
      if (failed) throw failed;
      await beginWrite();
      await runUnits(units);
      // Units that arrive while the batch before syncs join this one as they come (a read's nonce is answered then).
      while (before && !before.settled) {
        // A full batch waits for the end of the sync alone (no turn of the loop for units it cannot take).
        const full = units.jobs.length - units.answered >= maxBatch;
        const arrival = full ? new Promise<'arrived'>(() => undefined) : new Promise<'arrived'>((resolve) => (arrived = () => resolve('arrived')));
        const woke = await Promise.race([before.done, arrival]);
        arrived = null;
        if (failed) throw failed;
        // Let every request already read from the sockets join.
        if (woke === 'arrived') await new Promise<void>((resolve) => setImmediate(resolve));
        if (failed) throw failed;
        await runUnits(units);
      }
      // However its units ended: nothing commits on top of a batch whose sync failed.
      if (failed) throw failed;
      const syncs = needsSync(batch);
      // A snapshot for the sync to come, while reads come.
      const pin = syncs && performance.now() - snapshotWantedAt < SNAPSHOT_DEMAND_MS;
      restartWal = restartWanted(pin);
      if (pin && !restartWal) pinDurableSnapshot();
      commit.run();
      commits++;
      // Units that read only durable rows need not wait for this batch's sync (fromDurableSnapshot).
      if (syncs) units.outcomes.forEach((outcome, i) => outcome.atCommit && settle(batch[i]!, outcome));
    } catch (err) {
      // The commit failed after the snapshot was pinned for its sync (the pin of a sync under way stays).
      if (pinned && !syncGate) releasePin();
      // The commit itself failed (disk full, I/O error), SQLite abandoned the
      // transaction, the write lock stayed taken, or the batch before could
      // not be made durable: nothing of this batch is stored. It is refused
      // only after the batch before is settled (answers stay in commit order),
      // and nothing after it commits until then.
      if (writer.inTransaction) writer.exec('ROLLBACK');
      if (before && !before.settled) await before.done;
      const failure = toStoreError(err);
      for (const job of batch) job.reject(failure instanceof BatchAborted && job === failure.job ? toStoreError(failure.unitError) : failure);
      return SETTLED;
    }
    const inFlight: InFlight = { settled: false, done: syncAndAcknowledge(batch, units.outcomes) };
    void inFlight.done.then(() => (inFlight.settled = true));
    if (restartWal) startWalOver();
    return inFlight;
  }

  /** After COMMIT: the WAL sync (durable batches), then each unit answered and its hooks run. Never rejects. */
  async function syncAndAcknowledge(batch: Job[], outcomes: Outcome[]): Promise<void> {
    const durable = batch.some((job) => job.durable);
    if (needsSync(batch)) {
      // Committed, not yet durable: until the sync is done, units read the snapshot pinned before the commit.
      let open!: () => void;
      syncGate = new Promise<void>((resolve) => (open = resolve));
      try {
        await syncWal();
      } catch (err) {
        stop(batch, err);
        return;
      } finally {
        syncGate = null;
        releasePin();
        open();
      }
    }
    if (!durable) stats.relaxedCommits++;
    stats.commits++;
    stats.writes += batch.length;
    stats.largestBatch = Math.max(stats.largestBatch, batch.length);
    // Acknowledged in slices too: each unit's continuation (its answer
    // serialised and written) runs before the next slice, so a large batch
    // does not answer everyone in one long stretch of the event loop. A
    // slice is as large as the last batch's last one was, then follows what
    // a slice takes: starting every batch at 1 and doubling took a turn of
    // the loop per doubling, and the next batch's commit, so its WAL sync,
    // waited for them all (createOrder's event loop idle a tenth of the time,
    // a twentieth after; docs/benchmarks.md).
    let chunk = ackChunk;
    for (let i = 0; i < batch.length; ) {
      const start = performance.now();
      for (const end = Math.min(batch.length, i + chunk); i < end; i++) {
        const outcome = outcomes[i]!;
        if (outcome.ok) for (const hook of outcome.hooks) runHook(hook);
        settle(batch[i]!, outcome);
      }
      if (i < batch.length) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        const took = performance.now() - start;
        chunk = took > yieldAfterMs ? Math.max(1, chunk >> 1) : took < yieldAfterMs / 2 ? Math.min(maxBatch, chunk * 2) : chunk;
        ackChunk = chunk;
      }
    }
  }

  /** A unit's answer (its hooks run with its batch's acknowledgements). Settling twice is harmless: the first wins. */
  function settle(job: Job, outcome: Outcome): void {
    if (outcome.ok) job.resolve(outcome.value);
    else job.reject(outcome.value);
  }

  /** An afterCommit hook that throws must not leave the rest of its batch unanswered: its error is thrown on its own. */
  function runHook(hook: () => void): void {
    try {
      hook();
    } catch (err) {
      process.nextTick(() => {
        throw err;
      });
    }
  }

  /** Resolves when write() queues a unit (the flush loop waits for it beside the batch in flight). */
  let arrived: (() => void) | null = null;

  function flush(): Promise<void> {
    scheduled = false;
    if (flushing) return flushing;
    flushing = (async () => {
      let inFlight: InFlight | null = null;
      try {
        while (!failed) {
          if (pending.length === 0) {
            if (!inFlight || inFlight.settled) break;
            // The last batch waits for its sync: start the next one as soon as units arrive.
            await Promise.race([inFlight.done, new Promise<void>((resolve) => (arrived = resolve))]);
            arrived = null;
            // Let every request already read from the sockets join it.
            if (pending.length > 0) await new Promise<void>((resolve) => setImmediate(resolve));
            continue;
          }
          const batch = pending.length > maxBatch ? pending.splice(0, maxBatch) : pending.splice(0);
          inFlight = await runBatch(batch, inFlight);
          // A batch that needs no sync is acknowledged before the next one runs: its answers do not
          // trickle out one per loop turn beside the next batch's units (docs/decisions.md).
          if (!inFlight.settled && !batch.some((job) => job.durable)) await inFlight.done;
          // The event loop turns between batches. Work done in steps (a purge, a sweep) queues its next
          // unit from the last one's acknowledgement, a microtask: without this, a batch that needs no
          // sync would follow the previous one at once, and a thousand steps held the loop for seconds.
          if (pending.length > 0) await new Promise<void>((resolve) => setImmediate(resolve));
        }
      } finally {
        flushing = null;
      }
    })();
    return flushing;
  }

  /** A unit of the next batch: store.write, and store.writeAlone (`alone`). */
  function enqueue<T>(fn: (tx: WriteTx) => Promise<T>, writeOptions: WriteOptions, alone: boolean): Promise<T> {
    if (failed) return Promise.reject(failed);
    if (closed) return Promise.reject(new StoreError('unavailable', 'STORE_CLOSED', 'the store is closed'));
    const fromDurableSnapshot = writeOptions.fromDurableSnapshot === true;
    if (fromDurableSnapshot) {
      if (!(writeOptions.writesLast === true && writeOptions.durable === false)) {
        return Promise.reject(new StoreError('other', 'WRITE_OPTIONS', 'fromDurableSnapshot is for a unit that writes last and is not durable'));
      }
      snapshotWantedAt = performance.now();
    }
    return new Promise<T>((resolve, reject) => {
      pending.push({
        fn: fn as (tx: WriteTx) => Promise<unknown>,
        durable: writeOptions.durable !== false,
        writesLast: writeOptions.writesLast === true,
        fromDurableSnapshot,
        alone,
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      if (arrived) {
        arrived();
        arrived = null;
      } else if (!scheduled && !flushing) {
        scheduled = true;
        // setImmediate: let every request already read from the sockets join this batch.
        setImmediate(() => void flush());
      }
    });
  }

  const store: SqliteStore = {
    dialect: 'sqlite',
    file: options.file,
    location: options.file,
    stats,

    read<T>(fn: (tx: ReadTx) => Promise<T>, readOptions: ReadOptions = {}): Promise<T> {
      if (failed) return Promise.reject(failed);
      if (closed) return Promise.reject(new StoreError('unavailable', 'STORE_CLOSED', 'the store is closed'));
      // The service's own timers read every second: counted, they would keep a snapshot pinned at every commit.
      if (readOptions.background !== true) snapshotWantedAt = performance.now();
      const run = async (): Promise<T> => {
        // A snapshot with everything acknowledged and nothing not yet durable (enterSnapshot), or wait for one:
        // for the sync under way (or for nothing, if it fails), or for an older snapshot's last user.
        for (;;) {
          if (failed) throw failed;
          if (enterSnapshot()) break;
          await (syncGate ?? new Promise<void>((resolve) => setImmediate(resolve)));
        }
        try {
          return await fn(readTx);
        } catch (err) {
          throw toStoreError(err);
        } finally {
          leaveSnapshot();
        }
      };
      const p = readQueue.then(run);
      readQueue = p.catch(() => undefined);
      return p;
    },

    write<T>(fn: (tx: WriteTx) => Promise<T>, writeOptions: WriteOptions = {}): Promise<T> {
      return enqueue(fn, writeOptions, false);
    },

    async writeAlone<T>(fn: (tx: WriteTx) => Promise<T>, writeOptions: WriteOptions = {}): Promise<T> {
      // A unit of the batch like any other (a transaction costs no round trip here), in its own savepoint unless it
      // writes last; with the batch's aloneFacts.
      const value = await enqueue(fn, writeOptions, true);
      stats.alone++;
      return value;
    },


    startCheckpointer(checkpointOptions = {}) {
      checkpointError = checkpointOptions.onError;
      const started = startCheckpointer(writer, {
        ...checkpointOptions,
        nativeBinding: options.nativeBinding,
        journalSizeLimit: restartWalBytes,
        ownsWalRestarts: true,
      });
      checkpointer = started;
      // The worker makes the first write into the WAL as it is (empty after a clean close), so that its
      // header's fsync is not the next batch's; from then on its mark keeps the WAL from starting over
      // at any commit of the writer's.
      startWalOver();
      return {
        startWalOver: (timeoutMs) => started.startWalOver(timeoutMs),
        catchUp: (timeoutMs) => started.catchUp(timeoutMs),
        get running() {
          return started.running;
        },
        stop() {
          if (checkpointer === started) checkpointer = null;
          return started.stop();
        },
      };
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await flush();
      await readQueue;
      // Before SQLite closes (and may delete) the WAL file.
      if (walFd !== undefined) fs.closeSync(walFd);
      readerDb.close();
      writer.close();
    },
  };
  return store;
}

