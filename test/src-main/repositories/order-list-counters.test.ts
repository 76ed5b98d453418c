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
import { MIGRATIONS } from '../../../src-main/store/migrations/index';
import { openStore, type StoreConfig } from '../../../src-main/store/open-store';
import type { ReadTx, Store } from '../../../src-main/store/store';
import { read, seedMerchant, testService, write } from '../../support/service-harness';
import { freshPostgresDatabase, TEST_ENGINE } from '../../support/test-engine';
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
    pay_url: null,
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
  limit: fc.constantFrom(1, 2, 3, 5, 10, 20, 50, 100),
  // Bounds exactly on (or next to) an existing order's time, where an off-by-one would show.
  startAtOrder: fc.option(fc.record({ pick: fc.nat(), delta: fc.constantFrom(-1, 0, 1) }), { nil: undefined }),
  endAtOrder: fc.option(fc.record({ pick: fc.nat(), delta: fc.constantFrom(-1, 0, 1) }), { nil: undefined }),
});

/** The maintained counters, zero rows left out. */
async function countersOf(tx: ReadTx) {
  return {
    days: await tx.all('SELECT merchant_id, day, order_type, status, n FROM order_counts WHERE n > 0 ORDER BY 1, 2, 3, 4'),
    totals: await tx.all('SELECT merchant_id, order_type, status, n FROM order_totals WHERE n > 0 ORDER BY 1, 2, 3'),
  };
}

/** What the counters must equal: counted afresh from the orders. */
async function groupedCounts(tx: ReadTx) {
  return {
    days: await tx.all('SELECT merchant_id, createtime / 86400 AS day, order_type, status, count(*) AS n FROM orders GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4'),
    totals: await tx.all('SELECT merchant_id, order_type, status, count(*) AS n FROM orders GROUP BY 1, 2, 3 ORDER BY 1, 2, 3'),
  };
}

describe('orderQueryList with maintained counters', () => {
  it('gives the same total and page as count(*) + OFFSET through inserts, status changes and deletes', async () => {
    const service = await testService();
    const merchants = [await seedMerchant(service, 'A'), await seedMerchant(service, 'B')];
    // Seek by day counts from the first row on, so small data exercises that path too.
    const orders = createOrderRepository({ seekFromOffset: 0 });
    const defaults = createOrderRepository();
    let serial = 0;

    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 25 }), fc.array(queryArb, { minLength: 1, maxLength: 8 }), async (ops, queries) => {
        for (const op of ops) {
          await write(service, async (tx) => {
            const ids = (await tx.all<{ id: number }>('SELECT id FROM orders ORDER BY id')).map((r) => r.id);
            if (op.kind === 'insert') {
              const m = merchants[op.merchant]!;
              expect(await orders.insertReturning(tx, orderRow(m.id, m.channels.beta, op.type, op.status, op.time, serial++))).toBeDefined();
            } else if (ids.length > 0 && op.kind === 'status') {
              await tx.run('UPDATE orders SET status = ?, updatetime = updatetime + 1 WHERE id = ?', [op.status, ids[op.pick % ids.length]!]);
            } else if (ids.length > 0 && op.kind === 'delete') {
              await tx.run('DELETE FROM orders WHERE id = ?', [ids[op.pick % ids.length]!]);
            }
          });
        }
        await read(service, async (tx) => {
          const times = (await tx.all<{ createtime: number }>('SELECT createtime FROM orders ORDER BY id')).map((r) => r.createtime);
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
            const fast = await orders.list(tx, filter);
            const naive = await orders.listNaive(tx, filter);
            expect(fast.total).toBe(naive.total);
            expect(fast.rows.map((r) => r.id)).toEqual(naive.rows.map((r) => r.id));
            // The default repository answers pages near the top without seeking (on PostgreSQL in one statement).
            const near = await defaults.list(tx, filter);
            expect(near.total).toBe(naive.total);
            expect(near.rows.map((r) => r.id)).toEqual(naive.rows.map((r) => r.id));
            expect((await defaults.listSummaries(tx, filter)).rows.map((r) => r.id)).toEqual(naive.rows.map((r) => r.id));
            const summaries = await orders.listSummaries(tx, filter);
            expect(summaries.total).toBe(naive.total);
            expect(summaries.rows).toEqual(naive.rows.map((r) => ({ id: r.id, order_no: r.order_no, order_type: r.order_type, cny_amount: r.cny_amount,
              merchant_actual_amount: r.merchant_actual_amount, service_rate: r.service_rate, service_amount: r.service_amount, status: r.status,
              createtime: r.createtime, updatetime: r.updatetime })));
          }
          // The counters themselves equal a fresh GROUP BY.
          expect(await countersOf(tx)).toEqual(await groupedCounts(tx));
        });
      }),
      { numRuns: 120 },
    );
    expect(serial).toBeGreaterThan(0);
  }, 120_000);

  it('seeks a deep page across more days than the first reads of day counts hold (8, then 32, then 128 days)', async () => {
    const service = await testService();
    const m = await seedMerchant(service);
    const orders = createOrderRepository({ seekFromOffset: 0 });
    // 60 days with orders (two each, some days empty between them), so a page may lie past the 8th and the 40th day.
    await write(service, async (tx) => {
      let serial = 0;
      for (let d = 0; d < 75; d++) {
        if (d % 5 === 3) continue;
        for (const at of [7, 3600]) await orders.insertReturning(tx, orderRow(m.id, m.channels.beta, 1, 'pending', (BASE_DAY + d) * DAY + at, serial++));
      }
    });
    await read(service, async (tx) => {
      for (let offset = 0; offset <= 125; offset += 3) {
        const filter: OrderListFilter = { merchantId: m.id, offset, limit: 3 };
        const naive = await orders.listNaive(tx, filter);
        const fast = await orders.list(tx, filter);
        expect(fast.total).toBe(120);
        expect(fast.rows.map((r) => r.id)).toEqual(naive.rows.map((r) => r.id));
      }
    });
  });

  it('answers a page past the end with the total and an empty list', async () => {
    const service = await testService();
    const m = await seedMerchant(service);
    const orders = createOrderRepository();
    await write(service, async (tx) => {
      for (let i = 0; i < 30; i++) await orders.insertReturning(tx, orderRow(m.id, m.channels.beta, 1, 'pending', BASE_DAY * DAY + i * 3600, i));
    });
    const result = await read(service, (tx) => orders.list(tx, { merchantId: m.id, offset: 40, limit: 20 }));
    expect(result).toEqual({ rows: [], total: 30 });
    const last = await read(service, (tx) => orders.list(tx, { merchantId: m.id, offset: 20, limit: 20 }));
    expect(last.total).toBe(30);
    expect(last.rows.map((r) => r.createtime)).toEqual(Array.from({ length: 10 }, (_, i) => BASE_DAY * DAY + (9 - i) * 3600));
  });
});

