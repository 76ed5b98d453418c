import type { Migration } from './index';
import { PG } from './pg-types';

/** createOrder's Idempotency-Key: the first answer per (merchant, key), replayed for 24 h. */
export const migration0006Idempotency: Migration = {
  version: 6,
  name: 'idempotency keys of createOrder',
  schema: {
    sqlite: `
      CREATE TABLE idempotency_keys (
        merchant_id INTEGER NOT NULL REFERENCES merchants(id),
        idem_key TEXT NOT NULL,
        -- SHA-256 of the request's canonical parameters without timestamp, nonce and signature.
        request_hash TEXT NOT NULL,
        -- The envelope first answered, as JSON.
        response TEXT NOT NULL,
        order_id INTEGER REFERENCES orders(id),
        createtime INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (merchant_id, idem_key)
      ) WITHOUT ROWID;
      CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys(expires_at);
`,
    postgres: `
      CREATE TABLE idempotency_keys (
        merchant_id ${PG.int} NOT NULL REFERENCES merchants(id),
        idem_key ${PG.text} NOT NULL,
        -- SHA-256 of the request's canonical parameters without timestamp, nonce and signature.
        request_hash ${PG.text} NOT NULL,
        -- The envelope first answered, as JSON.
        response ${PG.text} NOT NULL,
        order_id ${PG.int} REFERENCES orders(id),
        createtime ${PG.int} NOT NULL,
        expires_at ${PG.int} NOT NULL,
        PRIMARY KEY (merchant_id, idem_key)
      );
      CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys(expires_at);
`,
  },
};
