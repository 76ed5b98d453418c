/**
 * Forward-only schema migrations. A migration is never edited once landed;
 * change the schema by appending the next version. `PRAGMA user_version`
 * holds the version a database file is at.
 */
import type { Database } from 'better-sqlite3';
import { migration0001Initial } from './0001-initial';
import { migration0002Console } from './0002-console';
import { migration0003LedgerLifecycle } from './0003-ledger-lifecycle';
import { migration0004OrderCounts } from './0004-order-counts';
import { migration0005Callbacks } from './0005-callbacks';
import { migration0006Idempotency } from './0006-idempotency';
import { migration0007OrderCountIndexes } from './0007-order-count-indexes';

export interface Migration {
  version: number;
  name: string;
  up(db: Database): void;
}

export const MIGRATIONS: readonly Migration[] = [
  migration0001Initial,
  migration0002Console,
  migration0003LedgerLifecycle,
  migration0004OrderCounts,
  migration0005Callbacks,
  migration0006Idempotency,
  migration0007OrderCountIndexes,
];

export const LATEST_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
