import { createHash } from 'node:crypto';
import type { WriteTx } from '../store/store';

/** A 63-bit key per name for PostgreSQL's advisory locks. */
function lockKey(name: string): string {
  return BigInt.asIntN(64, BigInt('0x' + createHash('sha256').update(`merchant-console:${name}`).digest('hex').slice(0, 16))).toString();
}

/**
 * Work only one instance of a team deployment should do at a time (purges):
 * a transaction-scoped advisory lock on PostgreSQL, taken or not, never
 * waited for. SQLite has one writer per data dir: always granted.
 */
export function createClusterLockRepository() {
  return {
    async tryLock(tx: WriteTx, name: string): Promise<boolean> {
      if (tx.dialect === 'sqlite') return true;
      const row = await tx.get<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock(?::bigint) AS locked', [lockKey(name)]);
      return row?.locked === true;
    },
  };
}
export type ClusterLockRepository = ReturnType<typeof createClusterLockRepository>;