describe('counter reads', () => {
  it.skipIf(TEST_ENGINE !== 'postgres')('PostgreSQL keeps one plan for a first page of the usual sizes instead of planning it at every run', async () => {
    const service = await testService();
    const m = await seedMerchant(service);
    const orders = createOrderRepository();
    // Enough orders (and statistics) that a plan for an unknown LIMIT looks dearer than one for 20 rows.
    const n = 5_000;
    await write(service, async (tx) => {
      await orders.insertReturning(tx, orderRow(m.id, m.channels.beta, 1, 'completed', BASE_DAY * DAY, 0));
      await tx.run(
        `INSERT INTO orders (order_no, merchant_id, channel_id, order_type, status, pay_method, cny_amount, service_rate, passage_rate, deposit_rate, base_rate,
           service_amount, passage_amount, deposit_amount, channel_amount, merchant_actual_amount, createtime, updatetime)
         SELECT 'P' || i, merchant_id, channel_id, order_type, status, pay_method, cny_amount, service_rate, passage_rate, deposit_rate, base_rate,
           service_amount, passage_amount, deposit_amount, channel_amount, merchant_actual_amount, createtime + i * 60, updatetime + i * 60
         FROM orders, generate_series(1, ?) AS i`,
        [n - 1],
      );
      await tx.run('ANALYZE orders');
    });
    const runs = 12;
    // One unit of work, so one connection: prepared statements and their plan counts are per session.
    const counts = await read(service, async (tx) => {
      for (let i = 0; i < runs; i++) {
        const page = await orders.listSummaries(tx, { merchantId: m.id, offset: 0, limit: 20 });
        expect(page.total).toBe(n);
        expect(page.rows[0]!.order_no).toBe(`P${n - 1}`);
        expect(page.rows).toHaveLength(20);
        const filtered = await orders.listSummaries(tx, { merchantId: m.id, status: 'completed', startTime: BASE_DAY * DAY + 100, endTime: BASE_DAY * DAY + 4 * DAY, offset: 0, limit: 50 });
        // Orders every 60 s from the day's start: from 100 s on (the third) to the last (day 4), all of them.
        expect(filtered.total).toBe(n - 2);
        expect(filtered.rows).toHaveLength(50);
      }
      return tx.all<{ statement: string; generic_plans: number; custom_plans: number }>(
        "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%list_total%' AND statement NOT LIKE '%pg_prepared_statements%' ORDER BY statement",
      );
    });
    expect(counts).toHaveLength(2);
    for (const c of counts) {
      // PostgreSQL tries the first five runs with a custom plan, then keeps the generic one.
      expect(c.custom_plans).toBeLessThanOrEqual(5);
      expect(c.generic_plans + c.custom_plans).toBeGreaterThanOrEqual(runs);
    }
  });

  // The plan is SQLite's own (EXPLAIN QUERY PLAN); PostgreSQL's planner chooses by its statistics.
  it.skipIf(TEST_ENGINE !== 'sqlite')('a filtered range reads only its own counter rows (migration 0007)', async () => {
    const service = await testService();
    const plan = async (where: string) =>
      (await read(service, (tx) =>
        tx.all<{ detail: string }>(`EXPLAIN QUERY PLAN SELECT day, sum(n) FROM order_counts WHERE merchant_id = 1 ${where} AND day BETWEEN 1 AND 9 GROUP BY day ORDER BY day DESC`),
      ))
        .map((r) => r.detail)
        .join('; ');
    expect(await plan("AND order_type = 1 AND status = 'paid'")).toMatch(/COVERING INDEX order_counts_by_type_status \(merchant_id=\? AND order_type=\? AND status=\? AND day>\? AND day<\?\)/);
    expect(await plan("AND status = 'paid'")).toMatch(/COVERING INDEX order_counts_by_status \(merchant_id=\? AND status=\? AND day>\? AND day<\?\)/);
    expect(await plan('AND order_type = 2')).toMatch(/COVERING INDEX order_counts_by_type \(merchant_id=\? AND order_type=\? AND day>\? AND day<\?\)/);
    expect(await plan('')).toMatch(/PRIMARY KEY \(merchant_id=\? AND day>\? AND day<\?\)/);
    for (const where of ["AND order_type = 1 AND status = 'paid'", "AND status = 'paid'", 'AND order_type = 2', '']) expect(await plan(where)).not.toMatch(/TEMP B-TREE/);
  });
});

