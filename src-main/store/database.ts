/**
 * Opens the SQLite store: WAL, synchronous=FULL (a commit is on disk before
 * it returns, so an acknowledged order survives a crash of the process and of
 * the machine), foreign keys on, migrations applied.
 */
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { MIGRATIONS, LATEST_SCHEMA_VERSION, type Migration } from './migrations/index';

export type { Database };

export interface OpenDatabaseOptions {
  /** Apply migrations up to this version only (tests of older versions). */
  targetVersion?: number;
  /** Native binding path (the Electron build of better-sqlite3). */
  nativeBinding?: string;
  readonly?: boolean;
}

export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Database {
  const db = new BetterSqlite3(file, {
    readonly: options.readonly ?? false,
    ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}),
  });
  try {
    db.pragma('busy_timeout = 5000');
    // 32 MiB of page cache instead of SQLite's 2 MiB: the hot end of the order
    // indexes and recent rows of every merchant stay in memory, where a list
    // request otherwise rereads them from the OS (docs/benchmarks.md). Grows
    // only as pages are read; idle memory is unchanged.
    db.pragma('cache_size = -32768');
    if (!options.readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
    }
    db.pragma('foreign_keys = ON');
    if (!options.readonly) migrate(db, MIGRATIONS, options.targetVersion ?? LATEST_SCHEMA_VERSION);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

export function schemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

export class SchemaTooNewError extends Error {
  constructor(found: number, known: number) {
    super(`the database is at schema version ${found}, newer than this program knows (${known}); upgrade merchant-console`);
    this.name = 'SchemaTooNewError';
  }
}

/** Applies every migration above the file's version, each in its own transaction. */
export function migrate(db: Database, migrations: readonly Migration[], targetVersion: number): void {
  const current = schemaVersion(db);
  const known = migrations[migrations.length - 1]?.version ?? 0;
  if (current > known) throw new SchemaTooNewError(current, known);
  for (const m of migrations) {
    if (m.version <= current || m.version > targetVersion) continue;
    db.transaction(() => {
      m.up(db);
      db.pragma(`user_version = ${m.version}`);
    }).immediate();
  }
}
