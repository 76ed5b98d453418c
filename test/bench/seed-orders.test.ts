/**
 * The benchmark seeder writes what the services would: a consistent ledger,
 * transitions that follow the state machine, counters equal to the rows,
 * orders visible through the real merchant API, and the same data for the
 * same seed.
 */
import { describe, expect, it } from 'vitest';
import { isLegalTransition } from '../../src-shared/order-state-machine';
import { openService } from '../../src-main/service';
import { seedBenchDatabase } from '../../bench/seed-orders';
import { clientFor, testListener } from '../support/service-harness';
import { tempDir } from '../support/temp-dir';

const NOW = 1_795_000_000;

function seed(dataDir: string) {
  return seedBenchDatabase({ dataDir, orders: 3000, merchants: 3, days: 5, seed: 7, now: NOW });
}

describe('bench seeder', () => {
  it('seeds orders with a consistent ledger, legal transitions and exact counters', async () => {
    const dataDir = tempDir();
    const manifest = seed(dataDir);
    const service = openService({ dataDir, clock: { now: () => NOW } });
    try {
      const { db } = service;
      const one = <T>(sql: string) => db.prepare(sql).get() as T;
      expect(one<{ n: number }>('SELECT count(*) AS n FROM orders').n).toBe(3000);
      const range = one<{ lo: number; hi: number }>('SELECT min(createtime) AS lo, max(updatetime) AS hi FROM orders');
      expect(range.lo).toBeGreaterThanOrEqual(NOW - 5 * 86_400);
      expect(range.hi).toBeLessThanOrEqual(NOW);
      expect(service.services.ledger.audit()).toEqual([]);
      expect(db.prepare('PRAGMA foreign_key_check').all()).toEqual([]);
      // Every transition is one the state machine allows, and the last one is the order's status.
      const transitions = db
        .prepare('SELECT o.order_type, t.from_status, t.to_status FROM order_transitions t JOIN orders o ON o.id = t.order_id')
        .all() as { order_type: 1 | 2; from_status: 'pending'; to_status: 'paid' }[];
      expect(transitions.length).toBeGreaterThan(2000);
      expect(transitions.every((t) => isLegalTransition(t.order_type, t.from_status, t.to_status))).toBe(true);
      const mismatched = one<{ n: number }>(`
        SELECT count(*) AS n FROM orders o WHERE o.status <> coalesce(
          (SELECT to_status FROM order_transitions t WHERE t.order_id = o.id ORDER BY t.createtime DESC, t.id DESC LIMIT 1), 'pending')`);
      expect(mismatched.n).toBe(0);
      // Sells reserve at creation; paid-out and cancelled sells moved the reservation on.
      const frozen = one<{ n: number }>("SELECT coalesce(sum(merchant_actual_amount), 0) AS n FROM orders WHERE order_type = 2 AND status IN ('pending', 'confirmed')");
      expect(one<{ n: number }>('SELECT sum(frozen) AS n FROM merchant_balances').n).toBe(frozen.n);
      // Counters equal the rows.
      const counters = db.prepare('SELECT merchant_id, order_type, status, sum(n) AS n FROM order_counts GROUP BY 1, 2, 3 HAVING sum(n) > 0 ORDER BY 1, 2, 3').all();
      const actual = db.prepare('SELECT merchant_id, order_type, status, count(*) AS n FROM orders GROUP BY 1, 2, 3 ORDER BY 1, 2, 3').all();
      expect(counters).toEqual(actual);

      // The seeded merchants work through the real API and see their own orders.
      const listener = await testListener(service);
      const m = manifest.merchant_credentials[0]!;
      const client = clientFor(listener, { id: m.id, apiKey: m.api_key, apiSecret: m.api_secret, channels: m.channels }, { now: () => NOW });
      const list = await client.orderQueryList({ page: 2, limit: 50 });
      expect(list.body.code).toBe(1);
      expect(list.body.data!.total).toBe(one<{ n: number }>(`SELECT count(*) AS n FROM orders WHERE merchant_id = ${m.id}`).n);
      const sample = manifest.sample_orders[String(m.id)]![0]!;
      expect((await client.orderQueryDetail(sample)).body.data?.order_no).toBe(sample);
    } finally {
      service.close();
    }
  });

  it('writes the same orders for the same seed', () => {
    const rows = (dataDir: string) => {
      seed(dataDir);
      const service = openService({ dataDir });
      try {
        return service.db.prepare('SELECT order_no, merchant_id, order_type, status, cny_amount, createtime, updatetime FROM orders ORDER BY id').all();
      } finally {
        service.close();
      }
    };
    const a = rows(tempDir());
    const b = rows(tempDir());
    expect(a).toHaveLength(3000);
    expect(b).toEqual(a);
  });
});
