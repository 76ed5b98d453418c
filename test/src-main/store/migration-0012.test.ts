/**
 * Migration 12 (SQLite): the four list indexes carry the listed columns, so
 * every statement of the merchant API's list and the dashboard's day buckets
 * reads an index alone; an upgraded store keeps its orders and lists them as
 * before.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ORDER_STATUSES, ORDER_TYPES } from '../../../src-shared/constants';
import { createOrderRepository, ORDER_SUMMARY_COLUMNS, type OrderListFilter } from '../../../src-main/repositories/order-repository';
import { createOrderStatsRepository } from '../../../src-main/repositories/order-stats-repository';
import { LATEST_SCHEMA_VERSION } from '../../../src-main/store/migrations/index';
import { openSqliteStore } from '../../../src-main/store/sqlite/sqlite-store';
import type { ReadTx, SqlParams } from '../../../src-main/store/store';
import { read, seedMerchant, testService, write } from '../../support/service-harness';
import { tempDir } from '../../support/temp-dir';
import { TEST_ENGINE } from '../../support/test-engine';

const orders = createOrderRepository();
const stats = createOrderStatsRepository();
const T0 = 1_790_000_000;
const DAY = 86_400;

const INSERT_ORDER = `INSERT INTO orders (order_no, merchant_id, channel_id, order_type, status, pay_method, cny_amount, service_rate, passage_rate,
    deposit_rate, base_rate, service_amount, passage_amount, deposit_amount, channel_amount, merchant_actual_amount, createtime, updatetime)
  VALUES (@no, @merchantId, @channelId, @type, @status, 'bank', @amount, '0.006', '0.002', 50, 30, @fee, 0, 0, 0, @actual, @t, @updated)`;

/** n orders over 5 days, every type and status, some createtimes shared. */
function orderParams(merchantId: number, channelId: number, n: number): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => ({
    no: `B${String(merchantId).padStart(2, '0')}${String(i).padStart(6, '0')}`,
    merchantId,
    channelId,
    type: ORDER_TYPES[i % ORDER_TYPES.length],
    status: ORDER_STATUSES[(i * 7) % ORDER_STATUSES.length],
    amount: 1000 + i,
    fee: 6 + (i % 3),
    actual: 994 + i,
    t: T0 + Math.floor((i * 5 * DAY) / n),
    updated: T0 + Math.floor((i * 5 * DAY) / n) + (i % 4),
  }));
}

/** Every combination of the list's four filters, at the top and past the seek offset. */
function filters(merchantId: number): OrderListFilter[] {
  const out: OrderListFilter[] = [];
  for (let mask = 0; mask < 16; mask++) {
    for (const offset of [0, 20, 260]) {
      out.push({
        merchantId,
        ...(mask & 1 ? { status: 'paid' as const } : {}),
        ...(mask & 2 ? { orderType: 1 as const } : {}),
        ...(mask & 4 ? { startTime: T0 + DAY + 3600 } : {}),
        ...(mask & 8 ? { endTime: T0 + 4 * DAY - 3600 } : {}),
        offset,
        limit: 20,
      });
    }
  }
  return out;
}

/** The statements fn runs on tx, with their parameters. */
async function statementsOf(tx: ReadTx, fn: (tx: ReadTx) => Promise<unknown>): Promise<{ sql: string; params: SqlParams | undefined }[]> {
  const seen: { sql: string; params: SqlParams | undefined }[] = [];
  const spy: ReadTx = {
    dialect: tx.dialect,
    all: (sql, params) => (seen.push({ sql, params }), tx.all(sql, params)),
    get: (sql, params) => (seen.push({ sql, params }), tx.get(sql, params)),
  };
  await fn(spy);
  return seen;
}

/** The plan's lines that read the orders table or one of its indexes. */
async function ordersPlan(tx: ReadTx, sql: string, params: SqlParams | undefined): Promise<string[]> {
  const plan = await tx.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params);
  return plan.map((r) => r.detail).filter((d) => /\borders\b/.test(d));
}

