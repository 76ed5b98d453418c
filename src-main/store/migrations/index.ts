/**
 * Forward-only schema migrations, one versioned list for both engines. A
 * migration is never edited once landed; change the schema by appending the
 * next version. Each gives its DDL per engine (the same tables, columns and
 * indexes; PostgreSQL spells the types its way; one exception, SQLite's
 * nonces filed by bucket, 0012) and, optionally, data
 * changes in SQL both engines run. SQLite keeps the version in
 * `PRAGMA user_version`, PostgreSQL in `schema_migrations`.
 */
import type { WriteTx } from '../store';
import { migration0001Initial } from './0001-initial';
import { migration0002Console } from './0002-console';
import { migration0003LedgerLifecycle } from './0003-ledger-lifecycle';
import { migration0004OrderCounts } from './0004-order-counts';
import { migration0005Callbacks } from './0005-callbacks';
import { migration0006Idempotency } from './0006-idempotency';
import { migration0007OrderCountIndexes } from './0007-order-count-indexes';
import { migration0008WorkClaims } from './0008-work-claims';
import { migration0009AccountsApprovalsAudit } from './0009-accounts-approvals-audit';
import { migration0010RowGeneration } from './0010-row-generation';
import { migration0011RowGenerationPostgres } from './0011-row-generation-postgres';
import { migration0012NonceBuckets } from './0012-nonce-buckets';

export interface Migration {
  version: number;
  name: string;
  schema: { sqlite: string; postgres: string };
  /** Data changes after the schema, in the same transaction. */
  data?(tx: WriteTx): Promise<void>;
  /**
   * SQLite: the DDL rebuilds a table (SQLite cannot change a CHECK in place):
   * run with foreign keys off, and check them before the commit (SQLite's
   * documented procedure for other kinds of table schema changes). A
   * rebuild of merchants, merchant_channels or channels drops their
   * row-generation triggers: create them again (0010's
   * `rowGenerationTriggersSql`); the store refuses to open without them.
   */
  sqliteRebuildsTables?: boolean;
}

export const MIGRATIONS: readonly Migration[] = [
  migration0001Initial,
  migration0002Console,
  migration0003LedgerLifecycle,
  migration0004OrderCounts,
  migration0005Callbacks,
  migration0006Idempotency,
  migration0007OrderCountIndexes,
  migration0008WorkClaims,
  migration0009AccountsApprovalsAudit,
  migration0010RowGeneration,
  migration0011RowGenerationPostgres,
  migration0012NonceBuckets,
];

export const LATEST_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

export class SchemaTooNewError extends Error {
  constructor(found: number, known: number) {
    super(`the database is at schema version ${found}, newer than this program knows (${known}); upgrade merchant-console`);
    this.name = 'SchemaTooNewError';
  }
}
