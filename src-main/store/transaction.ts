import type { Database } from 'better-sqlite3';

/**
 * Runs fn atomically. Nested (inside the write queue's job or another
 * transaction) it is a savepoint; at top level it is BEGIN IMMEDIATE, which
 * takes the write lock before reading, so a CLI process writing next to a
 * running `serve` waits for its turn (busy_timeout) instead of failing on a
 * stale read snapshot.
 */
export function writeTransaction<T>(db: Database, fn: () => T): T {
  return db.transaction(fn).immediate();
}