describe.skipIf(TEST_ENGINE !== 'sqlite')('migration 12 (the list indexes cover the listed columns)', () => {
  it("every statement of the merchant API's list reads an index alone, for every filter combination and page", async () => {
    const service = await testService();
    const m = await seedMerchant(service);
    await write(service, async (tx) => {
      for (const p of orderParams(m.id, m.channels.beta, 600)) await tx.run(INSERT_ORDER, p);
    });
    let checked = 0;
    await read(service, async (tx) => {
      for (const f of filters(m.id)) {
        const statements = await statementsOf(tx, (spy) => orders.listSummaries(spy, f));
        for (const { sql, params } of statements) {
          const lines = await ordersPlan(tx, sql, params);
          for (const line of lines) {
            checked++;
            // "SEARCH orders USING COVERING INDEX orders_m_time (…)": never the table, never a sort of its own.
            expect(line, `${sql}\n${JSON.stringify(f)}`).toMatch(/USING COVERING INDEX orders_m_(time|status_time|type_time|type_status_time)\b/);
          }
        }
        // The same rows as the plain count(*) and OFFSET over the table.
        const naive = await orders.listNaive(tx, f);
        const listed = await orders.listSummaries(tx, f);
        expect(listed.total).toBe(naive.total);
        expect(listed.rows).toEqual(naive.rows.map((r) => Object.fromEntries(ORDER_SUMMARY_COLUMNS.map((c) => [c, r[c]]))));
      }
      // The dashboard's day buckets too.
      const dayBuckets = await statementsOf(tx, (spy) => stats.dayBuckets(spy, m.id, T0, T0 + 5 * DAY));
      expect(dayBuckets).toHaveLength(1);
      expect(await ordersPlan(tx, dayBuckets[0]!.sql, dayBuckets[0]!.params)).toEqual([expect.stringContaining('USING COVERING INDEX orders_m_time')]);
    });
    // Most filters read the page and a count of a cut day from the index: the check saw them.
    expect(checked).toBeGreaterThan(filters(m.id).length);
  });

  it('upgrades a version-11 store: the same orders, listed the same, from the covering indexes', async () => {
    const file = path.join(tempDir(), 'store.sqlite');
    const old = await openSqliteStore({ file, targetVersion: 11 });
    const planBefore = 'SELECT order_no, status FROM orders WHERE merchant_id = 1 ORDER BY createtime DESC, id DESC LIMIT 20';
    const rowsBefore = await (async () => {
      try {
        await old.write(async (tx) => {
          await tx.run("INSERT INTO merchants (id, name, api_key, api_secret_enc, sign_type, createtime, updatetime) VALUES (1, 'M', 'mk_1', 'v1:x', 'md5', 100, 100)");
          await tx.run("INSERT INTO channels (id, category, name, pay_method, max_amount, createtime, updatetime) VALUES (1, 'beta', 'C', 'bank', 100000, 100, 100)");
          for (const p of orderParams(1, 1, 300)) await tx.run(INSERT_ORDER, p);
        });
        return await old.read(async (tx) => {
          expect((await tx.get<{ detail: string }>(`EXPLAIN QUERY PLAN ${planBefore}`))!.detail).toMatch(/USING INDEX orders_m_time\b/);
          return tx.all('SELECT * FROM orders ORDER BY id');
        });
      } finally {
        await old.close();
      }
    })();

    const store = await openSqliteStore({ file });
    try {
      await store.read(async (tx) => {
        expect((await tx.get<{ user_version: number }>('PRAGMA user_version'))!.user_version).toBe(LATEST_SCHEMA_VERSION);
        expect(await tx.all('SELECT * FROM orders ORDER BY id')).toEqual(rowsBefore);
        const columns = async (index: string) => (await tx.all<{ name: string }>(`SELECT name FROM pragma_index_info('${index}') ORDER BY seqno`)).map((r) => r.name);
        const listed = ['order_no', 'cny_amount', 'merchant_actual_amount', 'service_rate', 'service_amount', 'updatetime'];
        expect(await columns('orders_m_time')).toEqual(['merchant_id', 'createtime', 'id', 'order_type', 'status', ...listed]);
        expect(await columns('orders_m_status_time')).toEqual(['merchant_id', 'status', 'createtime', 'id', 'order_type', ...listed]);
        expect(await columns('orders_m_type_time')).toEqual(['merchant_id', 'order_type', 'createtime', 'id', 'status', ...listed]);
        expect(await columns('orders_m_type_status_time')).toEqual(['merchant_id', 'order_type', 'status', 'createtime', 'id', ...listed]);
        expect((await tx.get<{ detail: string }>(`EXPLAIN QUERY PLAN ${planBefore}`))!.detail).toMatch(/USING COVERING INDEX orders_m_time\b/);
        expect((await tx.get<{ integrity_check: string }>('PRAGMA integrity_check'))!.integrity_check).toBe('ok');
        for (const f of filters(1)) {
          const naive = await orders.listNaive(tx, f);
          expect((await orders.listSummaries(tx, f)).rows.map((r) => r.id)).toEqual(naive.rows.map((r) => r.id));
        }
      });
    } finally {
      await store.close();
    }
  });
});
