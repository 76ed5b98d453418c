import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const PROBE = path.resolve(__dirname, '../../../bench/lib/loop-probe.mjs');

// A server that answers /slow after 40 ms, /spin after 300 ms of work on its event loop, /collect and /young after
// 100 ms of full or of young-generation garbage collections (it runs with --expose-gc) and anything else at once,
// preloaded with the probe as the bench does.
const SERVER = `
const http = require('node:http');
// A heap worth marking, made before the probe's first period ends.
const kept = Array.from({ length: 300000 }, (_, i) => ({ i, s: String(i) }));
const server = http.createServer((req, res) => {
  const answer = () => res.end('ok');
  if (req.url === '/slow') setTimeout(answer, 40);
  else if (req.url === '/spin') {
    const until = performance.now() + 300;
    while (performance.now() < until);
    answer();
  } else if (req.url === '/collect') {
    // Full collections for at least 100 ms on the loop.
    const until = performance.now() + 100;
    while (performance.now() < until) gc();
    // The heap stays as it was: every collection marks all of it.
    if (kept.length > 0) answer();
  } else if (req.url === '/young') {
    // Young-generation collections only (gc({ type: 'minor' })), for at least 100 ms on the loop.
    const until = performance.now() + 100;
    while (performance.now() < until) gc({ type: 'minor' });
    answer();
  } else answer();
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
`;

