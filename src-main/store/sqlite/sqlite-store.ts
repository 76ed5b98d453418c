/**
 * The SQLite engine of the store API: one file, WAL, synchronous=FULL (a
 * commit is on disk before it is acknowledged, so an acknowledged order
 * survives a crash of the process and of the machine).
 *
 * Two connections:
 *  - the writer runs every write unit of work through group commit: units
 *    that arrive while a commit is in progress run together, each in its own
 *    savepoint, and share one durable commit (one fsync). A unit's promise
 *    settles only after that commit, and one unit's failure undoes only its
 *    savepoint. A batch made only of `durable: false` units commits with
 *    synchronous=NORMAL (docs/decisions.md, "A read's nonce").
 *  - the reader (read-only) runs read units one at a time, each in its own
 *    transaction, so it sees one committed snapshot and never a write batch
 *    that is still open or may roll back.
 * Units of work only touch the database (better-sqlite3 is synchronous), so
 * a unit runs from start to end without letting another one in between.
 */
import BetterSqlite3, { type Database, type Statement } from 'better-sqlite3';
import {
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
import { startCheckpointer, type Checkpointer } from './checkpointer';
import { ensureOwnerOnly } from '../owner-only';

export interface SqliteStoreOptions {
  file: string;
  /** Native binding path (the Electron build of better-sqlite3). */
  nativeBinding?: string | undefined;
  /** Apply migrations up to this version only (tests of older versions). */
  targetVersion?: number;
  /** Largest group-commit batch. */
  maxBatch?: number;
}

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

/** Prepared statements of one connection, by SQL text. */
function statementCache(db: Database) {
  const cache = new Map<string, Statement>();
  return (sql: string): Statement => {
    let s = cache.get(sql);
    if (!s) {
      try {
        s = db.prepare(sql);
      } catch (err) {
        throw toStoreError(err);
      }
      cache.set(sql, s);
    }
    return s;
  };
}

type Prepare = ReturnType<typeof statementCache>;

function bindAll(s: Statement, params: SqlParams | undefined): unknown[] {
  if (params === undefined) return s.all();
  return Array.isArray(params) ? s.all(...(params as unknown[])) : s.all(params);
}

function bindGet(s: Statement, params: SqlParams | undefined): unknown {
  if (params === undefined) return s.get();
  return Array.isArray(params) ? s.get(...(params as unknown[])) : s.get(params);
}

function bindRun(s: Statement, params: SqlParams | undefined): number {
  if (params === undefined) return s.run().changes;
  return (Array.isArray(params) ? s.run(...(params as unknown[])) : s.run(params)).changes;
}

class SqliteReadTx implements ReadTx {
  readonly dialect = 'sqlite' as const;
  constructor(protected readonly prepare: Prepare) {}
  async all<R>(sql: string, params?: SqlParams): Promise<R[]> {
    try {
      return bindAll(this.prepare(sql), params) as R[];
    } catch (err) {
      throw toStoreError(err);
    }
  }
  async get<R>(sql: string, params?: SqlParams): Promise<R | undefined> {
    try {
      return bindGet(this.prepare(sql), params) as R | undefined;
    } catch (err) {
      throw toStoreError(err);
    }
  }
}

let savepointSeq = 0;

class SqliteWriteTx extends SqliteReadTx implements MigrationTx {
  readonly hooks: (() => void)[] = [];
  constructor(
    prepare: Prepare,
    private readonly db: Database,
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
    const name = `sp${++savepointSeq}`;
    this.db.exec(`SAVEPOINT ${name}`);
    const hooksBefore = this.hooks.length;
    try {
      const value = await fn(this);
      this.db.exec(`RELEASE ${name}`);
      return value;
    } catch (err) {
      // Disk full or I/O: SQLite may have rolled back the whole transaction; nothing is left to undo here.
      if (this.db.inTransaction) this.db.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
      this.hooks.length = hooksBefore;
      throw toStoreError(err);
    }
  }
  afterCommit(fn: () => void): void {
    this.hooks.push(fn);
  }
}

interface Job {
  fn: (tx: WriteTx) => Promise<unknown>;
  durable: boolean;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

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
  const prepare = statementCache(db);
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

function openConnection(file: string, options: { readonly: boolean; nativeBinding?: string | undefined }): Database {
  return new BetterSqlite3(file, {
    readonly: options.readonly,
    ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}),
  });
}

