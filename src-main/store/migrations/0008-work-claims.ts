import type { Migration } from './index';
import { PG } from './pg-types';

/**
 * Team deployments (docs/deployment.md): several `serve` instances share one
 * database, so background work is claimed before it runs. A claim names the
 * instance and lasts until `claimed_until`; a claim whose instance died runs
 * out and the work is picked up again (at least once per attempt). A buy
 * order keeps the pay URL its channel driver returned (where the payer goes),
 * so every instance answers with the same one.
 */
const SQL = (t: { int: string; text: string }) => `
      ALTER TABLE order_jobs ADD COLUMN claimed_by ${t.text};
      ALTER TABLE order_jobs ADD COLUMN claimed_until ${t.int};
      ALTER TABLE callback_deliveries ADD COLUMN claimed_by ${t.text};
      ALTER TABLE callback_deliveries ADD COLUMN claimed_until ${t.int};
      ALTER TABLE orders ADD COLUMN pay_url ${t.text};
`;

export const migration0008WorkClaims: Migration = {
  version: 8,
  name: 'team deployments: claims on order jobs and callback deliveries, stored pay URL',
  schema: {
    sqlite: SQL({ int: 'INTEGER', text: 'TEXT' }),
    postgres: SQL(PG),
  },
};
