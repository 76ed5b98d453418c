/**
 * Open-loop load at a fixed arrival rate: request i is due at t0 + i / rate
 * whether or not earlier answers came back, and its latency is measured from
 * that scheduled time to the end of its answer — so a stall of the server
 * shows in the latency of every request that should have been sent during
 * it (no coordinated omission). autocannon cannot do this: its rate options
 * pace each connection, which waits for its answer before the next request,
 * and it times a request from when it was actually sent.
 *
 * undici's Pool sends (up to `connections` sockets, keep-alive); requests
 * beyond the open sockets wait in its queue, their wait included in the
 * latency. Latencies go into Node's built-in HDR histogram
 * (perf_hooks.createHistogram) in microseconds. The scheduler wakes every
 * millisecond and sends what is due; how late it sends (`sendLag`) is
 * reported so the generator's own overhead is visible, and
 * `measureGeneratorFloor` runs it against a server that does nothing.
 */
import { spawn } from 'node:child_process';
import { createHistogram } from 'node:perf_hooks';
import readline from 'node:readline';
import { Pool } from 'undici';

export interface OpenLoopSpec {
  url: string;
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  /** Fresh body per request (built at its scheduled time, so signing is part of the generator's cost). */
  build?: () => string;
  /** Requests per second. */
  rate: number;
  durationSeconds: number;
  /** Most sockets the pool opens (default 256). */
  connections?: number;
  expectStatus?: number;
  checkBody?: (body: string) => boolean;
  /** How long to wait for the last answers after the schedule ends (default 10 s); later ones count as failures. */
  drainSeconds?: number;
}

export interface OpenLoopResult {
  scheduled: number;
  completed: number;
  /** Completed per second of schedule. */
  rate: number;
  /** Latency from scheduled time to the end of the answer, ms. */
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  /** How late the generator itself sent, ms (p99 and max). */
  sendLagP99: number;
  sendLagMax: number;
  /**
   * Sockets the generator opened during the run (its drain included), and
   * the most open at once: when a stall leaves every socket busy, a request
   * due meanwhile waits for a new one (the server's time leaves its
   * connection out).
   */
  connects: number;
  mostSockets: number;
  failures: number;
  failureSample: string | undefined;
}

const usToMs = (us: number) => us / 1000;

export async function runOpenLoop(spec: OpenLoopSpec): Promise<OpenLoopResult> {
  const pool = new Pool(spec.url, { connections: spec.connections ?? 256, pipelining: 1, keepAliveTimeout: 60_000 });
  const latency = createHistogram();
  const lag = createHistogram();
  const expected = spec.expectStatus ?? 200;
  const total = Math.round(spec.rate * spec.durationSeconds);
  const intervalNs = 1e9 / spec.rate;
  let sent = 0;
  let completed = 0;
  let failures = 0;
  let failureSample: string | undefined;
  const inFlight = new Set<Promise<void>>();
  let connects = 0;
  let mostSockets = 0;
  pool.on('connect', () => {
    connects++;
    mostSockets = Math.max(mostSockets, pool.stats.connected);
  });

  const fire = (scheduledAt: bigint) => {
    const body = spec.build?.();
    const p = pool
      .request({ method: spec.method, path: spec.path, headers: spec.headers ?? {}, ...(body !== undefined ? { body } : {}) })
      .then(async (res) => {
        const text = await res.body.text();
        const us = Number(process.hrtime.bigint() - scheduledAt) / 1000;
        latency.record(Math.max(1, Math.round(us)));
        completed++;
        if (res.statusCode !== expected || (spec.checkBody && !spec.checkBody(text))) {
          failures++;
          failureSample ??= `${res.statusCode} ${text.slice(0, 300)}`;
        }
      })
      .catch((err: unknown) => {
        failures++;
        failureSample ??= String((err as Error)?.message ?? err);
      });
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };

  const t0 = process.hrtime.bigint();
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = process.hrtime.bigint();
      const due = Math.min(total, Math.floor(Number(now - t0) / intervalNs) + 1);
      while (sent < due) {
        const scheduledAt = t0 + BigInt(Math.round(sent * intervalNs));
        lag.record(Math.max(1, Math.round(Number(process.hrtime.bigint() - scheduledAt) / 1000)));
        fire(scheduledAt);
        sent++;
      }
      if (sent >= total) resolve();
      else setTimeout(tick, 1);
    };
    tick();
  });
  const drain = Promise.allSettled([...inFlight]);
  const timedOut = await Promise.race([drain.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), (spec.drainSeconds ?? 10) * 1000).unref())]);
  const unanswered = timedOut ? inFlight.size : 0;
  if (unanswered > 0) {
    failures += unanswered;
    failureSample ??= `${unanswered} requests unanswered ${spec.drainSeconds ?? 10} s after the schedule ended`;
  }
  await pool.destroy();
  return {
    scheduled: total,
    completed,
    rate: completed / spec.durationSeconds,
    p50: usToMs(latency.percentile(50)),
    p90: usToMs(latency.percentile(90)),
    p99: usToMs(latency.percentile(99)),
    p999: usToMs(latency.percentile(99.9)),
    max: usToMs(latency.max),
    sendLagP99: usToMs(lag.percentile(99)),
    sendLagMax: usToMs(lag.max),
    connects,
    mostSockets,
    failures,
    failureSample,
  };
}

/** A server that answers every request at once with a fixed success body, in its own process. */
const TRIVIAL_SERVER = `
const http = require('node:http');
const body = '{"code":1,"msg":"success","data":null}';
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }); res.end(body); });
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ listening: 'http://127.0.0.1:' + server.address().port })));
process.on('SIGTERM', () => process.exit(0));
`;

/**
 * The generator's own floor: the same schedule, request builder (signing
 * included) and checks against a server that does no work. Whatever latency
 * this shows is the generator's and the loopback's, not the service's. It is
 * measured after `warmupSeconds` of the same load unmeasured, as the
 * combinations are (the serve's warm-up, then a second each): measured cold,
 * the bench's first run of the generator sent up to 15 ms late and made a
 * floor p99 of 41–132 ms on a slow machine (docs/benchmarks.md, "The
 * generator's floor, warmed up").
 */
export async function measureGeneratorFloor(spec: Omit<OpenLoopSpec, 'url'>, warmupSeconds: number): Promise<OpenLoopResult> {
  const child = spawn(process.execPath, ['-e', TRIVIAL_SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: child.stdout! }).once('line', (line) => resolve((JSON.parse(line) as { listening: string }).listening));
      child.once('exit', (code) => reject(new Error(`trivial server exited with ${code}`)));
    });
    if (warmupSeconds > 0) await runOpenLoop({ ...spec, url, durationSeconds: warmupSeconds });
    return await runOpenLoop({ ...spec, url });
  } finally {
    child.kill('SIGTERM');
  }
}
