/**
 * The store API: the only way services reach the database. A Store runs
 * units of work (`read`, `write`); each gets a transaction handle (`ReadTx`,
 * `WriteTx`) that repositories run their SQL on. Every transaction policy —
 * snapshot reads, group commit and savepoints (SQLite), connection pooling and
 * retries (PostgreSQL), durability — lives in the engines behind this
 * interface (store/sqlite, store/postgres); services and repositories never
 * see a driver.
 *
 * SQL is written once with `@name` (object) or `?` (array) placeholders; the
 * PostgreSQL engine rewrites them to `$n`. Where the dialects differ, a
 * repository picks its text by `tx.dialect`.
 */

export type Dialect = 'sqlite' | 'postgres';

/** An object for `@name` placeholders (its other members are ignored), an array for `?`. */
export type SqlParams = object;

/** What a read unit of work may do. */
export interface ReadTx {
  readonly dialect: Dialect;
  /** Every row of a query. */
  all<R>(sql: string, params?: SqlParams): Promise<R[]>;
  /** The first row of a query, or undefined. */
  get<R>(sql: string, params?: SqlParams): Promise<R | undefined>;
}

/** What a write unit of work may do on top. */
export interface WriteTx extends ReadTx {
  /** Runs a statement; resolves with the number of rows it changed. */
  run(sql: string, params?: SqlParams): Promise<number>;
  /**
   * Runs fn in a savepoint: when fn throws, only its writes are undone and
   * the error is rethrown; the unit of work goes on.
   */
  savepoint<T>(fn: (tx: WriteTx) => Promise<T>): Promise<T>;
  /** Runs fn once this unit of work has committed durably (never when it rolls back). */
  afterCommit(fn: () => void): void;
  /**
   * SQLite, a unit of `writeAlone` only (else undefined): what such a unit
   * established on the writer's rows, kept for the later units of
   * `writeAlone` in the same transaction. SQLite runs a batch of units in one
   * transaction under its write lock, so no other connection changes a row
   * meanwhile; the store empties the map when a transaction begins and
   * before every unit of `write` in it, which may change anything. A fact
   * kept here therefore holds as long as the units of `writeAlone` change
   * nothing it is about: they only add rows of their own (a nonce, an order),
   * and must stay so. (The row generation, orders.*WithNonceIfCurrent.)
   */
  readonly aloneFacts?: Map<string, unknown> | undefined;
}

/** A schema change runs multi-statement DDL too. */
export interface MigrationTx extends WriteTx {
  exec(sql: string): Promise<void>;
}

export interface WriteOptions {
  /**
   * false: the commit may skip its own flush to disk (a read's nonce,
   * docs/decisions.md). It is atomic and survives a crash of the process; an
   * OS crash or power cut before the next durable commit may forget it.
   */
  durable?: boolean;
  /**
   * fn writes with one statement, its last: every statement before it reads,
   * and nothing after it fails. SQLite then runs the unit without a
   * savepoint of its own (two statements fewer per unit): a unit that fails
   * before its write wrote nothing, and a statement that fails leaves
   * nothing (SQLite's default ABORT; not so for a statement of several rows
   * with OR FAIL or RAISE(FAIL), which such a unit must not use). A
   * statement after the write is refused, and a unit that fails after
   * writing cannot be undone alone: its whole batch is rolled back, the unit
   * gets its own error and every other unit of the batch a storage error
   * (BATCH_ABORTED), like a batch whose commit failed. PostgreSQL: no
   * effect (its `writeAlone` is one statement anyway).
   */
  writesLast?: boolean;
  /**
   * Only with `writesLast` and `durable: false` (a read's nonce). SQLite:
   * the unit waits for no WAL sync. Its reads see only what is durable: the
   * writer's rows while no sync is under way and no durable unit ran before
   * it in its batch (it is answered at its batch's commit, before that
   * batch's sync), else the reader's snapshot, the one pinned for the sync
   * under way or the latest (it is answered as soon as its write has run,
   * before its batch commits; a unique key already refuses a second). Its
   * write is then forgotten if that batch rolls back or the process ends
   * before the commit (docs/decisions.md, "Reads during a WAL sync").
   * PostgreSQL: no effect.
   */
  fromDurableSnapshot?: boolean;
}

