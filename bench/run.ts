/**
 * npm run bench: load tests against real `merchant-console serve` child
 * processes on 127.0.0.1 with a database of 1,000,000 orders, next to the
 * limit reference of the same engine (bench/limit-reference.ts) measured in
 * the same run, alternated with the service (A B A B…) so drift shows.
 * Method and figures: docs/benchmarks.md. Results: bench/results/
 * (gitignored).
 *
 *   npm run bench -- [--engine sqlite|postgres] [--rounds 3] [--duration 10] [--warmup 10]
 *                    [--connections 50] [--only name,name] [--quick]
 *                    [--orders 1000000] [--merchants 20] [--days 90] [--seed 1]
 *                    [--data-root .data/bench] [--profile DIR] [--serve-from DIR]
 *                    [--open-loop-rate 1000] [--open-loop-duration 10] [--open-loop-writers 4]
 *                    [--reference-commit wal-sync,pipelined,full] [--pg-pool 5,10] [--fixed-rate N]
 *                    [--long-lived]
 *
 * The seeded database is built once per (orders, merchants, days, seed) as a
 * template (and, for PostgreSQL, once more as a seeded cluster) and copied
 * for every run. serve runs from the prebuilt bundle with rate limits
 * explicitly off (--rate-limit-key off --rate-limit-address off): the load
 * comes from one address and a few api_keys far above any sane production
 * limit.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { computeSignature } from '../src-shared/client/sign';
import { databasePath } from '../src-main/store/data-dir';
import { openSqliteStore } from '../src-main/store/sqlite/sqlite-store';
import { MASTER_KEY_FILE } from '../src-main/crypto/secret-box';
import { buildCliBundle } from '../scripts/build-cli';
import { loadAverage, rssOf, sampleRss, startListeningChild, type RunningChild } from './lib/processes';
import { runLoad, runLoadSplit, type LoadResult, type LoadSpec } from './lib/load';
import { measureGeneratorFloor, runOpenLoop, type OpenLoopResult } from './lib/open-loop';
import { judgeTargets, ratioText, TARGETS, targetsMarkdown } from './lib/targets';
import { profileMarkdown, summariseProfile } from './lib/cpu-profile';
import { bestVariant, median, ratioToLimit, type RoundFigure } from './lib/limit-ratio';
import { windowOrder } from './lib/window-order';
import { checkoutAt, otherCheckout, type Checkout } from './lib/checkout';
import { preparePostgresTemplate, startPostgresCopy, type BenchPostgres } from './lib/postgres-data';
import { bulkCopyToPostgres } from './lib/pg-bulk-copy';
import { syncTree } from './lib/synced-copy';
import { MANIFEST_FILE, readManifest, seedBenchDatabase, type SeedManifest, type SeededMerchantCredentials } from './seed-orders';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PROBE = pathToFileURL(path.join(root, 'bench', 'lib', 'loop-probe.mjs')).href;

const { values: opts } = parseArgs({
  options: {
    engine: { type: 'string', default: 'sqlite' },
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10' },
    // Steady state: serve (far more code than a reference) takes about 10 s of load to reach it on Node 24
    // (docs/benchmarks.md, "Node 24"); each measurement starts its server afresh.
    warmup: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    // The database and the open loop's rate the targets are set on (./lib/targets.ts).
    orders: { type: 'string', default: String(TARGETS.orders) },
    merchants: { type: 'string', default: '20' },
    days: { type: 'string', default: '90' },
    seed: { type: 'string', default: '1' },
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
    'data-root': { type: 'string' },
    'base-path': { type: 'string', default: '/addons/paychannel' },
    /** Write a V8 CPU profile of every serve child and every reference into this dir, and print their top self-time functions. */
    profile: { type: 'string' },
    /** Also measure `serve` of other checkouts (e.g. git worktrees of older commits) in the same rounds; repeatable. */
    'serve-from': { type: 'string', multiple: true },
    /** Which targets to measure: self (this checkout's serve), limit, old (per-request fsync reference), x2 (two instances), others (--serve-from). */
    targets: { type: 'string', default: 'self,limit,old,x2,others' },
    'open-loop-rate': { type: 'string', default: String(TARGETS.openLoopRate) },
    'open-loop-duration': { type: 'string', default: '10' },
    /** Scenario open-loop-writes: connections sending createOrder one after the other beside the open loop of lists. */
    'open-loop-writers': { type: 'string', default: '4' },
    /** How the SQLite limit reference commits: WAL fdatasync off the event loop, or synchronous=FULL on it; a list runs one reference each and the limit is the fastest. */
    'reference-commit': { type: 'string', default: 'wal-sync,pipelined,full' },
    /**
     * Pool size of the PostgreSQL limit reference; a list runs one reference each and the limit is the fastest.
     * The service's pool holds 5; on two cores the reference's list was faster with 5 and its createOrder with 10.
     */
    'pg-pool': { type: 'string', default: '5,10' },
    /**
     * Every closed-loop scenario at N requests/s over its connections instead (autocannon's overallRate), below what
     * every target can answer: then each target's CPU time per request (its probe's CPU over the measured seconds ÷
     * its answers) is the figure, and "CPU × limit" the ratio that compares them, free of how the two cores were shared.
     */
    'fixed-rate': { type: 'string' },
    /**
     * Each target of a closed-loop scenario started once, warmed up once, and measured in every round, its
     * windows alternated with the others' (A B C, then C B A…), each on a store of its own: a finer comparison
     * than a fresh process per round, whose start-up and warm-up scatter by more than a few µs per request
     * (docs/benchmarks.md, "Afternoon on 2026-11-30"). Give more rounds of a shorter duration (e.g. 10 of 5 s).
     */
    'long-lived': { type: 'boolean', default: false },
  },
});
if (opts.quick) {
  // Smoke run: small database, short measurements; options given explicitly still win.
  const given = (name: string) => process.argv.some((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  const quick: Record<string, string> = { duration: '2', warmup: '1', orders: '20000', rounds: '1', 'open-loop-duration': '2' };
  for (const [name, value] of Object.entries(quick)) if (!given(name)) (opts as Record<string, unknown>)[name] = value;
}
const engine = opts.engine as 'sqlite' | 'postgres';
if (engine !== 'sqlite' && engine !== 'postgres') throw new Error('--engine must be sqlite or postgres');
const rounds = Number(opts.rounds);
const duration = Number(opts.duration);
const warmup = Number(opts.warmup);
const connections = Number(opts.connections);
const openLoopRate = Number(opts['open-loop-rate']);
const openLoopDuration = Number(opts['open-loop-duration']);
/** The unmeasured run before each open-loop measurement (its statements prepared, its pages warm). */
const openLoopLeadIn = Math.min(1, openLoopDuration);
const openLoopWriters = Number(opts['open-loop-writers']);
// The load generators (autocannon, the open loop) run in this process. Started with --single-threaded-gc (npm run
// bench, scripts/bench-node.sh) its garbage collection stays on its own thread: on Node's four V8 worker threads it
// ran over both cores, 4–5 ms at a time, and took the measured server's core (docs/benchmarks.md, "The load
// generator's garbage collector").
const singleThreadedGc = process.execArgv.includes('--single-threaded-gc');
const generatorGc = singleThreadedGc
  ? 'single-threaded garbage collection (--single-threaded-gc)'
  : "V8's parallel garbage collection threads (started without --single-threaded-gc: they take the servers' cores)";
const fixedRate = opts['fixed-rate'] === undefined ? undefined : Number(opts['fixed-rate']);
if (fixedRate !== undefined && !(fixedRate > 0)) throw new Error('--fixed-rate must be a positive number of requests per second');
const longLived = opts['long-lived'] === true;
// A profile would span every window of the process, the other targets' included.
if (longLived && opts.profile) throw new Error('--long-lived cannot be combined with --profile');
const basePath = opts['base-path']!;
const dataRoot = path.resolve(opts['data-root'] ?? path.join(root, '.data', 'bench'));
const seedKey = `o${opts.orders}-m${opts.merchants}-d${opts.days}-s${opts.seed}`;
const DAY = 86_400;

function log(line: string): void {
  process.stderr.write(line + '\n');
}

// ---------------------------------------------------------------- data

/** This checkout's seeded template: built once, then brought to the current schema (what an upgrade would do). */
async function thisTemplate(): Promise<{ dir: string; manifest: SeedManifest }> {
  const dir = path.join(dataRoot, `template-${seedKey}`);
  let manifest = readManifest(dir);
  if (!manifest) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    log(`seeding ${opts.orders} orders over ${opts.merchants} merchants and ${opts.days} days into ${dir} …`);
    manifest = await seedBenchDatabase({
      dataDir: dir,
      orders: Number(opts.orders),
      merchants: Number(opts.merchants),
      days: Number(opts.days),
      seed: Number(opts.seed),
      log,
    });
    log(`seeded in ${manifest.seconds.toFixed(1)} s`);
  }
  // Outside any measurement; closing checkpoints the WAL into the file. Statistics
  // from older seeders go: a service database has none.
  const template = await openSqliteStore({ file: databasePath(dir) });
  await template.write(async (tx) => {
    await tx.run('DROP TABLE IF EXISTS sqlite_stat4');
    await tx.run('DROP TABLE IF EXISTS sqlite_stat1');
  });
  await template.close();
  return { dir, manifest };
}

/**
 * Another checkout's template, seeded by that checkout's own seeder (same
 * seed: the same orders; its own schema version and merchant keys).
 */
function otherTemplate(checkout: Checkout): { dir: string; manifest: SeedManifest } {
  const dir = path.join(dataRoot, `template-${seedKey}-${checkout.label}`);
  let manifest = readManifest(dir);
  if (!manifest) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    log(`seeding ${opts.orders} orders with the seeder of ${checkout.label} into ${dir} …`);
    execFileSync(
      process.execPath,
      ['--import', 'tsx', 'bench/seed-orders.ts', '--data-dir', dir, '--orders', opts.orders!, '--merchants', opts.merchants!, '--days', opts.days!, '--seed', opts.seed!],
      { cwd: checkout.dir, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    manifest = readManifest(dir);
    if (!manifest) throw new Error(`the seeder of ${checkout.label} wrote no ${MANIFEST_FILE}`);
  }
  return { dir, manifest };
}

/** A fresh run dir: every file of the template (database, master key, manifest), on disk (./lib/synced-copy.ts). */
function freshRunDir(templateDir: string, name: string, files?: string[]): string {
  const runDir = path.join(dataRoot, name);
  fs.rmSync(runDir, { recursive: true, force: true });
  fs.mkdirSync(runDir, { recursive: true, mode: 0o700 });
  for (const f of files ?? fs.readdirSync(templateDir)) {
    const from = path.join(templateDir, f);
    if (fs.statSync(from).isFile()) fs.copyFileSync(from, path.join(runDir, f));
  }
  syncTree(runDir);
  return runDir;
}

// ---------------------------------------------------------------- children

interface Child extends RunningChild {
  metricsFile: string;
  profileDir: string | undefined;
}

let childSeq = 0;

function metricsFileFor(name: string): string {
  const dir = path.join(dataRoot, 'metrics');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${String(++childSeq).padStart(3, '0')}-${name.replace(/[^a-z0-9]+/gi, '-')}.jsonl`);
  fs.rmSync(file, { force: true });
  return file;
}

const listenMs: number[] = [];

async function startServe(
  checkout: Checkout,
  runDir: string,
  options: { databaseUrl?: string; profileDir?: string; tsx?: boolean; name?: string; serverTime?: boolean } = {},
): Promise<Child> {
  const tsx = options.tsx === true || options.profileDir !== undefined;
  if (!tsx) await checkout.ensureBundle();
  const metricsFile = metricsFileFor(options.name ?? 'serve');
  const env: NodeJS.ProcessEnv = { MERCHANT_CONSOLE_LOG_LEVEL: 'warn', MERCHANT_CONSOLE_BENCH_METRICS: metricsFile };
  // Requests timed inside the server (the open loop only: a few µs per request that a closed loop would count).
  if (options.serverTime === true) env.MERCHANT_CONSOLE_BENCH_SERVER_TIME = '1';
  // Profiles run the sources through tsx, so their frames name source files instead of lines of one bundle.
  if (tsx) env.MERCHANT_CONSOLE_NO_BUNDLE = '1';
  const child = await startListeningChild(
    [
      '--import',
      PROBE,
      ...cpuProfileArgs(options.profileDir),
      path.join(checkout.dir, 'bin', 'merchant-console.mjs'),
      'serve',
      '--data-dir',
      runDir,
      '--port',
      '0',
      '--base-path',
      basePath,
      '--json',
      '--rate-limit-key',
      'off',
      '--rate-limit-address',
      'off',
      ...(options.databaseUrl ? ['--database-url', options.databaseUrl] : []),
    ],
    { env: withoutDatabaseUrl(env), cwd: checkout.dir },
  );
  if (!tsx) listenMs.push(child.listenMs);
  return { ...child, metricsFile, profileDir: options.profileDir };
}

/** What `db status --json` reports waiting in a store (undefined: the checkout has no such command). */
function dueWork(checkout: Checkout, dataDir: string, databaseUrl: string | undefined): { jobs: number; callbacks: number } | undefined {
  try {
    const out = execFileSync(
      process.execPath,
      [path.join(checkout.dir, 'bin', 'merchant-console.mjs'), 'db', 'status', '--json', '--data-dir', dataDir, ...(databaseUrl ? ['--database-url', databaseUrl] : [])],
      { cwd: checkout.dir, env: { ...process.env, ...withoutDatabaseUrl({}) }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const backlog = (JSON.parse(out) as { backlog?: { order_jobs_due?: number; callbacks_due?: number } }).backlog;
    return backlog ? { jobs: backlog.order_jobs_due ?? 0, callbacks: backlog.callbacks_due ?? 0 } : undefined;
  } catch {
    return undefined;
  }
}

/** The work a seeded store had due, done by a `serve` before the measurements (undefined: none, or not known). */
interface Settled {
  jobs: number;
  callbacks: number;
  seconds: number;
  peakRssMb: number;
}

/**
 * Lets `serve` of the checkout do the background work that fell due in its
 * copy of the seeded store since seeding (orders expiring, settlements and
 * payouts: the seed leaves about 2,000 jobs due over the next day, a few
 * ms each), before anything is measured on that copy. Otherwise the first
 * `serve` measured there catches up on hours of it beside the load, which
 * the references never do (docs/benchmarks.md, "The seeded work due"), and
 * before the start-up's idle RSS is read (a slow machine still did it at 15 s).
 */
async function settleDueWork(checkout: Checkout, dataDir: string, databaseUrl: string | undefined, name: string): Promise<Settled | undefined> {
  const before = dueWork(checkout, dataDir, databaseUrl);
  if (!before) {
    log(`${name}: WARNING ${checkout.label} has no db status to tell what is due: not settled, its first round may catch up on it`);
    return undefined;
  }
  if (before.jobs === 0 && before.callbacks === 0) {
    log(`${name}: no work due in the seeded store`);
    return undefined;
  }
  const started = Date.now();
  const serve = await startServe(checkout, dataDir, { ...(databaseUrl ? { databaseUrl } : {}), name });
  const peak = sampleRss(serve.pid, 100);
  let peakMb = NaN;
  let left = before;
  let unknown = 0;
  try {
    // Every 2 s: each look is a CLI process of its own on the two cores.
    while (Date.now() - started < 180_000 && (left.jobs > 0 || left.callbacks > 0)) {
      await new Promise((r) => setTimeout(r, 2000));
      const now = dueWork(checkout, dataDir, databaseUrl);
      if (now) left = now;
      else unknown++;
    }
  } finally {
    peakMb = peak.stop() / 2 ** 20;
    await stopChild(serve);
  }
  const seconds = (Date.now() - started) / 1000;
  log(
    `${name}: serve did the ${before.jobs} order jobs and ${before.callbacks} callbacks due since seeding in ${seconds.toFixed(1)} s, peak RSS ${peakMb.toFixed(0)} MB` +
      (left.jobs > 0 || left.callbacks > 0 ? `; ${left.jobs} and ${left.callbacks} still due after 180 s` : '') +
      (unknown > 0 ? ` (db status failed ${unknown} time${unknown === 1 ? '' : 's'})` : ''),
  );
  return { jobs: before.jobs, callbacks: before.callbacks, seconds, peakRssMb: peakMb };
}

/** The environment for a child, without a database URL inherited from ours (the flag says which store). */
function withoutDatabaseUrl(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { MERCHANT_CONSOLE_DATABASE_URL: undefined, ...env };
}

/** Node's flags for a V8 CPU profile written into `dir` (created), or none. */
function cpuProfileArgs(dir: string | undefined): string[] {
  if (!dir) return [];
  fs.mkdirSync(dir, { recursive: true });
  return ['--cpu-prof', `--cpu-prof-dir=${dir}`];
}

async function startTsxChild(script: string, args: string[], name: string): Promise<Child> {
  const metricsFile = metricsFileFor(name);
  // --profile covers the references too: their top self time beside serve's shows where the two differ.
  const profileDir = opts.profile ? path.join(path.resolve(opts.profile), name) : undefined;
  const child = await startListeningChild(
    [...cpuProfileArgs(profileDir), '--import', PROBE, '--import', 'tsx', path.join(root, 'bench', script), ...args],
    { cwd: root, env: withoutDatabaseUrl({ MERCHANT_CONSOLE_BENCH_METRICS: metricsFile }) },
  );
  return { ...child, metricsFile, profileDir };
}

/** A probe's percentiles of request times in a period, ms. */
interface RequestTimesMs {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
}

interface ProbeLine {
  monotonicUs: number;
  seconds: number;
  loopDelayMs: { p50: number; p90: number; p99: number; p999: number; max: number; mean: number };
  cpuPercent: number;
  /** The main thread alone (null on a Node without process.threadCpuUsage). */
  mainThreadCpuPercent?: number | null;
  /** Share of the time the main thread's event loop was not waiting for events. */
  eventLoopUtilization?: number;
  /** Share of the period the main thread was runnable but waited for a core (Linux schedstat; null elsewhere). */
  mainThreadWaitPercent?: number | null;
  rssMb: number;
  /** Requests answered in the period and their time in the server, headers parsed to answer written (null: none). */
  serverMs?: RequestTimesMs | null;
  /** The same less the main thread's waits for a core during each request (the open loop's server only). */
  serverUnwaitedMs?: RequestTimesMs | null;
  /** The open loop's server: its event loop's holds of 5 ms or more, and the main thread's run time, wait for a core and garbage collection in them (ms). */
  holds?: { count: number; ms: number; max: number; ranMs: number; waitedMs: number; gcMs: number; majorGcMs: number } | null;
}

/** Asks a child's loop probe for its figures since the last ask (and starts a new period). */
async function probe(child: Child): Promise<ProbeLine | undefined> {
  const lines = () => (fs.existsSync(child.metricsFile) ? fs.readFileSync(child.metricsFile, 'utf8').split('\n').filter(Boolean) : []);
  const before = lines().length;
  try {
    process.kill(child.pid, 'SIGUSR2');
  } catch {
    return undefined;
  }
  for (let i = 0; i < 150; i++) {
    const now = lines();
    if (now.length > before) return JSON.parse(now[now.length - 1]!) as ProbeLine;
    await new Promise((r) => setTimeout(r, 20));
  }
  return undefined;
}

async function stopChild(child: Child): Promise<void> {
  await child.stop();
  const tail = child.stderr().trim().split('\n').slice(-1)[0];
  if (tail) log(`  child ${child.pid}: ${tail}`);
}

// ---------------------------------------------------------------- requests

let nonceCounter = 0;
const noncePrefix = `b${process.pid.toString(36)}${Date.now().toString(36)}`;

function signedBody(m: SeededMerchantCredentials, params: Record<string, unknown>): string {
  const body: Record<string, unknown> = { api_key: m.api_key, timestamp: Math.floor(Date.now() / 1000), nonce: `${noncePrefix}_${nonceCounter++}`, ...params };
  body.signature = computeSignature(body as never, m.api_secret);
  return JSON.stringify(body);
}

function roundRobin<T>(items: readonly T[]): () => T {
  let i = 0;
  return () => items[i++ % items.length]!;
}

let rnd = 12345;
function random(n: number): number {
  rnd = (rnd * 1103515245 + 12345) & 0x7fffffff;
  return rnd % n;
}

const STATUSES = ['pending', 'paid', 'confirmed', 'completed', 'cancelled'];
const json = { 'content-type': 'application/json' };
const isSuccess = (body: string) => body.startsWith('{"code":1,');
const merchantPath = (endpoint: string) => `${basePath}/merchant/${endpoint}`;
const buyBody = (m: SeededMerchantCredentials) => ({ order_type: 1, cny_amount: '100.50', paychannel_id: m.channels.beta, paychannel_paymethod: 'alipay' });

type RequestSpec = Omit<LoadSpec, 'url' | 'connections' | 'durationSeconds'>;

interface Group {
  name: string;
  describe: string;
  /** The request against `serve` (the manifest is that target's: another checkout has its own merchants). */
  request(manifest: SeedManifest, url: string): Promise<RequestSpec | { skip: string }>;
  /** The limit reference does this scenario's work at this path; its ratio is to that reference, round by round. */
  limitPath?: '/order' | '/list';
  /** Otherwise: the ratio is to the median of this group's limit reference. */
  ratioTo?: string;
  /** createOrder also runs the per-request-fsync reference (SQLite) and two instances (PostgreSQL). */
  extras?: boolean;
}

function listGroup(name: string, describe: string, params: (m: SeedManifest) => Record<string, unknown>, limitPath?: '/list'): Group {
  return {
    name,
    describe,
    ...(limitPath ? { limitPath } : { ratioTo: 'list-first' }),
    async request(m) {
      const next = roundRobin(m.merchant_credentials);
      return { method: 'POST', path: merchantPath('orderQueryList'), headers: json, build: () => signedBody(next(), params(m)), checkBody: isSuccess };
    },
  };
}

function randomFilters(m: SeedManifest): Record<string, unknown> {
  const p: Record<string, unknown> = { page: 1 + random(500) };
  if (random(2)) p.status = STATUSES[random(STATUSES.length)];
  if (random(2)) p.order_type = 1 + random(2);
  const a = m.now - random(90) * DAY - random(DAY);
  const b = m.now - random(90) * DAY - random(DAY);
  if (random(2)) p.start_time = Math.min(a, b);
  if (random(2)) p.end_time = Math.max(a, b);
  return p;
}

const filtered = (m: SeedManifest) => ({ order_type: 1, status: 'completed', start_time: m.now - 60 * DAY + 4321, end_time: m.now - DAY - 1234 });
const regionPath = `${basePath}/channel/alpha/regionData`;

const GROUPS: Group[] = [
  {
    name: 'createOrder-buy',
    describe: 'createOrder order_type 1, signed, fresh nonce per request',
    limitPath: '/order',
    extras: true,
    async request(m) {
      const next = roundRobin(m.merchant_credentials);
      return {
        method: 'POST',
        path: merchantPath('createOrder'),
        headers: json,
        build: () => {
          const merchant = next();
          return signedBody(merchant, buyBody(merchant));
        },
        checkBody: isSuccess,
      };
    },
  },
  listGroup('list-first', 'orderQueryList page 1, no filter', () => ({}), '/list'),
  listGroup('list-page500', 'orderQueryList page 500, no filter', () => ({ page: 500 })),
  listGroup('list-filtered-first', 'orderQueryList page 1, order_type + status + 59-day time range', filtered),
  listGroup('list-filtered-page500', 'orderQueryList page 500, order_type + status + 59-day time range', (m) => ({ ...filtered(m), page: 500 })),
  listGroup('list-random', 'orderQueryList, every request a random filter combination and page 1-500', randomFilters),
  {
    name: 'orderQueryDetail',
    describe: 'orderQueryDetail of a random existing order of the merchant',
    ratioTo: 'list-first',
    async request(m) {
      const next = roundRobin(m.merchant_credentials);
      return {
        method: 'POST',
        path: merchantPath('orderQueryDetail'),
        headers: json,
        build: () => {
          const merchant = next();
          const sample = m.sample_orders[String(merchant.id)] ?? [];
          return signedBody(merchant, { order_no: sample[random(sample.length)] });
        },
        checkBody: isSuccess,
      };
    },
  },
  {
    name: 'getPayChannels',
    describe: 'getPayChannels, no category',
    ratioTo: 'list-first',
    async request(m) {
      const next = roundRobin(m.merchant_credentials);
      return { method: 'POST', path: merchantPath('getPayChannels'), headers: json, build: () => signedBody(next(), {}), checkBody: isSuccess };
    },
  },
  {
    name: 'regionData-full',
    describe: 'GET regionData, whole tree',
    async request(_m, url) {
      const res = await fetch(url + regionPath);
      if (res.status === 404) return { skip: 'no regionData endpoint on this build' };
      return { method: 'GET', path: regionPath, checkBody: isSuccess };
    },
  },
  {
    name: 'regionData-304',
    describe: 'GET regionData with If-None-Match of the current ETag',
    async request(_m, url) {
      const res = await fetch(url + regionPath);
      const etag = res.headers.get('etag');
      if (res.status === 404) return { skip: 'no regionData endpoint on this build' };
      if (!etag) return { skip: 'regionData answers without an ETag' };
      return { method: 'GET', path: regionPath, headers: { 'if-none-match': etag }, expectStatus: 304 };
    },
  },
];

// ---------------------------------------------------------------- targets

type TargetKind = 'serve' | 'limit' | 'old-reference';

interface Target {
  name: string;
  kind: TargetKind;
  manifest: SeedManifest;
  start(label: string): Promise<Child[]>;
}

interface Measurement extends Partial<LoadResult> {
  group: string;
  target: string;
  kind: TargetKind;
  round: number;
  skipped?: string;
  /** Per child: event-loop delay and CPU of the measured seconds. */
  probes: (ProbeLine | undefined)[];
  peakRssMb?: number;
  /**
   * CPU of this process (the load generator, autocannon in-process) over the measured seconds, in % of one
   * core: near 100 the generator, which shares the machine's cores with the servers, bounds the figure.
   */
  generatorCpuPercent?: number;
  loadBefore: string;
  loadAfter?: string;
  profile?: string;
}

/** A started target ready for its scenario's load: how to run that load, or why the scenario skips it. */
type LoadedTarget = { group: Group; target: Target; children: Child[] } & ({ run: (seconds: number) => Promise<LoadResult> } | { skipped: string });

/** A name fit for files and labels: anything but letters, digits, `.`, `+` and `-` made `-`. */
function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9.+-]+/g, '-');
}

async function prepareLoad(group: Group, target: Target, children: Child[]): Promise<LoadedTarget> {
  const base = await group.request(target.manifest, children[0]!.url);
  if ('skip' in base) {
    log(`${group.name} / ${target.name}: skipped (${base.skip})`);
    return { group, target, children, skipped: base.skip };
  }
  const spec: RequestSpec = target.kind === 'serve' ? base : { ...base, path: group.limitPath! };
  const urls = children.map((c) => c.url);
  const run = (seconds: number) =>
    urls.length === 1
      ? runLoad({ ...spec, url: urls[0]!, connections, durationSeconds: seconds, rate: fixedRate })
      : runLoadSplit({ ...spec, connections, durationSeconds: seconds, rate: fixedRate }, urls);
  return { group, target, children, run };
}

/** One measured window of a target under its load (warmed up before): the probes' marks at its start, and the measurement. */
async function measureWindow(loaded: LoadedTarget, round: number): Promise<{ m: Measurement; marks: (ProbeLine | undefined)[] }> {
  const { group, target, children } = loaded;
  const m: Measurement = { group: group.name, target: target.name, kind: target.kind, round, probes: [], loadBefore: loadAverage() };
  if ('skipped' in loaded) {
    m.skipped = loaded.skipped;
    return { m, marks: [] };
  }
  const { run } = loaded;
  const marks = await Promise.all(children.map(probe));
  const rss = children.map((c) => sampleRss(c.pid));
  const generatorCpu = process.cpuUsage();
  const generatorFrom = process.hrtime.bigint();
  const load = await run(duration);
  const generatorUsed = process.cpuUsage(generatorCpu);
  m.generatorCpuPercent = ((generatorUsed.user + generatorUsed.system) / 1e3 / (Number(process.hrtime.bigint() - generatorFrom) / 1e6)) * 100;
  m.probes = await Promise.all(children.map(probe));
  m.peakRssMb = Math.max(...rss.map((r) => r.stop())) / 2 ** 20;
  m.loadAfter = loadAverage();
  Object.assign(m, load);
  const delays = m.probes.map((p) => (p ? p.loopDelayMs.p99.toFixed(1) : '?')).join('+');
  const cpu = m.probes.map((p) => (p ? p.cpuPercent.toFixed(0) : '?')).join('+');
  const main = m.probes.map((p) => (p?.mainThreadCpuPercent != null ? p.mainThreadCpuPercent.toFixed(0) : '?')).join('+');
  const busy = m.probes.map((p) => (p?.eventLoopUtilization !== undefined ? p.eventLoopUtilization.toFixed(2) : '?')).join('+');
  const waited = m.probes.map((p) => (p?.mainThreadWaitPercent != null ? p.mainThreadWaitPercent.toFixed(1) : '?')).join('+');
  log(
    `${group.name.padEnd(22)} ${target.name.padEnd(34)} r${round} ${load.rps.toFixed(0).padStart(7)} req/s  p50 ${load.p50.toFixed(2)} ms  p99 ${load.p99.toFixed(2)} ms  ` +
      `loop p99 ${delays} ms  cpu ${cpu} % (${cpuUsPerRequest(m).toFixed(1)} µs/request; main thread ${main} %, loop busy ${busy}, waited for a core ${waited} %)  generator cpu ${m.generatorCpuPercent.toFixed(0)} %  peak RSS ${m.peakRssMb.toFixed(0)} MB  failures ${load.failures}${load.failureSample ? ` (${load.failureSample})` : ''}  load ${m.loadAfter}`,
  );
  return { m, marks };
}

/** One round of one target in a fresh process: started, warmed up, measured, stopped (and its profile read). */
async function measure(group: Group, target: Target, round: number): Promise<Measurement> {
  const label = safeName(`${group.name}-${target.name}-r${round}`);
  const children = await target.start(label);
  let window: { m: Measurement; marks: (ProbeLine | undefined)[] };
  try {
    const loaded = await prepareLoad(group, target, children);
    if ('run' in loaded && warmup > 0) await loaded.run(warmup);
    window = await measureWindow(loaded, round);
  } finally {
    await Promise.all(children.map(stopChild));
  }
  const { m, marks } = window;
  if (m.skipped) return m;
  children.forEach((c, i) => {
    if (!c.profileDir) return;
    // The main thread's profile (thread 0; workers write their own), cut to the measured seconds.
    const from = marks[i]?.monotonicUs;
    const to = m.probes[i]?.monotonicUs;
    const cut = from !== undefined && to !== undefined ? { fromUs: from, toUs: to } : undefined;
    for (const f of fs.readdirSync(c.profileDir).filter((f) => f.endsWith('.cpuprofile') && f.includes(`.${c.pid}.0.`))) {
      const md = profileMarkdown(summariseProfile(path.join(c.profileDir, f), root, cut), `${label} (pid ${c.pid}, ${cut ? 'measured seconds' : 'whole run'})`);
      m.profile = (m.profile ? m.profile + '\n\n' : '') + md;
      log(md);
    }
  });
  return m;
}

/**
 * --long-lived: every target of the scenario started once and warmed up once, in turn; then round after round one
 * window of each, in alternating order (windowOrder), so that a process's start and warm-up are not part of the
 * comparison and drift between windows shows in both directions.
 */
async function measureLongLived(group: Group, targets: Target[]): Promise<Measurement[]> {
  const running: Child[] = [];
  const loaded: LoadedTarget[] = [];
  const measurements: Measurement[] = [];
  try {
    for (const target of targets) {
      const children = await target.start(safeName(`${group.name}-${target.name}`));
      running.push(...children);
      const l = await prepareLoad(group, target, children);
      // A target the scenario skips does not stay up through the others' windows.
      if ('skipped' in l) {
        await Promise.all(children.map(stopChild));
        running.splice(running.length - children.length, children.length);
      }
      loaded.push(l);
    }
    if (warmup > 0) for (const l of loaded) if ('run' in l) await l.run(warmup);
    for (let round = 1; round <= rounds; round++) {
      for (const l of windowOrder(loaded, round)) measurements.push((await measureWindow(l, round)).m);
    }
  } finally {
    await Promise.all(running.map(stopChild));
  }
  return measurements;
}

// ---------------------------------------------------------------- open loop

/** Every combination of the orderQueryList filters (status, order_type, start_time, end_time), page 1. */
function filterCombinations(): { name: string; params: (m: SeedManifest) => Record<string, unknown> }[] {
  const out: { name: string; params: (m: SeedManifest) => Record<string, unknown> }[] = [];
  for (let bits = 0; bits < 16; bits++) {
    const has = { status: (bits & 1) !== 0, type: (bits & 2) !== 0, start: (bits & 4) !== 0, end: (bits & 8) !== 0 };
    const name = [has.status && 'status', has.type && 'order_type', has.start && 'start_time', has.end && 'end_time'].filter(Boolean).join('+') || 'no filter';
    out.push({
      name,
      params: (m) => {
        const p: Record<string, unknown> = {};
        if (has.status) p.status = STATUSES[random(STATUSES.length)];
        if (has.type) p.order_type = 1 + random(2);
        // A random range inside the seeded 90 days (either end may stand alone).
        const a = m.now - random(90) * DAY - random(DAY);
        const b = m.now - random(90) * DAY - random(DAY);
        if (has.start) p.start_time = has.end ? Math.min(a, b) : a;
        if (has.end) p.end_time = has.start ? Math.max(a, b) : b;
        return p;
      },
    });
  }
  return out;
}

interface OpenLoopRow extends OpenLoopResult {
  name: string;
  probe?: ProbeLine | undefined;
}

async function openLoopSection(startTarget: () => Promise<Child>, manifest: SeedManifest): Promise<{ floor: OpenLoopResult; rows: OpenLoopRow[] }> {
  const next = roundRobin(manifest.merchant_credentials);
  const listSpec = (params: (m: SeedManifest) => Record<string, unknown>) => ({
    method: 'POST' as const,
    path: merchantPath('orderQueryList'),
    headers: json,
    build: () => signedBody(next(), params(manifest)),
    checkBody: isSuccess,
    rate: openLoopRate,
    durationSeconds: openLoopDuration,
  });
  const combos = filterCombinations();
  // Warmed up as long as a combination is before it is measured: the serve's warm-up, then its own second.
  const floor = await measureGeneratorFloor(listSpec(combos[15]!.params), warmup + openLoopLeadIn);
  log(`open loop: generator floor at ${openLoopRate} req/s against a server doing nothing: p50 ${floor.p50.toFixed(2)} ms, p99 ${floor.p99.toFixed(2)} ms, send lag p99 ${floor.sendLagP99.toFixed(2)} ms`);
  const rows: OpenLoopRow[] = [];
  const child = await startTarget();
  try {
    // The closed loop's warm-up once, every combination in turn, before the first is measured: in the first
    // seconds of a fresh `serve` (its code compiled, its due work at start, its statements prepared) the first
    // combination measured had a server p99 of 5.6–19 ms, whichever it was; no filter 1.3 ms measured last, 1.5 ms first after this
    // (docs/benchmarks.md, "The open loop timed inside the server too").
    const warmupEach = warmup / combos.length;
    if (warmupEach > 0) for (const combo of combos) await runOpenLoop({ ...listSpec(combo.params), url: child.url, durationSeconds: warmupEach });
    for (const combo of combos) {
      // A short unmeasured run first: statements of this combination prepared, pages warm.
      await runOpenLoop({ ...listSpec(combo.params), url: child.url, durationSeconds: openLoopLeadIn });
      await probe(child);
      const r = await runOpenLoop({ ...listSpec(combo.params), url: child.url });
      const p = await probe(child);
      rows.push({ name: combo.name, ...r, probe: p });
      log(
        `open loop ${combo.name.padEnd(38)} ${r.rate.toFixed(0)} req/s  p50 ${r.p50.toFixed(2)}  p99 ${r.p99.toFixed(2)}  p99.9 ${r.p999.toFixed(2)}  max ${r.max.toFixed(1)} ms  ` +
          `server p99 ${p?.serverMs?.p99.toFixed(2) ?? '?'} max ${p?.serverMs?.max.toFixed(1) ?? '?'} ms (less its waits for a core p99 ${p?.serverUnwaitedMs?.p99.toFixed(2) ?? '?'})  loop p99 ${p?.loopDelayMs.p99.toFixed(1) ?? '?'} max ${p?.loopDelayMs.max.toFixed(1) ?? '?'} ms  ` +
          `held ≥ 5 ms ${heldCell(p?.holds) || '?'}  sockets opened ${r.connects} (most ${r.mostSockets})  cpu ${p?.cpuPercent.toFixed(0) ?? '?'} %  failures ${r.failures}${r.failureSample ? ` (${r.failureSample})` : ''}`,
      );
    }
  } finally {
    await stopChild(child);
  }
  return { floor, rows };
}

/** The open loop's "loop held ≥ 5 ms" cell: times, ms in all (of it waited for a core, garbage collection: of that full collections). */
function heldCell(holds: ProbeLine['holds']): string {
  if (!holds) return '';
  const ms = (n: number) => Math.round(n).toLocaleString('en-US');
  return `${holds.count}, ${ms(holds.ms)} (${ms(holds.waitedMs)}, ${ms(holds.gcMs)}: major ${ms(holds.majorGcMs)})`;
}

interface OpenLoopWritesRow {
  target: string;
  round: number;
  list: OpenLoopResult;
  writes: LoadResult;
  probe?: ProbeLine | undefined;
}

/**
 * orderQueryList page 1 at the fixed rate while `openLoopWriters`
 * connections send createOrder one after the other (durable commits, their
 * WAL syncs under way most of the time): how long a list request waits for
 * commits it does not need. Every serve target (this checkout, --serve-from)
 * once per round, A B A B…
 */
async function openLoopWritesSection(targets: Target[], writeGroup: Group): Promise<OpenLoopWritesRow[]> {
  const rows: OpenLoopWritesRow[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const target of targets) {
      const nextList = roundRobin(target.manifest.merchant_credentials);
      const listSpec = {
        method: 'POST' as const,
        path: merchantPath('orderQueryList'),
        headers: json,
        build: () => signedBody(nextList(), {}),
        checkBody: isSuccess,
        rate: openLoopRate,
        durationSeconds: openLoopDuration,
      };
      const [child] = await target.start(`open-loop-writes-r${round}`);
      try {
        // Unmeasured first: statements prepared, pages warm, every merchant verified once.
        await runOpenLoop({ ...listSpec, url: child!.url, durationSeconds: openLoopLeadIn });
        await probe(child!);
        const writeSpec = await writeGroup.request(target.manifest, child!.url);
        if ('skip' in writeSpec) throw new Error(`open-loop-writes: ${writeGroup.name} skipped (${writeSpec.skip})`);
        const writes = runLoad({ ...writeSpec, url: child!.url, connections: openLoopWriters, durationSeconds: openLoopDuration });
        const list = await runOpenLoop({ ...listSpec, url: child!.url });
        const w = await writes;
        const p = await probe(child!);
        rows.push({ target: target.name, round, list, writes: w, probe: p });
        log(
          `open loop with writes ${target.name.padEnd(26)} r${round}  list p50 ${list.p50.toFixed(2)}  p99 ${list.p99.toFixed(2)}  p99.9 ${list.p999.toFixed(2)}  max ${list.max.toFixed(1)} ms  ` +
            `createOrder ${w.rps.toFixed(0)} req/s (p99 ${w.p99.toFixed(2)} ms)  loop p99 ${p?.loopDelayMs.p99.toFixed(1) ?? '?'} ms  failures ${list.failures}+${w.failures}`,
        );
      } finally {
        await stopChild(child!);
      }
    }
  }
  return rows;
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const startedAt = new Date();
  log(`load average before: ${loadAverage()}; load generators: ${generatorGc}`);
  const self = checkoutAt(root, async () => {
    await buildCliBundle();
  });
  await self.ensureBundle();
  const others = (opts['serve-from'] ?? []).map(otherCheckout);
  for (const other of others) await other.ensureBundle();

  const template = await thisTemplate();
  const manifest = template.manifest;
  // SQLite: each other checkout seeds its own template (its own schema). PostgreSQL: each runs on a
  // copy of this checkout's seeded cluster of its own (this checkout may migrate its copy further).
  const otherData = others.map((other) => (engine === 'postgres' ? { other, dir: template.dir, manifest } : { other, ...otherTemplate(other) }));
  let pg: BenchPostgres | undefined;
  const otherPgs: BenchPostgres[] = [];
  const stopPg = () => {
    pg?.stop();
    for (const p of otherPgs) p.stop();
  };
  process.once('SIGINT', () => {
    stopPg();
    process.exit(130);
  });
  try {
    let runDir: string;
    let databaseUrl: string | undefined;
    let pgTemplateDir: string | undefined;
    if (engine === 'postgres') {
      const pgTemplate = await preparePostgresTemplate({
        dir: path.join(dataRoot, `pg-template-${seedKey}`),
        sqliteTemplateDir: template.dir,
        copy: (url) => bulkCopyToPostgres(databasePath(template.dir), url, log),
        log,
      });
      pgTemplateDir = pgTemplate;
      pg = await startPostgresCopy(pgTemplate, path.join(dataRoot, 'pg-run'));
      databaseUrl = pg.url;
      runDir = freshRunDir(template.dir, 'run', [MASTER_KEY_FILE, MANIFEST_FILE]);
    } else {
      runDir = freshRunDir(template.dir, 'run');
    }
    const otherRunDirs = otherData.map((d, i) => freshRunDir(d.dir, `run-other-${i + 1}`, engine === 'postgres' ? [MASTER_KEY_FILE, MANIFEST_FILE] : undefined));
    const otherUrls: (string | undefined)[] = [];
    for (let i = 0; i < otherData.length; i++) {
      if (engine !== 'postgres') {
        otherUrls.push(undefined);
        continue;
      }
      const copy = await startPostgresCopy(pgTemplateDir!, path.join(dataRoot, `pg-run-other-${i + 1}`));
      otherPgs.push(copy);
      otherUrls.push(copy.url);
    }
    // The limit reference and the two-instance scenario write orders too: each gets a copy of the
    // seeded store of its own, so every serve measured (this checkout and the others) lists only the
    // orders it created itself, and deep pages compare like with like.
    // The limit references run one after the other on one store; with --long-lived, side by side, each on its own.
    const limitStores = new Map<string, { dir: string; url: string | undefined }>();
    const limitStoreFor = async (variant: string) => {
      const key = longLived ? variant : '';
      let store = limitStores.get(key);
      if (!store) {
        const name = key === '' ? 'run-limit' : `run-limit-${safeName(key)}`;
        if (engine === 'postgres') {
          const copy = await startPostgresCopy(pgTemplateDir!, path.join(dataRoot, `pg-${name}`));
          otherPgs.push(copy);
          store = { dir: '', url: copy.url };
        } else {
          store = { dir: freshRunDir(template.dir, name), url: undefined };
        }
        limitStores.set(key, store);
      }
      return store;
    };
    let x2Url: string | undefined;
    const x2UrlOnce = async () => {
      if (x2Url === undefined) {
        const copy = await startPostgresCopy(pgTemplateDir!, path.join(dataRoot, 'pg-run-x2'));
        otherPgs.push(copy);
        x2Url = copy.url;
        await settleDueWork(self, runDir, x2Url, 'settle-x2');
      }
      return x2Url;
    };
    const credentialsFile = path.join(dataRoot, 'reference-credentials.json');
    fs.writeFileSync(credentialsFile, JSON.stringify(manifest.merchant_credentials), { mode: 0o600 });
    const serveOptions = (label: string) => ({
      ...(databaseUrl ? { databaseUrl } : {}),
      ...(opts.profile ? { profileDir: path.join(path.resolve(opts.profile), label) } : {}),
      name: label,
    });

    // Before any measurement: each serve's store done with the work that fell due since seeding (the seeded
    // orders' channel events and expiries, about a thousand jobs on 1,000,000 orders; settleDueWork logs the
    // RSS that takes).
    const settled = await settleDueWork(self, runDir, databaseUrl, 'settle');
    for (let i = 0; i < otherData.length; i++) await settleDueWork(otherData[i]!.other, otherRunDirs[i]!, otherUrls[i], `settle-other-${i + 1}`);

    // Start-up on the seeded database, with nothing due: listening time (bundle and tsx) and RSS. V8 gives the
    // young generation it grew while starting back only once it has seen the process idle for a while (about
    // 10 s). So RSS is read at 2 s and after IDLE_RSS_AFTER_MS without a request (idle), with the peak in
    // between. (Read before the settling, a slow machine still did the due work at 15 s: docs/benchmarks.md,
    // "Late morning on 2026-11-29", its idle RSS.)
    const rss: StartupRss = { at2sMb: NaN, idleMb: NaN, peakMb: NaN };
    {
      const serve = await startServe(self, runDir, { ...(databaseUrl ? { databaseUrl } : {}), name: 'startup' });
      const peak = sampleRss(serve.pid, 100);
      await new Promise((r) => setTimeout(r, 2000));
      rss.at2sMb = (rssOf(serve.pid) ?? NaN) / 2 ** 20;
      await new Promise((r) => setTimeout(r, IDLE_RSS_AFTER_MS - 2000));
      rss.idleMb = (rssOf(serve.pid) ?? NaN) / 2 ** 20;
      rss.peakMb = peak.stop() / 2 ** 20;
      await stopChild(serve);
    }
    const tsxServe = await startServe(self, runDir, { ...(databaseUrl ? { databaseUrl } : {}), tsx: true, name: 'startup-tsx' });
    const tsxListenMs = tsxServe.listenMs;
    await stopChild(tsxServe);

    const wanted = new Set(opts.targets!.split(','));
    const targetsFor = (group: Group): Target[] => {
      const targets: Target[] = [];
      if (wanted.has('self')) targets.push({ name: `serve (${self.label})`, kind: 'serve', manifest, start: async (label) => [await startServe(self, runDir, serveOptions(label))] });
      if (group.limitPath && wanted.has('limit')) {
        // Several settings (e.g. --reference-commit wal-sync,pipelined,full) give one limit reference each; the fastest is the limit.
        const variants =
          engine === 'postgres'
            ? opts['pg-pool']!.split(',').map((pool) => ({ label: `pool ${pool}`, args: (s: { url: string | undefined }) => ['--database-url', s.url!, '--pool', pool] }))
            : opts['reference-commit']!.split(',').map((commit) => ({ label: commit, args: (s: { dir: string }) => ['--data-dir', s.dir, '--commit', commit] }));
        for (const v of variants) {
          targets.push({
            name: `limit reference (${v.label})`,
            kind: 'limit',
            manifest,
            start: async (label) => [await startTsxChild('limit-reference.ts', ['--credentials', credentialsFile, ...v.args(await limitStoreFor(v.label))], label)],
          });
        }
      }
      if (group.extras && engine === 'sqlite' && wanted.has('old')) {
        targets.push({
          name: 'per-request fsync (old reference)',
          kind: 'old-reference',
          manifest,
          start: async (label) => [await startTsxChild('reference-server.ts', ['--data-dir', path.join(runDir, 'reference'), '--credentials', credentialsFile], label)],
        });
      }
      if (group.extras && engine === 'postgres' && wanted.has('x2')) {
        const secondDir = freshRunDir(template.dir, 'run-2', [MASTER_KEY_FILE, MANIFEST_FILE]);
        targets.push({
          name: `serve ×2 instances (${self.label})`,
          kind: 'serve',
          manifest,
          start: async (label) => {
            const url = await x2UrlOnce();
            const options = (l: string) => ({ ...serveOptions(l), databaseUrl: url });
            const started = await Promise.allSettled([startServe(self, runDir, options(`${label}-a`)), startServe(self, secondDir, options(`${label}-b`))]);
            const failed = started.find((r) => r.status === 'rejected');
            if (failed) {
              // The one that did start is not left running.
              await Promise.all(started.flatMap((r) => (r.status === 'fulfilled' ? [stopChild(r.value)] : [])));
              throw failed.reason;
            }
            return started.map((r) => (r as PromiseFulfilledResult<Child>).value);
          },
        });
      }
      if (wanted.has('others')) otherData.forEach(({ other, manifest: otherManifest }, i) => {
        targets.push({
          name: `serve (${other.label})`,
          kind: 'serve',
          manifest: otherManifest,
          start: async (label) => {
            const url = otherUrls[i];
            return [await startServe(other, otherRunDirs[i]!, { ...serveOptions(label), ...(url ? { databaseUrl: url } : {}) })];
          },
        });
      });
      return targets;
    };

    const only = opts.only ? new Set(opts.only.split(',')) : undefined;
    const groups = GROUPS.filter((g) => !only || only.has(g.name));
    const measurements: Measurement[] = [];
    // A B A B…: every target of a scenario once per round, rounds one after the other, so drift shows between rounds
    // (with --long-lived, one window of each target per round, A B C then C B A: measureLongLived).
    for (const group of groups) {
      const targets = targetsFor(group);
      if (longLived) {
        measurements.push(...(await measureLongLived(group, targets)));
        continue;
      }
      for (let round = 1; round <= rounds; round++) {
        for (const target of targets) measurements.push(await measure(group, target, round));
      }
    }

    const openLoop =
      !only || only.has('open-loop')
        ? await openLoopSection(() => startServe(self, runDir, { ...(databaseUrl ? { databaseUrl } : {}), name: 'open-loop', serverTime: true }), manifest)
        : undefined;

    // Only when asked for by name: --only open-loop-writes.
    const openLoopWrites = only?.has('open-loop-writes')
      ? await openLoopWritesSection(
          targetsFor(GROUPS[0]!).filter((t) => t.kind === 'serve' && !t.name.includes('×2')),
          GROUPS[0]!,
        )
      : undefined;

    const report = buildReport({ startedAt, self, others, measurements, openLoop, openLoopWrites, rss, settled, tsxListenMs, manifest });
    const resultsDir = path.join(root, 'bench', 'results');
    fs.mkdirSync(resultsDir, { recursive: true });
    const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
    fs.writeFileSync(path.join(resultsDir, `${stamp}-${engine}.json`), JSON.stringify(report.json, null, 2));
    fs.writeFileSync(path.join(resultsDir, `${stamp}-${engine}.md`), report.markdown);
    fs.writeFileSync(path.join(resultsDir, `latest-${engine}.md`), report.markdown);
    process.stdout.write(report.markdown);
  } finally {
    stopPg();
  }
}

/** The target's CPU time per answered request over the measured seconds, in µs (all its processes together). */
function cpuUsPerRequest(m: Measurement): number {
  const percent = m.probes.reduce((n, p) => n + (p?.cpuPercent ?? NaN), 0);
  return m.rps === undefined || m.rps <= 0 ? NaN : (percent / 100) * 1e6 / m.rps;
}

interface Summary {
  group: string;
  target: string;
  kind: TargetKind;
  rounds: number[];
  rps: number;
  p50: number;
  p99: number;
  loopDelayP99: number;
  cpuPercent: number;
  /** The main thread's CPU (first child), median over the rounds, in % of one core. */
  mainThreadCpuPercent: number;
  /** Its event loop's utilisation (first child), median over the rounds. */
  eventLoopUtilization: number;
  /** How much of the time its main thread waited for a core (first child), median over the rounds, in %. */
  mainThreadWaitPercent: number;
  /** CPU time per answered request (cpuUsPerRequest), median over the rounds, µs. */
  cpuUs: number;
  /** Median of the per-round ratios of the best limit reference's CPU time per request to this target's (limit scenarios). */
  cpuRatio?: number;
  cpuRatios?: number[];
  /** The load generator's CPU (median over the rounds), in % of one core. */
  generatorCpuPercent: number;
  peakRssMb: number;
  failures: number;
  /** Median of the per-round ratios to the limit reference (or to the median of the named group's limit). */
  ratio?: number;
  ratios?: number[];
  ratioTo?: string;
  /** The same ratio to one limit variant, the one with the highest median over the run (bench/lib/limit-ratio.ts). */
  bestMedian?: { variant: string; ratio: number; ratios: number[] };
  skipped?: string;
}

function summarise(measurements: Measurement[]): Summary[] {
  const out: Summary[] = [];
  const keys = [...new Set(measurements.map((m) => `${m.group}\u0000${m.target}`))];
  // With several limit references (--reference-commit wal-sync,pipelined,full; --pg-pool 5,10), the limit is the
  // best of them: in a round, the fastest measured in that round; over the run, the one with the highest median
  // (bench/lib/limit-ratio.ts).
  const limitsOf = (group: string) => measurements.filter((m) => m.group === group && m.kind === 'limit' && m.rps !== undefined);
  const figures = (ms: Measurement[], value: (m: Measurement) => number): RoundFigure[] => ms.map((m) => ({ target: m.target, round: m.round, value: value(m) }));
  const medianLimit = (group: string) => bestVariant(figures(limitsOf(group), (m) => m.rps!))?.median ?? NaN;
  for (const key of keys) {
    const [group, target] = key.split('\u0000') as [string, string];
    const ms = measurements.filter((m) => m.group === group && m.target === target);
    const done = ms.filter((m) => m.rps !== undefined);
    const first = ms[0]!;
    if (done.length === 0) {
      out.push({ group, target, kind: first.kind, rounds: [], rps: NaN, p50: NaN, p99: NaN, loopDelayP99: NaN, cpuPercent: NaN, mainThreadCpuPercent: NaN, eventLoopUtilization: NaN, mainThreadWaitPercent: NaN, cpuUs: NaN, generatorCpuPercent: NaN, peakRssMb: NaN, failures: 0, skipped: first.skipped ?? 'no result' });
      continue;
    }
    const s: Summary = {
      group,
      target,
      kind: first.kind,
      rounds: done.map((m) => m.rps!),
      rps: median(done.map((m) => m.rps!)),
      p50: median(done.map((m) => m.p50!)),
      p99: median(done.map((m) => m.p99!)),
      loopDelayP99: median(done.map((m) => Math.max(...m.probes.map((p) => p?.loopDelayMs.p99 ?? NaN)))),
      cpuPercent: median(done.map((m) => m.probes.reduce((n, p) => n + (p?.cpuPercent ?? NaN), 0))),
      mainThreadCpuPercent: median(done.map((m) => m.probes[0]?.mainThreadCpuPercent ?? NaN)),
      eventLoopUtilization: median(done.map((m) => m.probes[0]?.eventLoopUtilization ?? NaN)),
      mainThreadWaitPercent: median(done.map((m) => m.probes[0]?.mainThreadWaitPercent ?? NaN)),
      cpuUs: median(done.map(cpuUsPerRequest)),
      generatorCpuPercent: median(done.map((m) => m.generatorCpuPercent ?? NaN)),
      peakRssMb: Math.max(...done.map((m) => m.peakRssMb!)),
      failures: done.reduce((n, m) => n + m.failures!, 0),
    };
    const def = GROUPS.find((g) => g.name === group)!;
    if (first.kind !== 'limit' && def.limitPath) {
      const limit = ratioToLimit(figures(done, (m) => m.rps!), figures(limitsOf(group), (m) => m.rps!));
      // At a fixed rate every target that keeps up answers as many: only the CPU ratio compares them.
      if (limit && fixedRate === undefined) {
        Object.assign(s, { ratio: limit.ratio, ratios: limit.ratios, ratioTo: 'best limit reference of the same round', bestMedian: limit.bestMedian });
      }
      const cpu = ratioToLimit(figures(done, cpuUsPerRequest), figures(limitsOf(group), cpuUsPerRequest), true);
      if (cpu) Object.assign(s, { cpuRatio: cpu.ratio, cpuRatios: cpu.ratios });
    } else if (first.kind !== 'limit' && def.ratioTo && fixedRate === undefined) {
      const limit = medianLimit(def.ratioTo);
      if (Number.isFinite(limit)) Object.assign(s, { ratio: s.rps / limit, ratioTo: `${def.ratioTo} limit (median)` });
    }
    out.push(s);
  }
  return out;
}

/** How long `serve` runs without a request before its RSS counts as idle (V8's memory reducer needs about 10 s). */
const IDLE_RSS_AFTER_MS = 15_000;

/** RSS of a `serve` just started on the seeded database, in MB. */
interface StartupRss {
  at2sMb: number;
  idleMb: number;
  peakMb: number;
}

function buildReport(input: {
  startedAt: Date;
  self: Checkout;
  others: Checkout[];
  measurements: Measurement[];
  openLoop: { floor: OpenLoopResult; rows: OpenLoopRow[] } | undefined;
  openLoopWrites: OpenLoopWritesRow[] | undefined;
  rss: StartupRss;
  settled: Settled | undefined;
  tsxListenMs: number;
  manifest: SeedManifest;
}): { json: unknown; markdown: string } {
  const summaries = summarise(input.measurements);
  const listenMedian = median(listenMs);
  const f = (n: number, digits = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '');
  const md: string[] = [
    `# Benchmark ${input.startedAt.toISOString()} — ${engine}`,
    '',
    `${os.cpus().length} CPUs, Node ${process.version}; ${[input.self, ...input.others].map((c) => c.label).join(' and ')}; ${connections} connections, ` +
      (longLived
        ? `${duration} s per measurement, ${rounds} round(s); each target started once (${warmup} s warm-up), its windows alternated with the others' (--long-lived); `
        : `${duration} s per measurement (${warmup} s warm-up), ${rounds} round(s) alternating every target; `) +
      `${input.manifest.orders.toLocaleString('en-US')} orders, ${input.manifest.merchants} merchants, ${input.manifest.days} days. Load average at the end: ${loadAverage()}. ` +
      `Load generators: in this process, ${generatorGc}.`,
    '',
    `serve listening after start: ${f(listenMedian)} ms median of ${listenMs.length} (bundle), ${f(input.tsxListenMs)} ms (tsx); idle RSS ${f(input.rss.idleMb)} MB (${IDLE_RSS_AFTER_MS / 1000} s after start, no request, nothing due; ${f(input.rss.at2sMb)} MB at 2 s, peak ${f(input.rss.peakMb)} MB)` +
      (input.settled
        ? `; before it, the ${f(input.settled.jobs)} order jobs and ${f(input.settled.callbacks)} callbacks due since seeding took ${f(input.settled.seconds, 1)} s, peak RSS ${f(input.settled.peakRssMb)} MB.`
        : '.') +
      (input.self.rebuilds > 1 ? ` (The bundle was rebuilt ${input.self.rebuilds} times: sources changed during the run.)` : ''),
    '',
    '| scenario | target | req/s per round | req/s (median) | p50 ms | p99 ms | × limit | loop delay p99 ms | CPU % (main thread; loop busy; waited %) | CPU µs/request | CPU × limit | peak RSS MB | failures | generator CPU % |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const s of summaries) {
    if (s.skipped) {
      md.push(`| ${s.group} | ${s.target} | skipped: ${s.skipped} | | | | | | | | | | | |`);
      continue;
    }
    const ratio =
      s.ratio === undefined
        ? ''
        : `${ratioText(s.ratio, s.ratios ?? [])}${s.ratioTo?.includes('median') ? '¹' : ''}${s.bestMedian ? ` [${ratioText(s.bestMedian.ratio, [])}]` : ''}`;
    const cpuRatio = s.cpuRatio === undefined ? '' : ratioText(s.cpuRatio, s.cpuRatios ?? []);
    md.push(
      `| ${s.group} | ${s.target} | ${s.rounds.map((r) => f(r)).join(' / ')} | ${f(s.rps)} | ${f(s.p50, 2)} | ${f(s.p99, 2)} | ${ratio} | ${f(s.loopDelayP99, 1)} | ${f(s.cpuPercent)} (${f(s.mainThreadCpuPercent)}; ${f(s.eventLoopUtilization, 2)}; ${f(s.mainThreadWaitPercent, 1)}) | ${f(s.cpuUs, 1)} | ${cpuRatio} | ${f(s.peakRssMb)} | ${s.failures} | ${f(s.generatorCpuPercent)} |`,
    );
  }
  md.push(
    '',
    '× limit: the median of the per-round ratios to the fastest limit reference of the same round (judged; strict, as the fastest of two or three draws is raised by the rounds\' scatter); in brackets, the median of the per-round ratios to one limit reference, the one with the highest median req/s over the run (not judged). ¹ against the median of the list-first limit reference (page 1): the nearest signed read the reference does. ' +
      'CPU µs/request: the target\'s CPU time over the measured seconds (every thread of its processes) per answer; waited %: how much of the measured seconds the main thread of the first process was ready to run and waited for a core (Linux schedstat; the cores are shared with the load generator and PostgreSQL), which delays every timer and request of its event loop; CPU × limit: the median of the per-round ratios of the lowest limit reference\'s to it' +
      (fixedRate === undefined ? ' (closed loop: every target near a full core, so this follows × limit).' : `. Every closed-loop scenario ran at a fixed ${fixedRate} requests/s (--fixed-rate): req/s shows whether a target kept up, CPU × limit compares them.`),
  );
  if (input.openLoop) {
    const { floor, rows } = input.openLoop;
    md.push(
      '',
      `## orderQueryList at a fixed ${openLoopRate} req/s (open loop, page 1, latency from the scheduled send time)`,
      '',
      `Generator floor (same schedule and signing against a server that does nothing): p50 ${f(floor.p50, 2)} ms, p99 ${f(floor.p99, 2)} ms, max ${f(floor.max, 1)} ms; send lag p99 ${f(floor.sendLagP99, 2)} ms; ${floor.connects} sockets opened (most open ${floor.mostSockets}).`,
      '',
      'Server p99: the same requests timed inside the server, from their headers parsed to their answers handed to the kernel (the loop probe): what the generator and the loopback add is outside it.',
      '',
      'Loop held ≥ 5 ms: how often the server\'s event loop did not turn for 5 ms or more, for how long in all, and how much of that its main thread spent waiting for a core and in garbage collection.',
      '',
      '| filters | req/s | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | send lag p99 / max ms | server p99 / max ms (p99 less its waits for a core) | loop delay p99 / max ms | loop held ≥ 5 ms: times, ms (waited, GC: major) | sockets opened (most open) | CPU % (waited %) | failures |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...rows.map(
        (r) =>
          `| ${r.name} | ${f(r.rate)} | ${f(r.p50, 2)} | ${f(r.p90, 2)} | ${f(r.p99, 2)} | ${f(r.p999, 2)} | ${f(r.max, 1)} | ${f(r.sendLagP99, 2)} / ${f(r.sendLagMax, 1)} | ` +
          `${f(r.probe?.serverMs?.p99 ?? NaN, 2)} / ${f(r.probe?.serverMs?.max ?? NaN, 1)} (${f(r.probe?.serverUnwaitedMs?.p99 ?? NaN, 2)}) | ${f(r.probe?.loopDelayMs.p99 ?? NaN, 1)} / ${f(r.probe?.loopDelayMs.max ?? NaN, 1)} | ${heldCell(r.probe?.holds)} | ${r.connects} (${r.mostSockets}) | ${f(r.probe?.cpuPercent ?? NaN)} (${f(r.probe?.mainThreadWaitPercent ?? NaN, 1)}) | ${r.failures} |`,
      ),
    );
  }
  if (input.openLoopWrites) {
    md.push(
      '',
      `## orderQueryList at a fixed ${openLoopRate} req/s beside ${openLoopWriters} connections of createOrder (open loop, page 1, no filter)`,
      '',
      '| target | round | list p50 ms | list p90 ms | list p99 ms | list p99.9 ms | list max ms | createOrder req/s | createOrder p99 ms | loop delay p99 ms | CPU % | failures |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...input.openLoopWrites.map(
        (r) =>
          `| ${r.target} | ${r.round} | ${f(r.list.p50, 2)} | ${f(r.list.p90, 2)} | ${f(r.list.p99, 2)} | ${f(r.list.p999, 2)} | ${f(r.list.max, 1)} | ${f(r.writes.rps)} | ${f(r.writes.p99, 2)} | ${f(r.probe?.loopDelayMs.p99 ?? NaN, 1)} | ${f(r.probe?.cpuPercent ?? NaN)} | ${r.list.failures + r.writes.failures} |`,
      ),
    );
  }
  // The ratios and the loop delay are this checkout's serve's (not measured when --targets leaves it out); the open
  // loop, start-up and idle RSS always are.
  const selfName = `serve (${input.self.label})`;
  const selfSummary = (group: string) => summaries.find((s) => s.group === group && s.target === selfName && !s.skipped);
  const ratioOf = (s: Summary | undefined) =>
    s?.ratio === undefined
      ? undefined
      : {
          ratio: s.ratio,
          rounds: s.ratios ?? [],
          bestMedian: s.bestMedian && { variant: s.bestMedian.variant, ratio: s.bestMedian.ratio, rounds: s.bestMedian.ratios },
        };
  const finite = (n: number | undefined) => (n !== undefined && Number.isFinite(n) ? n : undefined);
  const verdicts = judgeTargets({
    orders: input.manifest.orders,
    fixedRate,
    createOrder: ratioOf(selfSummary('createOrder-buy')),
    listFirst: ratioOf(selfSummary('list-first')),
    createOrderLoopDelayP99Ms: finite(selfSummary('createOrder-buy')?.loopDelayP99),
    openLoop: input.openLoop && {
      rate: openLoopRate,
      combinations: filterCombinations().length,
      rows: input.openLoop.rows.map((r) => ({ generatorP99Ms: r.p99, serverP99Ms: r.probe?.serverMs?.p99, scheduled: r.scheduled, completed: r.completed, failures: r.failures })),
    },
    listeningMs: finite(listenMedian),
    idleRssMb: finite(input.rss.idleMb),
  });
  md.push('', ...targetsMarkdown(verdicts));
  const profiles = input.measurements.filter((m) => m.profile);
  if (profiles.length > 0) md.push('', '## CPU profiles (top self time)', '', ...profiles.map((m) => m.profile!));
  md.push('');
  return {
    json: {
      started: input.startedAt.toISOString(),
      engine,
      machine: { cpus: os.cpus().length, node: process.version, loadAverageAtEnd: loadAverage(), generatorSingleThreadedGc: singleThreadedGc },
      code: { self: input.self.label, others: input.others.map((c) => c.label), bundleRebuilds: input.self.rebuilds },
      settings: { rounds, duration, warmup, connections, orders: input.manifest.orders, merchants: input.manifest.merchants, days: input.manifest.days, seed: input.manifest.seed, openLoopRate, openLoopDuration, openLoopWriters, referenceCommit: opts['reference-commit'], pgPool: opts['pg-pool'] },
      startup: { listenMsBundle: listenMs, listenMsBundleMedian: listenMedian, listenMsTsx: input.tsxListenMs, idleRssMb: input.rss.idleMb, rssAt2sMb: input.rss.at2sMb, startupPeakRssMb: input.rss.peakMb },
      summaries,
      measurements: input.measurements,
      openLoop: input.openLoop,
      openLoopWrites: input.openLoopWrites,
      targets: verdicts,
    },
    markdown: md.join('\n'),
  };
}

await main();
