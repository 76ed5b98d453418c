/**
 * orderQueryList reads its total and its page position from the
 * order_counts counters (migration 0004). These tests hold it to the naive
 * count(*) + OFFSET answer through random inserts, status changes, deletes
 * and queries, with order times clustered on UTC day boundaries where the
 * segment arithmetic could go wrong.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ORDER_STATUSES, type OrderStatus } from '../../../src-shared/constants';
import { createOrderRepository, type NewOrderRow, type OrderListFilter } from '../../../src-main/repositories/order-repository';
import { openDatabase, type Database } from '../../../src-main/store/database';
import { MIGRATIONS } from '../../../src-main/store/migrations/index';
import { seedMerchant, testService } from '../../support/service-harness';
import { tempDir } from '../../support/temp-dir';
import path from 'node:path';

const DAY = 86_400;
const BASE_DAY = 20_400; // 2025-11-09

function orderRow(merchantId: number, channelId: number, orderType: 1 | 2, status: OrderStatus, createtime: number, n: number): NewOrderRow {
  return {
    order_no: `T${createtime}-${n}`,
    merchant_id: merchantId,
    channel_id: channelId,
    order_type: orderType,
    status,
    pay_method: 'alipay',
    cny_amount: 10_000,
    service_rate: '0.006',
    passage_rate: '0',
    deposit_rate: 0,
    base_rate: 0,
    service_amount: 60,
    passage_amount: 0,
    deposit_amount: 0,
    channel_amount: 0,
    merchant_actual_amount: 9_940,
    customer_name: null,
    payment_method_id: null,
    payment_method_snapshot: null,
    customer_payment_method: null,
    alpha_data_enc: null,
    pay_token: null,
    expires_at: null,
    createtime,
  };
}

/** Times within a few days, many of them exactly on or next to midnight UTC. */
const timeArb = fc.oneof(
  fc.record({ day: fc.integer({ min: 0, max: 4 }), edge: fc.constantFrom(0, 1, -1, DAY - 1, DAY, 2) }).map(({ day, edge }) => (BASE_DAY + day) * DAY + edge),
  fc.integer({ min: BASE_DAY * DAY - 10, max: (BASE_DAY + 5) * DAY + 10 }),
);

const opArb = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('insert' as const), merchant: fc.integer({ min: 0, max: 1 }), type: fc.constantFrom(1 as const, 2 as const), status: fc.constantFrom(...ORDER_STATUSES), time: timeArb }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('status' as const), pick: fc.nat(), status: fc.constantFrom(...ORDER_STATUSES) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
);

const queryArb = fc.record({
  merchant: fc.integer({ min: 0, max: 1 }),
  status: fc.option(fc.constantFrom(...ORDER_STATUSES), { nil: undefined }),
  orderType: fc.option(fc.constantFrom(1 as const, 2 as const), { nil: undefined }),
  startTime: fc.option(timeArb, { nil: undefined }),
  endTime: fc.option(timeArb, { nil: undefined }),
  page: fc.integer({ min: 1, max: 12 }),
  limit: fc.constantFrom(1, 2, 3, 5, 20, 100),
  // Bounds exactly on (or next to) an existing order's time, where an off-by-one would show.
  startAtOrder: fc.option(fc.record({ pick: fc.nat(), delta: fc.constantFrom(-1, 0, 1) }), { nil: undefined }),
  endAtOrder: fc.option(fc.record({ pick: fc.nat(), delta: fc.constantFrom(-1, 0, 1) }), { nil: undefined }),
});

/** The maintained counters, zero rows left out. */
function countersOf(db: Database) {
  return {
    days: db.prepare('SELECT merchant_id, day, order_type, status, n FROM order_counts WHERE n > 0 ORDER BY 1, 2, 3, 4').all(),
    totals: db.prepare('SELECT merchant_id, order_type, status, n FROM order_totals WHERE n > 0 ORDER BY 1, 2, 3').all(),
  };
}