export interface ReadOptions {
  /**
   * A read of work the service does on its own (its timers: due work,
   * deliveries), which no client waits for. SQLite: it does not make the
   * store keep the last durable state for reads during WAL syncs (a
   * snapshot pinned at every durable commit, which costs every commit and
   * keeps the WAL from starting over); during a sync it waits for the sync
   * instead (docs/decisions.md, "Reads during a WAL sync"). What it reads
   * is the same. PostgreSQL: no effect.
   */
  background?: boolean;
}

export interface StoreStats {
  /** Units of work committed, and commits that carried them (SQLite: group commit makes these differ). */
  writes: number;
  commits: number;
  largestBatch: number;
  relaxedCommits: number;
  /** Units of work of `writeAlone` (PostgreSQL: one statement each, without BEGIN and COMMIT). */
  alone: number;
}

export interface Store {
  readonly dialect: Dialect;
  /** Where the data lives, for messages (a file path, or host/database; never a password). */
  readonly location: string;
  /** A consistent read-only snapshot for the whole of fn. */
  read<T>(fn: (tx: ReadTx) => Promise<T>, options?: ReadOptions): Promise<T>;
  /**
   * Runs fn atomically and resolves once its commit is durable (unless
   * `durable: false`). A throw rolls back everything fn wrote.
   * fn must only do database work through tx: no network calls, no timers,
   * and never another unit of work (that would wait on itself).
   */
  write<T>(fn: (tx: WriteTx) => Promise<T>, options?: WriteOptions): Promise<T>;
  /**
   * A unit of work the engine runs at its least cost (docs/decisions.md,
   * "Hot path"). PostgreSQL: exactly one statement, on its own, without
   * BEGIN and COMMIT (the statement's implicit transaction, one round trip);
   * fn starts one statement on tx and nothing else (a second, or a
   * savepoint, is refused): once it has succeeded it is committed, whatever
   * fn does next. SQLite: a unit of the next batch, like `write` (its
   * savepoint keeps its statements atomic, so the repositories' SQLite
   * branches may take several, without a savepoint of their own; or, with
   * `writesLast`, no savepoint at all), which shares `tx.aloneFacts` with the
   * batch's other units of `writeAlone`: fn must not change a row that a
   * fact kept there is about (WriteTx.aloneFacts).
   * `durable` as for `write`.
   */
  writeAlone<T>(fn: (tx: WriteTx) => Promise<T>, options?: WriteOptions): Promise<T>;
  readonly stats: StoreStats;
  /** Waits for units of work under way, then closes every connection. */
  close(): Promise<void>;
}

/** Why a statement failed, independent of the engine. */
export type StoreErrorKind =
  | 'unique'
  | 'foreign-key'
  | 'check'
  | 'not-null'
  | 'serialization'
  | 'storage'
  | 'unavailable'
  | 'other';

/**
 * A driver error as the store reports it. `code` keeps the driver's own
 * code (SQLITE_FULL, 23505…) for messages; `kind` is what code may decide on.
 */
export class StoreError extends Error {
  constructor(
    readonly kind: StoreErrorKind,
    readonly code: string,
    message: string,
    readonly constraint?: string,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

/** tx limited to one statement: what PostgreSQL's `writeAlone` gives fn. */
export function oneStatement(tx: WriteTx): WriteTx {
  let started = false;
  const once = (): void => {
    if (started) throw new StoreError('other', 'ONE_STATEMENT', 'a unit of work of one statement started a second');
    started = true;
  };
  return {
    dialect: tx.dialect,
    async all<R>(sql: string, params?: SqlParams): Promise<R[]> {
      once();
      return tx.all<R>(sql, params);
    },
    async get<R>(sql: string, params?: SqlParams): Promise<R | undefined> {
      once();
      return tx.get<R>(sql, params);
    },
    async run(sql: string, params?: SqlParams): Promise<number> {
      once();
      return tx.run(sql, params);
    },
    savepoint(): Promise<never> {
      return Promise.reject(new StoreError('other', 'ONE_STATEMENT', 'a unit of work of one statement has no savepoints'));
    },
    afterCommit(fn: () => void): void {
      tx.afterCommit(fn);
    },
  };
}

export function isUniqueViolation(err: unknown): boolean {
  return err instanceof StoreError && err.kind === 'unique';
}
