import type { Migration } from './index';
import { PG } from './pg-types';

/**
 * Maintained order counters for orderQueryList (docs/benchmarks.md, "List
 * queries at 1,000,000 orders"):
 *  - order_counts: orders per (merchant, UTC day of createtime, order_type,
 *    status), keyed merchant then day so one merchant's days can be read
 *    newest first, in index order, stopping as soon as enough rows are seen;
 *  - order_totals: orders per (merchant, order_type, status), the total of a
 *    list without a time filter from at most 8 rows.
 * Triggers on `orders` keep both exact in the same transaction as every
 * insert, update and delete, so no service code has to remember them.
 */
const BUMP = (sign: '+' | '-', row: 'NEW' | 'OLD') =>
  sign === '+'
    ? `INSERT INTO order_counts (merchant_id, day, order_type, status, n)
         VALUES (${row}.merchant_id, ${row}.createtime / 86400, ${row}.order_type, ${row}.status, 1)
         ON CONFLICT (merchant_id, day, order_type, status) DO UPDATE SET n = order_counts.n + 1;
       INSERT INTO order_totals (merchant_id, order_type, status, n)
         VALUES (${row}.merchant_id, ${row}.order_type, ${row}.status, 1)
         ON CONFLICT (merchant_id, order_type, status) DO UPDATE SET n = order_totals.n + 1;`
    : `UPDATE order_counts SET n = n - 1
         WHERE merchant_id = ${row}.merchant_id AND day = ${row}.createtime / 86400 AND order_type = ${row}.order_type AND status = ${row}.status;
       UPDATE order_totals SET n = n - 1
         WHERE merchant_id = ${row}.merchant_id AND order_type = ${row}.order_type AND status = ${row}.status;`;

const TABLES = (t: { int: string; text: string }, withoutRowid: string) => `
      CREATE TABLE order_counts (
        merchant_id ${t.int} NOT NULL,
        -- UTC day number: createtime / 86400 (createtime is Unix seconds, never negative).
        day ${t.int} NOT NULL,
        order_type ${t.int} NOT NULL,
        status ${t.text} NOT NULL,
        n ${t.int} NOT NULL CHECK (n >= 0),
        PRIMARY KEY (merchant_id, day, order_type, status)
      )${withoutRowid};

      CREATE TABLE order_totals (
        merchant_id ${t.int} NOT NULL,
        order_type ${t.int} NOT NULL,
        status ${t.text} NOT NULL,
        n ${t.int} NOT NULL CHECK (n >= 0),
        PRIMARY KEY (merchant_id, order_type, status)
      )${withoutRowid};
`;

const FILL = `
      INSERT INTO order_counts (merchant_id, day, order_type, status, n)
      SELECT merchant_id, createtime / 86400, order_type, status, count(*) FROM orders GROUP BY 1, 2, 3, 4;
      INSERT INTO order_totals (merchant_id, order_type, status, n)
      SELECT merchant_id, order_type, status, count(*) FROM orders GROUP BY 1, 2, 3;
`;

/** The counters of every order in the table, filled in one pass (db copy refills them this way on PostgreSQL). */
export const ORDER_COUNTERS_FILL = FILL;

export const migration0004OrderCounts: Migration = {
  version: 4,
  name: 'order_counts and order_totals: list counters kept by triggers',
  schema: {
    sqlite: `${TABLES({ int: 'INTEGER', text: 'TEXT' }, ' WITHOUT ROWID')}
      CREATE TRIGGER orders_count_insert AFTER INSERT ON orders BEGIN
        ${BUMP('+', 'NEW')}
      END;

      CREATE TRIGGER orders_count_delete AFTER DELETE ON orders BEGIN
        ${BUMP('-', 'OLD')}
      END;

      CREATE TRIGGER orders_count_update AFTER UPDATE OF merchant_id, order_type, status, createtime ON orders
      WHEN OLD.merchant_id IS NOT NEW.merchant_id OR OLD.order_type IS NOT NEW.order_type
        OR OLD.status IS NOT NEW.status OR OLD.createtime / 86400 IS NOT NEW.createtime / 86400
      BEGIN
        ${BUMP('-', 'OLD')}
        ${BUMP('+', 'NEW')}
      END;
${FILL}`,
    // The same counters: one row-level trigger function, the same statements.
    postgres: `${TABLES(PG, '')}
      CREATE FUNCTION orders_count_bump() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          ${BUMP('-', 'OLD')}
        END IF;
        IF TG_OP IN ('UPDATE', 'INSERT') THEN
          ${BUMP('+', 'NEW')}
        END IF;
        RETURN NULL;
      END $$;

      CREATE TRIGGER orders_count_insert AFTER INSERT ON orders FOR EACH ROW EXECUTE FUNCTION orders_count_bump();
      CREATE TRIGGER orders_count_delete AFTER DELETE ON orders FOR EACH ROW EXECUTE FUNCTION orders_count_bump();
      CREATE TRIGGER orders_count_update AFTER UPDATE OF merchant_id, order_type, status, createtime ON orders FOR EACH ROW
      WHEN (OLD.merchant_id IS DISTINCT FROM NEW.merchant_id OR OLD.order_type IS DISTINCT FROM NEW.order_type
        OR OLD.status IS DISTINCT FROM NEW.status OR OLD.createtime / 86400 IS DISTINCT FROM NEW.createtime / 86400)
      EXECUTE FUNCTION orders_count_bump();
${FILL}`,
  },
};