/** What the counters must equal: counted afresh from the orders. */
function groupedCounts(db: Database) {
  return {
    days: db
      .prepare('SELECT merchant_id, createtime / 86400 AS day, order_type, status, count(*) AS n FROM orders GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4')
      .all(),
    totals: db.prepare('SELECT merchant_id, order_type, status, count(*) AS n FROM orders GROUP BY 1, 2, 3 ORDER BY 1, 2, 3').all(),
  };
}

describe('orderQueryList with maintained counters', () => {
  it('gives the same total and page as count(*) + OFFSET through inserts, status changes and deletes', () => {
    const service = testService();
    const merchants = [seedMerchant(service, 'A'), seedMerchant(service, 'B')];
    const { db } = service;
    // Seek by day counts from the first row on, so small data exercises that path too.
    const orders = createOrderRepository(db, { seekFromOffset: 0 });
    const defaults = service.ctx.repos.orders;
    const setStatus = db.prepare('UPDATE orders SET status = ?, updatetime = updatetime + 1 WHERE id = ?');
    const remove = db.prepare('DELETE FROM orders WHERE id = ?');
    let serial = 0;

    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 25 }), fc.array(queryArb, { minLength: 1, maxLength: 8 }), (ops, queries) => {
        for (const op of ops) {
          const ids = (db.prepare('SELECT id FROM orders ORDER BY id').all() as { id: number }[]).map((r) => r.id);
          if (op.kind === 'insert') {
            const m = merchants[op.merchant]!;
            orders.insert(orderRow(m.id, m.channels.beta, op.type, op.status, op.time, serial++));
          } else if (ids.length > 0 && op.kind === 'status') {
            setStatus.run(op.status, ids[op.pick % ids.length]!);
          } else if (ids.length > 0 && op.kind === 'delete') {
            remove.run(ids[op.pick % ids.length]!);
          }
        }
        const times = (db.prepare('SELECT createtime FROM orders ORDER BY id').all() as { createtime: number }[]).map((r) => r.createtime);
        const at = (p: { pick: number; delta: number } | undefined, fallback: number | undefined) =>
          p === undefined || times.length === 0 ? fallback : times[p.pick % times.length]! + p.delta;
        for (const q of queries) {
          const filter: OrderListFilter = {
            merchantId: merchants[q.merchant]!.id,
            status: q.status,
            orderType: q.orderType,
            startTime: at(q.startAtOrder, q.startTime),
            endTime: at(q.endAtOrder, q.endTime),
            offset: (q.page - 1) * q.limit,
            limit: q.limit,
          };
          const fast = orders.list(filter);
          const naive = orders.listNaive(filter);
          expect(fast.total).toBe(naive.total);
          expect(fast.rows.map((r) => r.id)).toEqual(naive.rows.map((r) => r.id));
          expect(defaults.list(filter).rows.map((r) => r.id)).toEqual(naive.rows.map((r) => r.id));
          const summaries = orders.listSummaries(filter);
          expect(summaries.total).toBe(naive.total);
          expect(summaries.rows).toEqual(naive.rows.map((r) => ({ id: r.id, order_no: r.order_no, order_type: r.order_type, cny_amount: r.cny_amount,
            merchant_actual_amount: r.merchant_actual_amount, service_rate: r.service_rate, service_amount: r.service_amount, status: r.status,
            createtime: r.createtime, updatetime: r.updatetime })));
        }
        // The counters themselves equal a fresh GROUP BY.
        expect(countersOf(db)).toEqual(groupedCounts(db));
      }),
      { numRuns: 120 },
    );
    expect(serial).toBeGreaterThan(0);
  });

  it('answers a page past the end with the total and an empty list', () => {
    const service = testService();
    const m = seedMerchant(service);
    for (let i = 0; i < 30; i++) service.ctx.repos.orders.insert(orderRow(m.id, m.channels.beta, 1, 'pending', BASE_DAY * DAY + i * 3600, i));
    const result = service.ctx.repos.orders.list({ merchantId: m.id, offset: 40, limit: 20 });
    expect(result).toEqual({ rows: [], total: 30 });
    const last = service.ctx.repos.orders.list({ merchantId: m.id, offset: 20, limit: 20 });
    expect(last.total).toBe(30);
    expect(last.rows.map((r) => r.createtime)).toEqual(Array.from({ length: 10 }, (_, i) => BASE_DAY * DAY + (9 - i) * 3600));
  });
});

