/**
 * What `db status` reports of a SQLite store (PostgreSQL:
 * test/src-main/store/postgres/serve-postgres.test.ts): the schema version,
 * merchants and orders from the repository, the backlog from the service.
 */
import { describe, expect, it } from 'vitest';
import { createStoreStatusRepository } from '../../../src-main/repositories/store-status-repository';
import { LATEST_SCHEMA_VERSION } from '../../../src-main/store/migrations/index';
import { cli } from '../../support/cli-harness';
import { newBuy, newSell } from '../../support/money';
import { seedMerchant, testService } from '../../support/service-harness';
import { tempDir } from '../../support/temp-dir';

describe('db status', () => {
  it('reports the schema version, merchants, orders and the work waiting', async () => {
    const dataDir = tempDir();
    const service = await testService({ dataDir });
    const status = createStoreStatusRepository();
    expect(await service.store.read(async (tx) => [await status.schemaVersion(tx), await status.merchantCount(tx), await status.orderCount(tx)])).toEqual([
      LATEST_SCHEMA_VERSION,
      0,
      0,
    ]);
    const m = await seedMerchant(service, 'M', { balance: 100_000 });
    await newBuy(service, m);
    await newBuy(service, m);
    await newSell(service, m);
    await service.close();

    const shown = await cli(['db', 'status', '--json', '--data-dir', dataDir]);
    expect(shown.code).toBe(0);
    expect(shown.json()).toMatchObject({
      engine: 'sqlite',
      schema_version: LATEST_SCHEMA_VERSION,
      merchants: 1,
      orders: 3,
      // The sell's hand-over to its channel (buys expire by a sweep, not a job).
      backlog: { order_jobs: 1, order_jobs_due: 1, callbacks_pending: 0 },
    });
    const human = await cli(['db', 'status', '--data-dir', dataDir]);
    expect(human.stdout.split('\n').slice(0, 2)).toEqual([`sqlite store ${dataDir}/merchant-console.sqlite, schema version ${LATEST_SCHEMA_VERSION}`, '  1 merchants, 3 orders']);
  });
});
