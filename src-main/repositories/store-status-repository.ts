import type { ReadTx } from '../store/store';

/** What `db status` shows of a store (monitoring, docs/deployment.md). */
export function createStoreStatusRepository() {
  return {
    /** The schema version the store is migrated to (store/migrations). */
    async schemaVersion(tx: ReadTx): Promise<number> {
      if (tx.dialect === 'postgres') return (await tx.get<{ v: number }>('SELECT max(version) AS v FROM schema_migrations'))!.v;
      return (await tx.get<{ user_version: number }>('PRAGMA user_version'))!.user_version;
    },
    async merchantCount(tx: ReadTx): Promise<number> {
      return (await tx.get<{ n: number }>('SELECT count(*) AS n FROM merchants'))!.n;
    },
    /** Every order, from the list counters (no scan of the orders). */
    async orderCount(tx: ReadTx): Promise<number> {
      return (await tx.get<{ n: number }>('SELECT coalesce(sum(n), 0) AS n FROM order_totals'))!.n;
    },
  };
}
export type StoreStatusRepository = ReturnType<typeof createStoreStatusRepository>;
