import type { Migration } from './index';

/**
 * SQLite: the four list indexes of 0001 carry the other columns a list shows
 * (ORDER_SUMMARY_COLUMNS: the order's number, amounts, service rate and fee,
 * status or type, updatetime) after their keys, so a page of the merchant
 * API's orderQueryList, the dashboard's day buckets and an order-number walk
 * read the index alone, never the table.
 *
 * Why: a merchant's orders of one hour sit in the table among every other
 * merchant's, one to a table page, so a page of 20 rows read 20 table pages
 * besides the index. When those pages are not in memory (a list at a random
 * time; a machine whose kernel dropped them) SQLite reads each from the disk
 * on the event loop's thread: 0.9–1.1 ms for such a page of 20 rows on a
 * copy of 1,000,000 orders out of the page cache, 0.15–0.2 ms from the
 * covering index, and 170 against 90 µs in the page cache (docs/benchmarks.md,
 * "Lists from the index alone"). The cost: the file is about a fifth larger
 * (1.02 → 1.23 GB at 1,000,000 orders), a status change rewrites the entry
 * in all four indexes (updatetime is in each), and upgrading a database
 * rebuilds the four indexes once (12.6 s at 1,000,000 orders on the bench machine).
 *
 * The names stay: statements name orders_m_time (INDEXED BY). The keys are
 * 0001's, so every plan that used an index uses the same one.
 *
 * PostgreSQL: nothing. An index-only scan there needs the heap page marked
 * all-visible by a vacuum, which the newest rows (page 1) are not yet, and
 * its reads do not hold the service's event loop (docs/decisions.md).
 */
export const migration0012OrderListCoveringIndexes: Migration = {
  version: 12,
  name: 'SQLite: the list indexes of orders cover the listed columns',
  schema: {
    sqlite: `
      DROP INDEX orders_m_time;
      DROP INDEX orders_m_status_time;
      DROP INDEX orders_m_type_time;
      DROP INDEX orders_m_type_status_time;
      CREATE INDEX orders_m_time ON orders(merchant_id, createtime, id,
        order_type, status, order_no, cny_amount, merchant_actual_amount, service_rate, service_amount, updatetime);
      CREATE INDEX orders_m_status_time ON orders(merchant_id, status, createtime, id,
        order_type, order_no, cny_amount, merchant_actual_amount, service_rate, service_amount, updatetime);
      CREATE INDEX orders_m_type_time ON orders(merchant_id, order_type, createtime, id,
        status, order_no, cny_amount, merchant_actual_amount, service_rate, service_amount, updatetime);
      CREATE INDEX orders_m_type_status_time ON orders(merchant_id, order_type, status, createtime, id,
        order_no, cny_amount, merchant_actual_amount, service_rate, service_amount, updatetime);
`,
    postgres: '-- nothing: see the comment above',
  },
};
