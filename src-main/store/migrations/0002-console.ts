import type { Migration } from './index';
import { PG } from './pg-types';

export const migration0002Console: Migration = {
  version: 2,
  name: 'console: order-number index, console login tokens and sessions',
  schema: {
    sqlite: `
      -- Order-number search in the console (exact or prefix) for one merchant:
      -- a range scan on this index, never a scan of the merchant's orders.
      CREATE INDEX orders_m_no ON orders(merchant_id, order_no);

      -- Console access (browser transport). Only SHA-256 hashes of the secret
      -- parts are stored; the id is the public half used for the lookup, the
      -- hash is then compared in constant time.
      CREATE TABLE console_login_tokens (
        id TEXT PRIMARY KEY,
        secret_hash BLOB NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) WITHOUT ROWID;

      CREATE TABLE console_sessions (
        id TEXT PRIMARY KEY,
        secret_hash BLOB NOT NULL,
        created_at INTEGER NOT NULL,
        last_seen_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) WITHOUT ROWID;
`,
    postgres: `
      -- Order-number search in the console (exact or prefix) for one merchant:
      -- a range scan on this index, never a scan of the merchant's orders.
      CREATE INDEX orders_m_no ON orders(merchant_id, order_no);

      -- Console access (browser transport). Only SHA-256 hashes of the secret
      -- parts are stored; the id is the public half used for the lookup, the
      -- hash is then compared in constant time.
      CREATE TABLE console_login_tokens (
        id ${PG.text} PRIMARY KEY,
        secret_hash ${PG.blob} NOT NULL,
        created_at ${PG.int} NOT NULL,
        expires_at ${PG.int} NOT NULL
      );

      CREATE TABLE console_sessions (
        id ${PG.text} PRIMARY KEY,
        secret_hash ${PG.blob} NOT NULL,
        created_at ${PG.int} NOT NULL,
        last_seen_at ${PG.int} NOT NULL,
        expires_at ${PG.int} NOT NULL
      );
`,
  },
};
