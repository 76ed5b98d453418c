/**
 * npm run bench: load tests against a real `merchant-console serve` child
 * process on 127.0.0.1 with a database of 1,000,000 orders, plus the bare
 * Fastify reference (bench/reference-server.ts) in the same run. Method and
 * figures: docs/benchmarks.md. Results: bench/results/ (gitignored).
 *
 *   npm run bench -- [--duration 10] [--connections 50] [--only name,name] [--quick]
 *                    [--orders 1000000] [--merchants 20] [--days 90] [--seed 1]
 *                    [--data-root .data/bench] [--profile DIR]
 *
 * The seeded database is built once per (orders, merchants, days, seed) as
 * a template and copied for every run. serve runs from the prebuilt bundle
 * (npm run build:cli, done here first) with rate limits explicitly off
 * (--rate-limit-key off --rate-limit-address off): the load comes from one
 * address and a few api_keys far above any sane production limit.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { computeSignature } from '../src-shared/client/sign';
import { databasePath } from '../src-main/store/data-dir';
import { openSqliteStore } from '../src-main/store/sqlite/sqlite-store';
import { MASTER_KEY_FILE } from '../src-main/crypto/secret-box';
import { buildCliBundle } from '../scripts/build-cli';
import { loadAverage, rssOf, sampleRss, startListeningChild, type RunningChild } from './lib/processes';
import { runLoad, type LoadResult, type LoadSpec } from './lib/load';
import { MANIFEST_FILE, readManifest, seedBenchDatabase, type SeedManifest, type SeededMerchantCredentials } from './seed-orders';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const { values: opts } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
    orders: { type: 'string', default: '1000000' },
    merchants: { type: 'string', default: '20' },
    days: { type: 'string', default: '90' },
    seed: { type: 'string', default: '1' },
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
    'data-root': { type: 'string' },
    'base-path': { type: 'string', default: '/addons/paychannel' },
    /** Write a V8 CPU profile of every serve child into this dir. */
    profile: { type: 'string' },
  },
});
if (opts.quick) {
  opts.duration = '2';
  opts.warmup = '1';
  opts.orders = '20000';
}
const duration = Number(opts.duration);
const warmup = Number(opts.warmup);
const connections = Number(opts.connections);
const basePath = opts['base-path']!;
const dataRoot = path.resolve(opts['data-root'] ?? path.join(root, '.data', 'bench'));
const DAY = 86_400;

function log(line: string): void {
  process.stderr.write(line + '\n');
}

// ---------------------------------------------------------------- data

