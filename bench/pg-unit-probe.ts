/**
 * What each statement of createOrder's unit of work costs on PostgreSQL
 * (docs/benchmarks.md, "PostgreSQL: what a unit of work costs"): on a copy
 * of a seeded cluster, 50 concurrent workers run the unit through the real
 * store engine (pool 10, pipeline mode) and the real repositories, with and
 * without the route's savepoint and the channel lookup, alternating, and
 * the limit reference's single statement (nonce and order in one CTE,
 * autocommit) on a plain pool of 10 beside them. No HTTP, no signature:
 * only what the database side costs. Prints units/s per round.
 *
 *   node --import tsx bench/pg-unit-probe.ts [pg template dir=.data/bench/pg-template-o1000000-m20-d90-s1] [seconds=6] [rounds=3]
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { startPostgresCopy } from './lib/postgres-data';
import { probeBuyOrder, PROBE_NONCE_EXPIRES_AT, referenceInsert } from './lib/probe-orders';
import { openPostgresStore } from '../src-main/store/postgres/postgres-store';
import type { WriteTx } from '../src-main/store/store';
import { createNonceRepository } from '../src-main/repositories/nonce-repository';
import { createChannelRepository } from '../src-main/repositories/channel-repository';
import { createOrderRepository } from '../src-main/repositories/order-repository';

const template = process.argv[2] ?? '.data/bench/pg-template-o1000000-m20-d90-s1';
const seconds = Number(process.argv[3] ?? 6);
const rounds = Number(process.argv[4] ?? 3);
const server = await startPostgresCopy(template, '/tmp/pg-unit-probe');
try {
  const store = await openPostgresStore({ url: server.url, migrate: false });
  const raw = new pg.Pool({ connectionString: server.url, max: 10 });
  const nonces = createNonceRepository();
  const channels = createChannelRepository();
  const orders = createOrderRepository();
  const { api_key: apiKey, id: merchantId, channel_id: channelId } = (
    await raw.query<{ api_key: string; id: number; channel_id: number }>(
      'SELECT m.api_key, m.id, l.channel_id FROM merchants m JOIN merchant_channels l ON l.merchant_id = m.id ORDER BY m.id, l.channel_id LIMIT 1',
    )
  ).rows[0]!;
  const draft = () => probeBuyOrder(merchantId, channelId);
  // The route's unit: the merchant and its nonce, then (in a savepoint) the channel and the order.
  const write = async (tx: WriteTx, lookUpChannel: boolean) => {
    if (lookUpChannel) await channels.findLinked(tx, merchantId, channelId);
    await orders.insertReturning(tx, draft());
  };
  const unit = (savepoint: boolean, lookUpChannel: boolean) => () =>
    store.write(async (tx) => {
      await nonces.merchantConsumingNonce(tx, apiKey, randomUUID(), PROBE_NONCE_EXPIRES_AT);
      return savepoint ? tx.savepoint((sp) => write(sp, lookUpChannel)) : write(tx, lookUpChannel);
    });
  const variants: Record<string, () => Promise<unknown>> = {
    'one statement (limit reference)': () => referenceInsert(raw, apiKey, draft()),
    'service (savepoint, channel)': unit(true, true),
    'no savepoint': unit(false, true),
    'no channel lookup': unit(true, false),
    'neither': unit(false, false),
  };
  const perSecond: Record<string, number[]> = {};
  for (let round = 0; round < rounds; round++) {
    for (const [name, run] of Object.entries(variants)) {
      let done = 0;
      const end = Date.now() + seconds * 1000;
      await Promise.all(Array.from({ length: 50 }, async () => { while (Date.now() < end) { await run(); done++; } }));
      (perSecond[name] ??= []).push(done / seconds);
    }
  }
  for (const [name, v] of Object.entries(perSecond)) console.log(`${name.padEnd(32)} ${v.map((x) => Math.round(x).toLocaleString('en')).join(' / ')} units/s`);
  await raw.end();
  await store.close();
} finally {
  server.stop();
}
