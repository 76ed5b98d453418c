/**
 * Order-number search of the console list: both plans of a prefix search
 * (range on (merchant_id, order_no), or walking the time index) give the
 * same pages, each plan uses the index it is meant to, and the plan follows
 * the number of matches.
 */
import { describe, expect, it } from 'vitest';
import { createOrderRepository, ORDER_NO_WALK_THRESHOLD, orderNoPlanFor, type OrderListFilter } from '../../../src-main/repositories/order-repository';
import type { MerchantConsoleService } from '../../../src-main/service';
import { read, seedMerchant, testService, write } from '../../support/service-harness';
import { TEST_ENGINE } from '../../support/test-engine';

const orders = createOrderRepository();

function fill(service: MerchantConsoleService, merchantId: number, channelId: number, count: number, prefix: string, t0: number): Promise<void> {
  return write(service, async (tx) => {
    for (let i = 0; i < count; i++) {
      // Order numbers deliberately out of time order, and some createtimes shared.
      const no = `${prefix}${String((i * 7919) % count).padStart(8, '0')}`;
      await tx.run(
        `INSERT INTO orders (order_no, merchant_id, channel_id, order_type, status, pay_method, cny_amount, service_rate, passage_rate,
           deposit_rate, base_rate, service_amount, passage_amount, deposit_amount, channel_amount, merchant_actual_amount, createtime, updatetime)
         VALUES (?, ?, ?, 1, ?, 'bank', 1000, '0', '0', 0, 0, 0, 0, 0, 0, 1000, ?, ?)`,
        [no, merchantId, channelId, i % 5 === 0 ? 'paid' : 'pending', t0 + Math.floor(i / 3), t0 + Math.floor(i / 3)],
      );
    }
  });
}

async function planOf(service: MerchantConsoleService, sql: string): Promise<string> {
  return (await read(service, (tx) => tx.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`))).map((r) => r.detail).join(' | ');
}

describe('order-number search', () => {
  it('chooses the plan by the number of matches', () => {
    expect(orderNoPlanFor(0)).toBe('range');
    expect(orderNoPlanFor(ORDER_NO_WALK_THRESHOLD)).toBe('range');
    expect(orderNoPlanFor(ORDER_NO_WALK_THRESHOLD + 1)).toBe('walk');
  });

  it('both plans return the same newest-first pages, with and without other filters and keyset cursors', async () => {
    const service = await testService();
    const m = await seedMerchant(service);
    const other = await seedMerchant(service, 'Other');
    await fill(service, m.id, m.channels.beta, ORDER_NO_WALK_THRESHOLD + 300, 'BX', 1_700_000_000);
    await fill(service, m.id, m.channels.beta, 50, 'SY', 1_700_000_100);
    await fill(service, other.id, other.channels.beta, 100, 'BX9', 1_700_000_000);

    const base: OrderListFilter = { merchantId: m.id, orderNoPrefix: 'BX', offset: 0, limit: 25 };
    const total = (await read(service, (tx) => orders.list(tx, base))).total;
    expect(total).toBe(ORDER_NO_WALK_THRESHOLD + 300);

    for (const extra of [{}, { status: 'paid' as const }, { offset: 1000 }, { before: { createtime: 1_700_000_400, id: 1300 } }]) {
      const walk = await read(service, (tx) => orders.page(tx, { ...base, ...extra, orderNoPlan: 'walk' }));
      const range = await read(service, (tx) => orders.page(tx, { ...base, ...extra, orderNoPlan: 'range' }));
      expect(walk.map((r) => r.id)).toEqual(range.map((r) => r.id));
      expect(walk).toHaveLength(25);
      for (let i = 1; i < walk.length; i++) {
        const [a, b] = [walk[i - 1]!, walk[i]!];
        expect(a.createtime > b.createtime || (a.createtime === b.createtime && a.id > b.id)).toBe(true);
      }
      expect(walk.every((r) => r.order_no.startsWith('BX') && r.merchant_id === m.id)).toBe(true);
    }

    // The list picks 'walk' here (many matches) and 'range' for a narrow prefix; the answers agree with a plain filter.
    const narrow = await read(service, (tx) => orders.list(tx, { ...base, orderNoPrefix: 'BX0000120' }));
    expect(narrow.total).toBe(10);
    expect(narrow.rows.map((r) => r.order_no).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `BX0000120${i}`));
  });

  // The plans are SQLite's own (INDEXED BY, EXPLAIN QUERY PLAN); PostgreSQL's planner chooses by its statistics.
  it.skipIf(TEST_ENGINE !== 'sqlite')('a narrow search ranges over orders_m_no; a wide one walks a time index', async () => {
    const service = await testService();
    const range = await planOf(
      service,
      "SELECT * FROM orders INDEXED BY orders_m_no WHERE merchant_id = 1 AND order_no >= 'B1' AND order_no < 'B1' || '~' ORDER BY createtime DESC, id DESC LIMIT 20",
    );
    expect(range).toContain('USING INDEX orders_m_no (merchant_id=? AND order_no>? AND order_no<?)');
    const walk = await planOf(
      service,
      "SELECT * FROM orders WHERE merchant_id = 1 AND status = 'paid' AND +order_no >= 'B' AND +order_no < 'B' || '~' ORDER BY createtime DESC, id DESC LIMIT 20",
    );
    expect(walk).toContain('USING INDEX orders_m_status_time');
    expect(walk).not.toContain('TEMP B-TREE');
  });
});
