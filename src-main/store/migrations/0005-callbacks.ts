import type { Migration } from './index';
import { PG } from './pg-types';

/**
 * Merchant callbacks: an outbox of deliveries (written in the transaction
 * of the status change they report) and the log of every attempt.
 */
export const migration0005Callbacks: Migration = {
  version: 5,
  name: 'callback outbox and delivery attempts',
  schema: {
    sqlite: `
      CREATE TABLE callback_deliveries (
        id INTEGER PRIMARY KEY,
        order_id INTEGER NOT NULL REFERENCES orders(id),
        merchant_id INTEGER NOT NULL REFERENCES merchants(id),
        -- The order status this delivery reports, and why it exists.
        order_status TEXT NOT NULL,
        trigger TEXT NOT NULL CHECK (trigger IN ('transition', 'resend')),
        -- JSON object of the form fields (strings), without timestamp, nonce and signature (fresh per attempt).
        payload TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER,
        createtime INTEGER NOT NULL,
        updatetime INTEGER NOT NULL,
        CHECK ((state = 'pending') = (next_attempt_at IS NOT NULL))
      );
      CREATE INDEX callback_deliveries_due ON callback_deliveries(next_attempt_at) WHERE state = 'pending';
      CREATE INDEX callback_deliveries_by_order ON callback_deliveries(order_id, id);

      CREATE TABLE callback_attempts (
        id INTEGER PRIMARY KEY,
        delivery_id INTEGER NOT NULL REFERENCES callback_deliveries(id),
        attempt INTEGER NOT NULL,
        url TEXT NOT NULL,
        attempted_at INTEGER NOT NULL,
        http_status INTEGER,
        latency_ms INTEGER NOT NULL,
        response_excerpt TEXT NOT NULL,
        error TEXT,
        acknowledged INTEGER NOT NULL CHECK (acknowledged IN (0, 1)),
        UNIQUE (delivery_id, attempt)
      );
`,
    postgres: `
      CREATE TABLE callback_deliveries (
        id ${PG.id},
        order_id ${PG.int} NOT NULL REFERENCES orders(id),
        merchant_id ${PG.int} NOT NULL REFERENCES merchants(id),
        -- The order status this delivery reports, and why it exists.
        order_status ${PG.text} NOT NULL,
        trigger ${PG.text} NOT NULL CHECK (trigger IN ('transition', 'resend')),
        -- JSON object of the form fields (strings), without timestamp, nonce and signature (fresh per attempt).
        payload ${PG.text} NOT NULL,
        state ${PG.text} NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
        attempts ${PG.int} NOT NULL DEFAULT 0,
        next_attempt_at ${PG.int},
        createtime ${PG.int} NOT NULL,
        updatetime ${PG.int} NOT NULL,
        CHECK ((state = 'pending') = (next_attempt_at IS NOT NULL))
      );
      CREATE INDEX callback_deliveries_due ON callback_deliveries(next_attempt_at) WHERE state = 'pending';
      CREATE INDEX callback_deliveries_by_order ON callback_deliveries(order_id, id);

      CREATE TABLE callback_attempts (
        id ${PG.id},
        delivery_id ${PG.int} NOT NULL REFERENCES callback_deliveries(id),
        attempt ${PG.int} NOT NULL,
        url ${PG.text} NOT NULL,
        attempted_at ${PG.int} NOT NULL,
        http_status ${PG.int},
        latency_ms ${PG.int} NOT NULL,
        response_excerpt ${PG.text} NOT NULL,
        error ${PG.text},
        acknowledged ${PG.int} NOT NULL CHECK (acknowledged IN (0, 1)),
        UNIQUE (delivery_id, attempt)
      );
`,
  },
};