async function prepareDatabase(): Promise<{ runDir: string; manifest: SeedManifest }> {
  const key = `o${opts.orders}-m${opts.merchants}-d${opts.days}-s${opts.seed}`;
  const templateDir = path.join(dataRoot, `template-${key}`);
  let manifest = readManifest(templateDir);
  if (!manifest) {
    fs.rmSync(templateDir, { recursive: true, force: true });
    fs.mkdirSync(templateDir, { recursive: true });
    log(`seeding ${opts.orders} orders over ${opts.merchants} merchants and ${opts.days} days into ${path.relative(root, templateDir)} …`);
    manifest = await seedBenchDatabase({
      dataDir: templateDir,
      orders: Number(opts.orders),
      merchants: Number(opts.merchants),
      days: Number(opts.days),
      seed: Number(opts.seed),
      log,
    });
    log(`seeded in ${manifest.seconds.toFixed(1)} s`);
  }
  // Bring the template to the current schema (what an upgrade would do),
  // outside any measurement; closing checkpoints the WAL into the file.
  // Statistics from older seeders go: a service database has none.
  const template = await openSqliteStore({ file: databasePath(templateDir) });
  await template.write(async (tx) => {
    await tx.run('DROP TABLE IF EXISTS sqlite_stat4');
    await tx.run('DROP TABLE IF EXISTS sqlite_stat1');
  });
  await template.close();
  const runDir = path.join(dataRoot, 'run');
  fs.rmSync(runDir, { recursive: true, force: true });
  fs.mkdirSync(runDir, { recursive: true, mode: 0o700 });
  for (const f of [path.basename(databasePath(templateDir)), MASTER_KEY_FILE, MANIFEST_FILE]) {
    fs.copyFileSync(path.join(templateDir, f), path.join(runDir, f));
  }
  return { runDir, manifest };
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

interface Scenario {
  name: string;
  target: 'serve' | 'reference';
  describe: string;
  spec(url: string): Promise<Omit<LoadSpec, 'url' | 'connections' | 'durationSeconds'> | { skip: string }>;
}

const isSuccess = (body: string) => body.startsWith('{"code":1,');

function scenarios(manifest: SeedManifest): Scenario[] {
  const merchants = manifest.merchant_credentials;
  const nextMerchant = roundRobin(merchants);
  const merchantPath = (endpoint: string) => `${basePath}/merchant/${endpoint}`;
  const json = { 'content-type': 'application/json' };
  const list = (name: string, describe: string, params: () => Record<string, unknown>): Scenario => ({
    name,
    target: 'serve',
    describe,
    spec: async () => ({ method: 'POST', path: merchantPath('orderQueryList'), headers: json, build: () => signedBody(nextMerchant(), params()), checkBody: isSuccess }),
  });
  const filtered = { order_type: 1, status: 'completed', start_time: manifest.now - 60 * DAY + 4321, end_time: manifest.now - DAY - 1234 };
  let rnd = 12345;
  const random = (n: number) => {
    rnd = (rnd * 1103515245 + 12345) & 0x7fffffff;
    return rnd % n;
  };
  const statuses = ['pending', 'paid', 'confirmed', 'completed', 'cancelled'];
  const buyBody = (m: SeededMerchantCredentials) => ({ order_type: 1, cny_amount: '100.50', paychannel_id: m.channels.beta, paychannel_paymethod: 'alipay' });
  const regionPath = `${basePath}/channel/alpha/regionData`;

  return [
    {
      name: 'reference-create',
      target: 'reference',
      describe: 'bare Fastify: HMAC check + nonce insert + order insert, one durable transaction per request',
      spec: async () => ({
        method: 'POST',
        path: '/order',
        headers: json,
        build: () => {
          const m = nextMerchant();
          return signedBody(m, buyBody(m));
        },
        checkBody: isSuccess,
      }),
    },
    {
      name: 'createOrder-buy',
      target: 'serve',
      describe: 'createOrder order_type 1, signed, fresh nonce per request',
      spec: async () => ({
        method: 'POST',
        path: merchantPath('createOrder'),
        headers: json,
        build: () => {
          const m = nextMerchant();
          return signedBody(m, buyBody(m));
        },
        checkBody: isSuccess,
      }),
    },
    list('list-first', 'orderQueryList page 1, no filter', () => ({})),
    list('list-page500', 'orderQueryList page 500, no filter', () => ({ page: 500 })),
    list('list-filtered-first', 'orderQueryList page 1, order_type + status + 59-day time range', () => ({ ...filtered })),
    list('list-filtered-page500', 'orderQueryList page 500, order_type + status + 59-day time range', () => ({ ...filtered, page: 500 })),
    list('list-random', 'orderQueryList, every request a random filter combination and page 1-500', () => {
      const p: Record<string, unknown> = { page: 1 + random(500) };
      if (random(2)) p.status = statuses[random(statuses.length)];
      if (random(2)) p.order_type = 1 + random(2);
      const a = manifest.now - random(90) * DAY - random(DAY);
      const b = manifest.now - random(90) * DAY - random(DAY);
      if (random(2)) p.start_time = Math.min(a, b);
      if (random(2)) p.end_time = Math.max(a, b);
      return p;
    }),
    {
      name: 'orderQueryDetail',
      target: 'serve',
      describe: 'orderQueryDetail of a random existing order of the merchant',
      spec: async () => ({
        method: 'POST',
        path: merchantPath('orderQueryDetail'),
        headers: json,
        build: () => {
          const m = nextMerchant();
          const sample = manifest.sample_orders[String(m.id)] ?? [];
          return signedBody(m, { order_no: sample[random(sample.length)] });
        },
        checkBody: isSuccess,
      }),
    },
    {
      name: 'getPayChannels',
      target: 'serve',
      describe: 'getPayChannels, no category',
      spec: async () => ({ method: 'POST', path: merchantPath('getPayChannels'), headers: json, build: () => signedBody(nextMerchant(), {}), checkBody: isSuccess }),
    },
    {
      name: 'regionData-full',
      target: 'serve',
      describe: 'GET regionData, whole tree',
      spec: async (url) => {
        const res = await fetch(url + regionPath);
        if (res.status === 404) return { skip: 'no regionData endpoint on this build' };
        return { method: 'GET', path: regionPath, checkBody: isSuccess };
      },
    },
    {
      name: 'regionData-304',
      target: 'serve',
      describe: 'GET regionData with If-None-Match of the current ETag',
      spec: async (url) => {
        const res = await fetch(url + regionPath);
        const etag = res.headers.get('etag');
        if (res.status === 404) return { skip: 'no regionData endpoint on this build' };
        if (!etag) return { skip: 'regionData answers without an ETag' };
        return { method: 'GET', path: regionPath, headers: { 'if-none-match': etag }, expectStatus: 304 };
      },
    },
  ];
}

// ---------------------------------------------------------------- run

interface ScenarioResult extends Partial<LoadResult> {
  name: string;
  describe: string;
  peakRssMb?: number;
  loadBefore: string;
  loadAfter?: string;
  skipped?: string;
  ratioToReference?: number;
}

async function startServe(runDir: string, env: NodeJS.ProcessEnv = {}): Promise<RunningChild> {
  return startListeningChild(
    [
      ...(opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(opts.profile)}`] : []),
      path.join(root, 'bin', 'merchant-console.mjs'),
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
    ],
    {
      env: {
        MERCHANT_CONSOLE_LOG_LEVEL: 'warn',
        ...env,
      },
      cwd: root,
    },
  );
}

async function main(): Promise<void> {
  const startedAt = new Date();
  log(`load average before: ${loadAverage()}`);
  const bundle = await buildCliBundle();
  log(`bundle: ${path.relative(root, bundle.file)}`);
  const { runDir, manifest } = await prepareDatabase();
  const only = opts.only ? new Set(opts.only.split(',')) : undefined;
  const list = scenarios(manifest).filter((s) => !only || only.has(s.name));

  // Start-up: listening time (bundle and tsx paths) and idle RSS.
  const listenMs: number[] = [];
  let idleRssMb = NaN;
  {
    const serve = await startServe(runDir);
    listenMs.push(serve.listenMs);
    await new Promise((r) => setTimeout(r, 2000));
    idleRssMb = (rssOf(serve.pid) ?? NaN) / 2 ** 20;
    await serve.stop();
  }
  const tsxServe = await startServe(runDir, { MERCHANT_CONSOLE_NO_BUNDLE: '1' });
  const tsxListenMs = tsxServe.listenMs;
  await tsxServe.stop();

  const credentialsFile = path.join(runDir, 'reference-credentials.json');
  fs.writeFileSync(credentialsFile, JSON.stringify(manifest.merchant_credentials), { mode: 0o600 });

  const results: ScenarioResult[] = [];
  for (const scenario of list) {
    const child =
      scenario.target === 'serve'
        ? await startServe(runDir)
        : await startListeningChild(['--import', 'tsx', path.join(root, 'bench', 'reference-server.ts'), '--data-dir', path.join(runDir, 'reference'), '--credentials', credentialsFile], {
            cwd: root,
          });
    if (scenario.target === 'serve') listenMs.push(child.listenMs);
    const result: ScenarioResult = { name: scenario.name, describe: scenario.describe, loadBefore: loadAverage() };
    try {
      const spec = await scenario.spec(child.url);
      if ('skip' in spec) {
        result.skipped = spec.skip;
        log(`${scenario.name}: skipped (${spec.skip})`);
      } else {
        if (warmup > 0) await runLoad({ ...spec, url: child.url, connections, durationSeconds: warmup });
        result.loadBefore = loadAverage();
        const rss = sampleRss(child.pid);
        const load = await runLoad({ ...spec, url: child.url, connections, durationSeconds: duration });
        result.peakRssMb = rss.stop() / 2 ** 20;
        result.loadAfter = loadAverage();
        Object.assign(result, load);
        log(
          `${scenario.name.padEnd(22)} ${load.rps.toFixed(0).padStart(7)} req/s  p50 ${load.p50.toFixed(2)} ms  p99 ${load.p99.toFixed(2)} ms  ` +
            `peak RSS ${result.peakRssMb.toFixed(0)} MB  failures ${load.failures}${load.failureSample ? ` (${load.failureSample})` : ''}  load ${result.loadAfter}`,
        );
      }
    } finally {
      await child.stop();
      const tail = child.stderr().trim().split('\n').slice(-1)[0];
      if (tail) log(`  ${scenario.target}: ${tail}`);
    }
    results.push(result);
  }

  const reference = results.find((r) => r.name === 'reference-create')?.rps;
  for (const r of results) if (reference && r.rps) r.ratioToReference = r.rps / reference;

  const report = {
    started: startedAt.toISOString(),
    machine: { cpus: (await import('node:os')).cpus().length, node: process.version, loadAverageAtEnd: loadAverage() },
    settings: { duration, warmup, connections, orders: manifest.orders, merchants: manifest.merchants, days: manifest.days, seed: manifest.seed },
    startup: {
      listenMsBundle: listenMs,
      listenMsBundleMedian: [...listenMs].sort((a, b) => a - b)[Math.floor(listenMs.length / 2)],
      listenMsTsx: tsxListenMs,
      idleRssMb,
    },
    results,
  };
  const resultsDir = path.join(root, 'bench', 'results');
  fs.mkdirSync(resultsDir, { recursive: true });
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  fs.writeFileSync(path.join(resultsDir, `${stamp}.json`), JSON.stringify(report, null, 2));
  const table = markdownTable(report.results);
  const md =
    `# Benchmark ${report.started}\n\n` +
    `${report.machine.cpus} CPUs, Node ${report.machine.node}; ${connections} connections, ${duration} s per scenario (${warmup} s warm-up); ` +
    `${manifest.orders} orders, ${manifest.merchants} merchants, ${manifest.days} days.\n\n` +
    `serve listening after start: ${report.startup.listenMsBundleMedian?.toFixed(0)} ms median of ${listenMs.length} (bundle), ${tsxListenMs.toFixed(0)} ms (tsx); idle RSS ${idleRssMb.toFixed(0)} MB.\n\n` +
    table +
    '\n';
  fs.writeFileSync(path.join(resultsDir, `${stamp}.md`), md);
  fs.writeFileSync(path.join(resultsDir, 'latest.md'), md);
  process.stdout.write(md);
}

function markdownTable(results: ScenarioResult[]): string {
  const rows = [
    '| scenario | req/s | p50 ms | p99 ms | peak RSS MB | × reference | failures | load avg (1 min) |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of results) {
    if (r.skipped) {
      rows.push(`| ${r.name} | skipped: ${r.skipped} | | | | | | |`);
      continue;
    }
    rows.push(
      `| ${r.name} | ${r.rps!.toFixed(0)} | ${r.p50!.toFixed(2)} | ${r.p99!.toFixed(2)} | ${r.peakRssMb!.toFixed(0)} | ${r.ratioToReference?.toFixed(2) ?? ''} | ${r.failures} | ${r.loadBefore.split(' ')[0]} → ${r.loadAfter?.split(' ')[0]} |`,
    );
  }
  return rows.join('\n');
}

await main();