/** A store of the current engine on a new, empty database (a SQLite file, or a PostgreSQL database of its own). */
async function emptyStoreConfig(): Promise<StoreConfig> {
  return TEST_ENGINE === 'sqlite'
    ? { kind: 'sqlite', file: path.join(tempDir(), 'merchant-console.sqlite') }
    : { kind: 'postgres', url: await freshPostgresDatabase({ empty: true }) };
}

function schemaVersionIn(store: Store): Promise<number> {
  return store.read(async (tx) =>
    tx.dialect === 'sqlite'
      ? (await tx.get<{ user_version: number }>('PRAGMA user_version'))!.user_version
      : (await tx.get<{ v: number }>('SELECT max(version) AS v FROM schema_migrations'))!.v,
  );
}

describe('migration 0004 (order_counts, order_totals)', () => {
  it.each(MIGRATIONS.filter((m) => m.version < 4).map((m) => m.version))('backfills the counters of orders written at schema version %i', async (version) => {
    const config = await emptyStoreConfig();
    const old = await openStore({ ...config, targetVersion: version });
    try {
      expect(await schemaVersionIn(old)).toBe(version);
      await old.write(async (tx) => {
        await tx.run("INSERT INTO merchants (id, name, api_key, api_secret_enc, sign_type, createtime, updatetime) VALUES (1, 'M', 'mk_1', 'x', 'md5', 0, 0)");
        await tx.run("INSERT INTO channels (id, category, name, pay_method, max_amount, createtime, updatetime) VALUES (1, 'beta', 'C', 'bank', 100000, 0, 0)");
        const m = { id: 1, channels: { gamma: 1 } };
        const statuses: OrderStatus[] = ['pending', 'completed', 'cancelled'];
        for (let i = 0; i < 50; i++) {
          await tx.run(
            `INSERT INTO orders (order_no, merchant_id, channel_id, order_type, status, pay_method, cny_amount, service_rate, passage_rate,
               deposit_rate, base_rate, service_amount, passage_amount, deposit_amount, channel_amount, merchant_actual_amount, createtime, updatetime)
             VALUES (?, ?, ?, ?, ?, 'bank', 100, '0', '0', 0, 0, 0, 0, 0, 0, 100, ?, ?)`,
            [`V1-${i}`, m.id, m.channels.gamma, 1 + (i % 2), statuses[i % 3], BASE_DAY * DAY + i * 7_000, BASE_DAY * DAY + i * 7_000],
          );
        }
      });
    } finally {
      await old.close();
    }

    const migrated = await openStore(config);
    try {
      expect(await schemaVersionIn(migrated)).toBeGreaterThanOrEqual(4);
      const [counted, expected] = await migrated.read(async (tx) => [await countersOf(tx), await groupedCounts(tx)] as const);
      expect(counted).toEqual(expected);
      expect(counted.days.length).toBeGreaterThan(5);
      expect(counted.totals.length).toBeGreaterThanOrEqual(5); // migration 0003 cancels pending sells of older versions
    } finally {
      await migrated.close();
    }
  });
});