export async function openSqliteStore(options: SqliteStoreOptions): Promise<SqliteStore> {
  const maxBatch = options.maxBatch ?? 256;
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
    writer.pragma('journal_mode = WAL');
    writer.pragma('synchronous = FULL');
    await migrateSqlite(writer, MIGRATIONS, options.targetVersion ?? LATEST_SCHEMA_VERSION);
    reader = openConnection(options.file, { readonly: true, nativeBinding: options.nativeBinding });
    applyPragmas(reader);
  } catch (err) {
    reader?.close();
    writer.close();
    throw toStoreError(err);
  }
  const readerDb = reader;
  const prepareWrite = statementCache(writer);
  const prepareRead = statementCache(readerDb);
  const readTx = new SqliteReadTx(prepareRead);

  const stats: StoreStats = { writes: 0, commits: 0, largestBatch: 0, relaxedCommits: 0 };
  const pending: Job[] = [];
  let scheduled = false;
  let flushing: Promise<void> | null = null;
  let closed = false;

  // Reads one at a time on the reader: each holds its own snapshot for its whole unit of work.
  let readQueue: Promise<unknown> = Promise.resolve();

  async function runBatch(batch: Job[]): Promise<void> {
    const relaxed = !batch.some((job) => job.durable);
    const outcomes: { ok: boolean; value: unknown; hooks: (() => void)[] }[] = [];
    if (relaxed) writer.pragma('synchronous = NORMAL');
    try {
      writer.exec('BEGIN IMMEDIATE');
      for (const job of batch) {
        const tx = new SqliteWriteTx(prepareWrite, writer);
        writer.exec('SAVEPOINT job');
        try {
          const value = await job.fn(tx);
          writer.exec('RELEASE job');
          outcomes.push({ ok: true, value, hooks: tx.hooks });
        } catch (err) {
          // Some errors (disk full, I/O) make SQLite roll back the whole
          // transaction. Running on would put later jobs in autocommit
          // mode, outside the batch: stop and fail the batch instead.
          if (!writer.inTransaction) throw err;
          writer.exec('ROLLBACK TO job; RELEASE job');
          outcomes.push({ ok: false, value: toStoreError(err), hooks: [] });
        }
      }
      writer.exec('COMMIT');
    } catch (err) {
      // The commit itself failed (disk full, I/O error): nothing of the batch is stored.
      if (writer.inTransaction) writer.exec('ROLLBACK');
      const failure = toStoreError(err);
      for (const job of batch) job.reject(failure);
      return;
    } finally {
      // Every other write on this connection stays durable.
      if (relaxed) writer.pragma('synchronous = FULL');
    }
    if (relaxed) stats.relaxedCommits++;
    stats.commits++;
    stats.writes += batch.length;
    stats.largestBatch = Math.max(stats.largestBatch, batch.length);
    batch.forEach((job, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) {
        for (const hook of outcome.hooks) hook();
        job.resolve(outcome.value);
      } else {
        job.reject(outcome.value);
      }
    });
  }

  function flush(): Promise<void> {
    scheduled = false;
    if (flushing) return flushing;
    flushing = (async () => {
      try {
        while (pending.length > 0) {
          const batch = pending.length > maxBatch ? pending.splice(0, maxBatch) : pending.splice(0);
          await runBatch(batch);
        }
      } finally {
        flushing = null;
      }
    })();
    return flushing;
  }

  const store: SqliteStore = {
    dialect: 'sqlite',
    file: options.file,
    location: options.file,
    stats,

    read<T>(fn: (tx: ReadTx) => Promise<T>): Promise<T> {
      if (closed) return Promise.reject(new StoreError('unavailable', 'STORE_CLOSED', 'the store is closed'));
      const run = async (): Promise<T> => {
        readerDb.exec('BEGIN');
        try {
          return await fn(readTx);
        } catch (err) {
          throw toStoreError(err);
        } finally {
          readerDb.exec('COMMIT');
        }
      };
      const p = readQueue.then(run);
      readQueue = p.catch(() => undefined);
      return p;
    },

    write<T>(fn: (tx: WriteTx) => Promise<T>, writeOptions: WriteOptions = {}): Promise<T> {
      if (closed) return Promise.reject(new StoreError('unavailable', 'STORE_CLOSED', 'the store is closed'));
      return new Promise<T>((resolve, reject) => {
        pending.push({
          fn: fn as (tx: WriteTx) => Promise<unknown>,
          durable: writeOptions.durable !== false,
          resolve: resolve as (v: unknown) => void,
          reject,
        });
        if (!scheduled && !flushing) {
          scheduled = true;
          // setImmediate: let every request already read from the sockets join this batch.
          setImmediate(() => void flush());
        }
      });
    },

    startCheckpointer(checkpointOptions = {}) {
      return startCheckpointer(writer, { ...checkpointOptions, nativeBinding: options.nativeBinding });
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await flush();
      await readQueue;
      readerDb.close();
      writer.close();
    },
  };
  return store;
}

