/**
 * How long a purge of a large nonce backlog holds SQLite's event loop
 * (docs/decisions.md, "Purges in steps"): copies a seeded bench template,
 * adds N expired nonces, starts the WAL checkpointer as serve does, and runs
 * service.work.purgeExpired() while a request-like write is queued every
 * millisecond; prints how long the purge took, the event-loop delay and the
 * probe writes' latency.
 *
 *   node --import tsx bench/purge-probe.ts [N=700000] [template dir=.data/bench/template-o1000000-m20-d90-s1]
 */
import fs from 'node:fs';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { createNonceRepository } from '../src-main/repositories/nonce-repository';
import { openService } from '../src-main/service';
import type { SqliteStore } from '../src-main/store/sqlite/sqlite-store';

const template = process.argv[3] ?? '.data/bench/template-o1000000-m20-d90-s1';
const dir = fs.mkdtempSync('/tmp/purge-probe-');
for (const f of fs.readdirSync(template)) fs.copyFileSync(`${template}/${f}`, `${dir}/${f}`);
const service = await openService({ dataDir: dir });
const now = Math.floor(Date.now() / 1000);
const N = Number(process.argv[2] ?? 700_000);
const nonces = createNonceRepository();
for (let done = 0; done < N; done += 10_000) {
  await service.store.write(async (tx) => {
    for (let i = done; i < done + 10_000; i++) await nonces.consume(tx, `mk_${i % 20}`, `n${i}x${Math.random()}`, now - 910 - (i % 600)); // in past buckets (migration 0012)
  });
}
const cp = (service.store as SqliteStore).startCheckpointer();
const h = monitorEventLoopDelay({ resolution: 1 });
h.enable();
// A request-like write every ms, timed from enqueue to ack.
let worst = 0; let n = 0; let stop = false;
const lat: number[] = [];
const ticker = (async () => {
  while (!stop) {
    const t = performance.now();
    await service.store.write((tx) => nonces.consume(tx, 'probe', `p${n++}`, now + 600), { durable: false });
    const d = performance.now() - t; lat.push(d); worst = Math.max(worst, d);
    await new Promise((r) => setTimeout(r, 1));
  }
})();
const t0 = performance.now();
const r = await service.work.purgeExpired();
const took = performance.now() - t0;
stop = true; await ticker;
h.disable();
lat.sort((a, b) => a - b);
const walSize = fs.statSync(`${dir}/merchant-console.sqlite-wal`).size;
console.log({ purged: r.purged, tookMs: Math.round(took), loopMaxMs: h.max / 1e6, loopP99Ms: h.percentile(99) / 1e6, writeP99: lat[Math.floor(lat.length * 0.99)], writeMax: worst, writes: lat.length, walMB: walSize / 2 ** 20 });
await cp.stop();
await service.close();
fs.rmSync(dir, { recursive: true, force: true });
