import type { Migration } from './index';

/**
 * Indexes that let a list filtered by order_type and/or status read exactly
 * its own per-day counter rows (0004 keys them merchant, day, type, status,
 * so a filtered range read every row of every day and dropped most). Each
 * ends in `n`, so the day sums never touch the table.
 */
export const migration0007OrderCountIndexes: Migration = {
  version: 7,
  name: 'order_counts: covering indexes per filter (type, status, type + status)',
  schema: {
    sqlite: `
      CREATE INDEX order_counts_by_type ON order_counts(merchant_id, order_type, day, n);
      CREATE INDEX order_counts_by_status ON order_counts(merchant_id, status, day, n);
      CREATE INDEX order_counts_by_type_status ON order_counts(merchant_id, order_type, status, day, n);
`,
    postgres: `
      CREATE INDEX order_counts_by_type ON order_counts(merchant_id, order_type, day, n);
      CREATE INDEX order_counts_by_status ON order_counts(merchant_id, status, day, n);
      CREATE INDEX order_counts_by_type_status ON order_counts(merchant_id, order_type, status, day, n);
`,
  },
};
