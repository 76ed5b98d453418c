import type { Database } from 'better-sqlite3';

export interface IdempotencyRow {
  merchant_id: number;
  idem_key: string;
  request_hash: string;
  response: string;
  order_id: number | null;
  createtime: number;
  expires_at: number;
}

export function createIdempotencyRepository(db: Database) {
  const find = db.prepare<[number, string], IdempotencyRow>('SELECT * FROM idempotency_keys WHERE merchant_id = ? AND idem_key = ?');
  // An expired key is replaced as if it were absent.
  const put = db.prepare<IdempotencyRow>(
    `INSERT OR REPLACE INTO idempotency_keys (merchant_id, idem_key, request_hash, response, order_id, createtime, expires_at)
     VALUES (@merchant_id, @idem_key, @request_hash, @response, @order_id, @createtime, @expires_at)`,
  );
  const purge = db.prepare<[number]>('DELETE FROM idempotency_keys WHERE expires_at <= ?');
  return {
    find(merchantId: number, key: string): IdempotencyRow | undefined {
      return find.get(merchantId, key);
    },
    put(row: IdempotencyRow): void {
      put.run(row);
    },
    purgeExpired(now: number): number {
      return purge.run(now).changes;
    },
  };
}
export type IdempotencyRepository = ReturnType<typeof createIdempotencyRepository>;