interface ServerMs {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

let child: ChildProcess | undefined;
let hog: ChildProcess | undefined;
let dir: string | undefined;

afterEach(() => {
  child?.kill();
  child = undefined;
  hog?.kill();
  hog = undefined;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** The server in a temp dir, preloaded with the probe, its first period already ended (start-up left out). */
async function startProbed(serverTime: boolean, onCpu?: number): Promise<{ port: number; metricsFile: string }> {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loop-probe-'));
  const metricsFile = path.join(dir, 'metrics.jsonl');
  const env = { ...process.env, MERCHANT_CONSOLE_BENCH_METRICS: metricsFile, MERCHANT_CONSOLE_BENCH_SERVER_TIME: serverTime ? '1' : '0' };
  const command = [process.execPath, '--expose-gc', '--import', PROBE, '-e', SERVER];
  const [file, ...args] = onCpu === undefined ? command : ['taskset', '-c', String(onCpu), ...command];
  child = spawn(file!, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const started = child;
  const port = await new Promise<number>((resolve, reject) => {
    started.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    started.stdout!.once('data', (line: Buffer) => resolve((JSON.parse(line.toString()) as { port: number }).port));
  });
  await probeLine(metricsFile);
  return { port, metricsFile };
}

async function get(port: number, urlPath: string): Promise<string> {
  return (await fetch(`http://127.0.0.1:${port}${urlPath}`)).text();
}

/** The open loop's server's holds of its event loop of 5 ms or more in a period. */
interface Holds {
  count: number;
  ms: number;
  max: number;
  ranMs: number;
  waitedMs: number;
  gcMs: number;
  majorGcMs: number;
}

/** SIGUSR2, then the line the probe appends for the period that ended. */
interface ProbeLine {
  serverMs: ServerMs | null;
  serverUnwaitedMs: ServerMs | null;
  holds: Holds | null;
  cpuPercent: number;
  mainThreadWaitPercent: number | null;
  seconds: number;
}

/** How long the main thread waited for a core in the whole period of a probe line, ms. */
function waitedMsOf(line: ProbeLine): number {
  return ((line.mainThreadWaitPercent ?? NaN) / 100) * line.seconds * 1000;
}

async function probeLine(metricsFile: string): Promise<ProbeLine> {
  const before = fs.existsSync(metricsFile) ? fs.readFileSync(metricsFile, 'utf8').split('\n').filter(Boolean).length : 0;
  child!.kill('SIGUSR2');
  for (let i = 0; i < 250; i++) {
    const lines = fs.existsSync(metricsFile) ? fs.readFileSync(metricsFile, 'utf8').split('\n').filter(Boolean) : [];
    if (lines.length > before) return JSON.parse(lines[lines.length - 1]!) as ProbeLine;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the probe wrote no line');
}

describe('the bench loop probe', () => {
  it("times each request inside the server, from its headers to its answer, and starts over at every SIGUSR2", async () => {
    const { port, metricsFile } = await startProbed(true);
    for (let i = 0; i < 9; i++) expect(await get(port, '/fast')).toBe('ok');
    expect(await get(port, '/slow')).toBe('ok');
    const line = await probeLine(metricsFile);
    const { serverMs } = line;
    expect(serverMs).not.toBeNull();
    expect(serverMs!.count).toBe(10);
    // The slow answer's 40 ms are the server's; the fast ones are not near it.
    expect(serverMs!.max).toBeGreaterThanOrEqual(39);
    expect(serverMs!.max).toBeLessThan(1_000);
    expect(serverMs!.p50).toBeLessThan(39);
    // Less the main thread's waits for a core: never more taken off than it waited in the whole period (its 40 ms
    // were a timer's; on a busy machine the wake-up after it waits for a core, and only that is taken off).
    const { serverUnwaitedMs } = line;
    expect(serverUnwaitedMs!.count).toBe(10);
    expect(serverUnwaitedMs!.max).toBeLessThanOrEqual(serverMs!.max);
    expect(serverMs!.max - serverUnwaitedMs!.max).toBeLessThanOrEqual(waitedMsOf(line) + 1);

    // A period without requests: nothing timed.
    expect((await probeLine(metricsFile)).serverMs).toBeNull();
  });

  it('times nothing unless asked to (the closed-loop scenarios would count its cost)', async () => {
    const { port, metricsFile } = await startProbed(false);
    for (let i = 0; i < 3; i++) expect(await get(port, '/fast')).toBe('ok');
    const line = await probeLine(metricsFile);
    expect(line.serverMs).toBeNull();
    expect(line.holds).toBeNull();
    expect(line.cpuPercent).toBeGreaterThanOrEqual(0);
  });

  it("records the open loop's server's holds of the event loop, 5 ms or more, with its main thread's run time in them", async () => {
    const { port, metricsFile } = await startProbed(true);
    expect(await get(port, '/spin')).toBe('ok');
    const spun = await probeLine(metricsFile);
    expect(spun.holds).not.toBeNull();
    // The 300 ms of work on the loop: one hold at least that long, the main thread running through it.
    expect(spun.holds!.count).toBeGreaterThanOrEqual(1);
    expect(spun.holds!.max).toBeGreaterThanOrEqual(290);
    expect(spun.holds!.ms).toBeGreaterThanOrEqual(spun.holds!.max);
    expect(spun.holds!.ranMs).toBeGreaterThan(200);
    expect(spun.holds!.ranMs).toBeLessThanOrEqual(spun.holds!.ms + 5);
    // Garbage collection is counted only where it overlapped a hold.
    expect(spun.holds!.gcMs).toBeLessThanOrEqual(spun.holds!.ms);

    // Full collections are a part of the collections counted, never more.
    expect(spun.holds!.majorGcMs).toBeLessThanOrEqual(spun.holds!.gcMs);

    // Counted again from zero in the next period: a few requests hold it far less.
    for (let i = 0; i < 3; i++) expect(await get(port, '/fast')).toBe('ok');
    expect((await probeLine(metricsFile)).holds!.ms).toBeLessThan(spun.holds!.max);
  });

  it('tells full collections in a hold from young-generation ones', async () => {
    const { port, metricsFile } = await startProbed(true);
    expect(await get(port, '/collect')).toBe('ok');
    const full = await probeLine(metricsFile);
    // The 100 ms of full collections held the loop, and most of the hold's collection time was counted as theirs
    // (a loaded machine adds young collections of its own around them: once 57 ms of 171 in CI).
    expect(full.holds!.max).toBeGreaterThanOrEqual(95);
    expect(full.holds!.gcMs).toBeGreaterThan(50);
    expect(full.holds!.majorGcMs).toBeGreaterThan(50);
    expect(full.holds!.majorGcMs).toBeGreaterThan(0.5 * full.holds!.gcMs);

    expect(await get(port, '/young')).toBe('ok');
    const young = await probeLine(metricsFile);
    expect(young.holds!.max).toBeGreaterThanOrEqual(95);
    expect(young.holds!.gcMs).toBeGreaterThan(20);
    expect(young.holds!.majorGcMs).toBe(0);
  });

  // Linux only (schedstat), and taskset (util-linux) to put two processes on one core.
  const canShareACore = process.platform === 'linux' && spawnSync('taskset', ['-V']).status === 0;
  it.runIf(canShareACore)('says how long the main thread waited for a core: work that shares its core with another process waits', async () => {
    // The server and a busy process on the same core (taskset, util-linux): 300 ms of the server's work take about
    // 600 ms, half of it waiting.
    const { port, metricsFile } = await startProbed(true, 0);
    hog = spawn('taskset', ['-c', '0', process.execPath, '-e', 'for (;;);'], { stdio: 'ignore' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await probeLine(metricsFile);
    expect(await get(port, '/spin')).toBe('ok');
    const shared = await probeLine(metricsFile);
    expect(shared.mainThreadWaitPercent).not.toBeNull();
    expect(shared.mainThreadWaitPercent!).toBeGreaterThan(15);
    expect(shared.mainThreadWaitPercent!).toBeLessThanOrEqual(100);
    // The work held the loop, and a good part of that hold was the wait for the core.
    expect(shared.holds!.max).toBeGreaterThanOrEqual(290);
    expect(shared.holds!.waitedMs).toBeGreaterThan(100);

    // The request's 300 ms in the server (its spin runs to a time, not a count), and the same less the main
    // thread's wait for the core meanwhile: the part of them it ran.
    expect(shared.serverMs!.max).toBeGreaterThanOrEqual(290);
    expect(shared.serverUnwaitedMs!.max).toBeLessThan(shared.serverMs!.max - 100);
    expect(shared.serverUnwaitedMs!.max).toBeGreaterThan(20);

    expect(shared.serverMs!.max - shared.serverUnwaitedMs!.max).toBeLessThanOrEqual(waitedMsOf(shared) + 1);

    // The core to itself: the same work waits far less.
    hog.kill();
    await new Promise((resolve) => hog!.once('exit', resolve));
    hog = undefined;
    await probeLine(metricsFile);
    expect(await get(port, '/spin')).toBe('ok');
    const alone = await probeLine(metricsFile);
    expect(alone.mainThreadWaitPercent!).toBeLessThan(shared.mainThreadWaitPercent!);
    // Its 300 ms mostly ran: what is taken off is the little it waited, not the time it ran.
    expect(alone.serverMs!.max - alone.serverUnwaitedMs!.max).toBeLessThanOrEqual(waitedMsOf(alone) + 1);
  });
});
