/**
 * What PostgreSQL itself spends per createOrder statement (docs/benchmarks.md,
 * "Where the rest goes"): on a running server (a copy of a seeded cluster),
 * 50 concurrent workers send the limit reference's statement (nonce and order
 * in one CTE) and the service's one-statement createOrder
 * (insertWithNonceIfCurrent, through the real store and repository),
 * alternating, and the CPU time of every postgres process (from /proc) and of
 * this process is divided by the statements done. No HTTP, no signature.
 *
 *   node --import tsx bench/pg-cpu-probe.ts postgres://postgres@127.0.0.1:PORT/bench [seconds=5]
 */
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { probeBuyOrder, PROBE_NONCE_EXPIRES_AT, referenceInsert } from './lib/probe-orders';
import { openPostgresStore } from '../src-main/store/postgres/postgres-store';
import { createOrderRepository } from '../src-main/repositories/order-repository';

const url = process.argv[2]!;
const seconds = Number(process.argv[3] ?? 5);
/** /proc times are in clock ticks (USER_HZ, 100 on Linux). */
const ticks = 100;
function pgCpuMs(): number {
  let sum = 0;
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (name !== 'postgres') continue;
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      sum += (Number(f[11]) + Number(f[12])) * (1000 / ticks);
    } catch {
      // The process ended meanwhile.
    }
  }
  return sum;
}
const store = await openPostgresStore({ url, migrate: false });
const raw = new pg.Pool({ connectionString: url, max: 10 });
const orders = createOrderRepository();
const m = (await raw.query('SELECT m.api_key, m.id, l.channel_id, g.generation FROM merchants m JOIN merchant_channels l ON l.merchant_id = m.id JOIN row_generation g ON g.id = 1 ORDER BY m.id, l.channel_id LIMIT 1')).rows[0];
const draft = () => probeBuyOrder(m.id, m.channel_id);
const variants: Record<string, () => Promise<unknown>> = {
  reference: () => referenceInsert(raw, m.api_key, draft()),
  service: async () => {
    const r = await store.writeAlone((tx) => orders.insertWithNonceIfCurrent(tx, { apiKey: m.api_key, nonce: randomUUID(), nonceExpiresAt: PROBE_NONCE_EXPIRES_AT, merchantId: m.id, generation: m.generation, channelId: m.channel_id, linkGeneration: m.generation }, draft()), { durable: true });
    if (typeof r === 'string') throw new Error(r);
  },
};
for (let round = 0; round < 3; round++) {
  for (const [name, run] of Object.entries(variants)) {
    let done = 0;
    const end = Date.now() + seconds * 1000;
    const pg0 = pgCpuMs(); const n0 = process.cpuUsage();
    await Promise.all(Array.from({ length: 50 }, async () => { while (Date.now() < end) { await run(); done++; } }));
    const pgMs = pgCpuMs() - pg0; const n = process.cpuUsage(n0);
    console.log(`${name.padEnd(10)} ${Math.round(done / seconds)}/s  pg ${(pgMs * 1000 / done).toFixed(0)} µs/stmt  node ${((n.user + n.system) / done).toFixed(0)} µs/stmt`);
  }
}
await raw.end();
await store.close();
