/**
 * The benchmark seeder writes what the services would: a consistent ledger,
 * transitions that follow the state machine, counters equal to the rows,
 * orders visible through the real merchant API, and the same data for the
 * same seed.
 */
import { describe, expect, it } from 'vitest';
import { isLegalTransition } from '../../src-shared/order-state-machine';
import { seedBenchDatabase } from '../../bench/seed-orders';
import { clientFor, read, testListener, testService } from '../support/service-harness';
import { tempDir } from '../support/temp-dir';

const NOW = 1_795_000_000;

function seed(dataDir: string) {
  return seedBenchDatabase({ dataDir, orders: 3000, merchants: 3, days: 5, seed: 7, now: NOW });
}

describe('bench seeder', () => {
  it('seeds orders with a consistent ledger, legal transitions and exact counters', async () => {
    const dataDir = tempDir();
    const manifest = await seed(dataDir);
    const service = await testService({ dataDir, clock: { now: () => NOW } });
    const all = <T>(sql: string) => read(service, (tx) => tx.all<T>(sql));
    const one = async <T>(sql: string) => (await read(service, (tx) => tx.get<T>(sql)))!;
    expect((await one<{ n: number }>('SELECT count(*) AS n FROM orders')).n).toBe(3000);
    const range = await one<{ lo: number; hi: number }>('SELECT min(createtime) AS lo, max(updatetime) AS hi FROM orders');
    expect(range.lo).toBeGreaterThanOrEqual(NOW - 5 * 86_400);
    expect(range.hi).toBeLessThanOrEqual(NOW);
    expect(await read(service, (tx) => service.services.ledger.audit(tx))).toEqual([]);
    expect(await all('PRAGMA foreign_key_check')).toEqual([]);
    // Every transition is one the state machine allows, and the last one is the order's status.
    const transitions = await all<{ order_type: 1 | 2; from_status: 'pending'; to_status: 'paid' }>(
      'SELECT o.order_type, t.from_status, t.to_status FROM order_transitions t JOIN orders o ON o.id = t.order_id',
    );
    expect(transitions.length).toBeGreaterThan(2000);
    expect(transitions.every((t) => isLegalTransition(t.order_type, t.from_status, t.to_status))).toBe(true);
    const mismatched = await one<{ n: number }>(`
      SELECT count(*) AS n FROM orders o WHERE o.status <> coalesce(
        (SELECT to_status FROM order_transitions t WHERE t.order_id = o.id ORDER BY t.createtime DESC, t.id DESC LIMIT 1), 'pending')`);
    expect(mismatched.n).toBe(0);
    // Sells reserve at creation; paid-out and cancelled sells moved the reservation on.
    const frozen = await one<{ n: number }>("SELECT coalesce(sum(merchant_actual_amount), 0) AS n FROM orders WHERE order_type = 2 AND status IN ('pending', 'confirmed')");
    expect((await one<{ n: number }>('SELECT sum(frozen) AS n FROM merchant_balances')).n).toBe(frozen.n);
    // Counters equal the rows.
    const counters = await all('SELECT merchant_id, order_type, status, sum(n) AS n FROM order_counts GROUP BY 1, 2, 3 HAVING sum(n) > 0 ORDER BY 1, 2, 3');
    const actual = await all('SELECT merchant_id, order_type, status, count(*) AS n FROM orders GROUP BY 1, 2, 3 ORDER BY 1, 2, 3');
    expect(counters).toEqual(actual);
    // Buys carry the pay URL createOrder would have stored (their token's checkout page); sells none.
    const payUrls = await all<{ order_type: 1 | 2; pay_token: string | null; pay_url: string | null }>('SELECT order_type, pay_token, pay_url FROM orders');
    expect(payUrls.filter((o) => (o.order_type === 1 ? o.pay_url !== `http://127.0.0.1:8787/pay/${o.pay_token}` : o.pay_url !== null))).toEqual([]);

    // The seeded merchants work through the real API and see their own orders.
    const listener = await testListener(service);
    const m = manifest.merchant_credentials[0]!;
    const client = clientFor(listener, { id: m.id, apiKey: m.api_key, apiSecret: m.api_secret, channels: m.channels }, { now: () => NOW });
    const list = await client.orderQueryList({ page: 2, limit: 50 });
    expect(list.body.code).toBe(1);
    expect(list.body.data!.total).toBe((await one<{ n: number }>(`SELECT count(*) AS n FROM orders WHERE merchant_id = ${m.id}`)).n);
    const sample = manifest.sample_orders[String(m.id)]![0]!;
    expect((await client.orderQueryDetail(sample)).body.data?.order_no).toBe(sample);
  });

  it('writes the same orders for the same seed', async () => {
    const rows = async (dataDir: string) => {
      await seed(dataDir);
      const service = await testService({ dataDir });
      try {
        return await read(service, (tx) => tx.all('SELECT order_no, merchant_id, order_type, status, cny_amount, createtime, updatetime FROM orders ORDER BY id'));
      } finally {
        await service.close();
      }
    };
    const a = await rows(tempDir());
    const b = await rows(tempDir());
    expect(a).toHaveLength(3000);
    expect(b).toEqual(a);
  });

  it('refuses a data dir that already holds merchants', async () => {
    const dataDir = tempDir();
    const service = await testService({ dataDir });
    await service.store.write((tx) => service.services.merchants.create(tx, { name: 'Existing', sign_type: 'hmac-sha256', callback_url: null }));
    await service.close();
    await expect(seed(dataDir)).rejects.toThrow('already holds data; seed an empty data dir');
  });
});