describe('counter reads', () => {
  it('a filtered range reads only its own counter rows (migration 0007)', () => {
    const service = testService();
    const plan = (where: string) =>
      (service.db.prepare(`EXPLAIN QUERY PLAN SELECT day, sum(n) FROM order_counts WHERE merchant_id = 1 ${where} AND day BETWEEN 1 AND 9 GROUP BY day ORDER BY day DESC`).all() as { detail: string }[])
        .map((r) => r.detail)
        .join('; ');
    expect(plan("AND order_type = 1 AND status = 'paid'")).toMatch(/COVERING INDEX order_counts_by_type_status \(merchant_id=\? AND order_type=\? AND status=\? AND day>\? AND day<\?\)/);
    expect(plan("AND status = 'paid'")).toMatch(/COVERING INDEX order_counts_by_status \(merchant_id=\? AND status=\? AND day>\? AND day<\?\)/);
    expect(plan('AND order_type = 2')).toMatch(/COVERING INDEX order_counts_by_type \(merchant_id=\? AND order_type=\? AND day>\? AND day<\?\)/);
    expect(plan('')).toMatch(/PRIMARY KEY \(merchant_id=\? AND day>\? AND day<\?\)/);
    for (const where of ["AND order_type = 1 AND status = 'paid'", "AND status = 'paid'", 'AND order_type = 2', '']) expect(plan(where)).not.toMatch(/TEMP B-TREE/);
  });
});

describe('migration 0004 (order_counts, order_totals)', () => {
  it.each(MIGRATIONS.filter((m) => m.version < 4).map((m) => m.version))('backfills the counters of orders written at schema version %i', (version) => {
    const file = path.join(tempDir(), 'merchant-console.sqlite');
    const v1 = openDatabase(file, { targetVersion: version });
    expect(v1.pragma('user_version', { simple: true })).toBe(version);
    v1.exec(`
      INSERT INTO merchants (id, name, api_key, api_secret_enc, sign_type, createtime, updatetime) VALUES (1, 'M', 'mk_1', 'x', 'md5', 0, 0);
      INSERT INTO channels (id, category, name, pay_method, max_amount, createtime, updatetime) VALUES (1, 'beta', 'C', 'bank', 100000, 0, 0);
    `);
    const m = { id: 1, channels: { gamma: 1 } };
    const insert = v1.prepare(
      `INSERT INTO orders (order_no, merchant_id, channel_id, order_type, status, pay_method, cny_amount, service_rate, passage_rate,
         deposit_rate, base_rate, service_amount, passage_amount, deposit_amount, channel_amount, merchant_actual_amount, createtime, updatetime)
       VALUES (?, ?, ?, ?, ?, 'bank', 100, '0', '0', 0, 0, 0, 0, 0, 0, 100, ?, ?)`,
    );
    const statuses: OrderStatus[] = ['pending', 'completed', 'cancelled'];
    for (let i = 0; i < 50; i++) insert.run(`V1-${i}`, m.id, m.channels.gamma, 1 + (i % 2), statuses[i % 3], BASE_DAY * DAY + i * 7_000, BASE_DAY * DAY + i * 7_000);
    v1.close();

    const migrated = openDatabase(file);
    try {
      expect(migrated.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(4);
      const counted = countersOf(migrated);
      expect(counted).toEqual(groupedCounts(migrated));
      expect(counted.days.length).toBeGreaterThan(5);
      expect(counted.totals.length).toBeGreaterThanOrEqual(5); // migration 0003 cancels pending sells of older versions
    } finally {
      migrated.close();
    }
  });
});
