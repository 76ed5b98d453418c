/**
 * Preloaded into the benchmark's server children (`node --import <this file>
 * …`), never part of the product: with MERCHANT_CONSOLE_BENCH_METRICS=<file>
 * set, it samples the process's event-loop delay (perf_hooks
 * monitorEventLoopDelay, 1 ms resolution) and, on each SIGUSR2, appends one
 * JSON line to <file> with the delay percentiles, CPU time (the process's
 * and its main thread's), event-loop utilisation, how long the main thread
 * waited for a core (Linux) and RSS since the previous SIGUSR2, then starts
 * over. With MERCHANT_CONSOLE_BENCH_SERVER_TIME=1
 * too (the open loop's server only: it costs each request a few µs) it also
 * times every HTTP request the process serves, from its headers parsed to its
 * answer handed to the kernel (node:http's diagnostics channels), so that a
 * latency of the load generator's own can be told from the server's, and
 * records every hold of the event loop of 5 ms or more with what it was made
 * of (the main thread running, waiting for a core, garbage collection, and
 * of that full collections). The
 * bench sends SIGUSR2 right before
 * and right after each measured period. Being a preload, it measures any
 * checkout (`--serve-from`) and the references the same way, with no hook in
 * the service's code.
 *
 * Plain JavaScript: it runs before tsx or the CLI bundle is loaded.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import fs from 'node:fs';
import { constants as perfConstants, createHistogram, monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';

const file = process.env.MERCHANT_CONSOLE_BENCH_METRICS;
if (file) {
  const RESOLUTION_MS = 1;
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  let cpu = process.cpuUsage();
  // The main thread alone (Node 23.9 and later): what the process's CPU leaves out is its other threads' work.
  const threadCpu = typeof process.threadCpuUsage === 'function' ? () => process.threadCpuUsage() : () => undefined;
  let mainCpu = threadCpu();
  let elu = performance.eventLoopUtilization();
  // The main thread's time runnable but waiting for a core, in ns (Linux: the second field of its schedstat; the main
  // thread's id is the process's). A late timer is either a long turn of the loop or this: the two cores are shared
  // with the load generator (and PostgreSQL's backends), and a thread that waits for one delays every timer.
  // Its first field is the thread's run time. Opened once and read with a pread: the open loop's hold counter below
  // reads it a thousand times a second.
  let schedstatFd;
  try {
    schedstatFd = fs.openSync(`/proc/self/task/${process.pid}/schedstat`, 'r');
  } catch {
    schedstatFd = undefined;
  }
  const schedstatBuffer = Buffer.alloc(128);
  /** [run time, run-queue wait] of the main thread in ns, or NaNs without schedstat. */
  const schedstatNs = () => {
    if (schedstatFd === undefined) return [NaN, NaN];
    try {
      const [ran, waited] = schedstatBuffer.toString('latin1', 0, fs.readSync(schedstatFd, schedstatBuffer, 0, schedstatBuffer.length, 0)).split(' ');
      return [Number(ran), Number(waited)];
    } catch {
      return [NaN, NaN];
    }
  };
  let waited = schedstatNs()[1];
  let since = process.hrtime.bigint();
  const ms = (ns) => ns / 1e6;
  // Server time per request in µs: node:http publishes a request's start (headers parsed, before the body is
  // read) and its response's finish (the last byte handed to the socket).
  const serverTime = createHistogram();
  // The same less the main thread's waits for a core meanwhile (its schedstat, read at both ends: two reads more per
  // request): what is left is the server's own work and its waits for the store, whatever else ran on the loop in
  // between. A tail of the first that the second lacks is a core taken by another thread (the load generator's, the
  // database's, or one of the server's own workers: the schedstat does not say which).
  const serverTimeUnwaited = createHistogram();
  const timesRequests = process.env.MERCHANT_CONSOLE_BENCH_SERVER_TIME === '1';
  if (timesRequests) {
    const startedAt = new WeakMap();
    diagnosticsChannel.subscribe('http.server.request.start', ({ request }) => startedAt.set(request, [process.hrtime.bigint(), schedstatNs()[1]]));
    diagnosticsChannel.subscribe('http.server.response.finish', ({ request }) => {
      const start = startedAt.get(request);
      if (start === undefined) return;
      const us = Number((process.hrtime.bigint() - start[0]) / 1000n);
      serverTime.record(Math.max(1, us));
      const waitedUs = (schedstatNs()[1] - start[1]) / 1000;
      if (Number.isFinite(waitedUs)) serverTimeUnwaited.record(Math.max(1, Math.round(us - waitedUs)));
    });
  }
  // The open loop's server only: the loop's holds of 5 ms or more (the gaps of a 1 ms interval), and what they
  // were made of: the main thread running (its schedstat's run time), waiting for a core (its run-queue delay),
  // and garbage collection (perf_hooks' gc entries overlapping the gap). A latency tail of the open loop is either
  // the server's own work or a core taken by another thread (the load generator's garbage collector took one:
  // docs/benchmarks.md, "The load generator's garbage collector").
  // majorGcMs: the part of gcMs that was a full collection (mark-compact, or a step of its incremental marking);
  // the rest is young-generation scavenges and weak callbacks. They call for different cures.
  const noHolds = () => ({ count: 0, ms: 0, max: 0, ranMs: 0, waitedMs: 0, gcMs: 0, majorGcMs: 0 });
  const MAJOR_GC = perfConstants.NODE_PERFORMANCE_GC_MAJOR | perfConstants.NODE_PERFORMANCE_GC_INCREMENTAL;
  const holds = noHolds();
  if (timesRequests) {
    // A gc entry may arrive before or after the tick that sees the hold: each pair is counted by whichever comes second.
    let gcPauses = [];
    let recentHolds = [];
    const overlap = ([from, to], [a, b]) => Math.max(0, Math.min(to, b) - Math.max(from, a));
    const countGc = (hold, pause) => {
      const ms = overlap(hold, pause);
      holds.gcMs += ms;
      if (pause[2]) holds.majorGcMs += ms;
    };
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const pause = [entry.startTime, entry.startTime + entry.duration, ((entry.detail?.kind ?? 0) & MAJOR_GC) !== 0];
        gcPauses.push(pause);
        for (const hold of recentHolds) countGc(hold, pause);
      }
    }).observe({ entryTypes: ['gc'] });
    let last = performance.now();
    let lastSched = schedstatNs();
    setInterval(() => {
      const now = performance.now();
      const sched = schedstatNs();
      const held = now - last - 1;
      if (held >= 5) {
        holds.count++;
        holds.ms += held;
        holds.max = Math.max(holds.max, held);
        holds.ranMs += (sched[0] - lastSched[0]) / 1e6;
        holds.waitedMs += (sched[1] - lastSched[1]) / 1e6;
        const hold = [last, now];
        for (const pause of gcPauses) countGc(hold, pause);
        recentHolds.push(hold);
      }
      // Forget what no later entry or tick can overlap (mostly empty: no array made a thousand times a second).
      if (gcPauses.length > 0) gcPauses = gcPauses.filter(([, to]) => to > now - 1000);
      if (recentHolds.length > 0) recentHolds = recentHolds.filter(([, to]) => to > now - 1000);
      last = now;
      lastSched = sched;
    }, 1).unref();
  }
  const percentilesMs = (h) =>
    h.count === 0
      ? null
      : {
          count: h.count,
          p50: h.percentile(50) / 1000,
          p90: h.percentile(90) / 1000,
          p99: h.percentile(99) / 1000,
          p999: h.percentile(99.9) / 1000,
          max: h.max / 1000,
        };
  process.on('SIGUSR2', () => {
    const now = process.hrtime.bigint();
    const used = process.cpuUsage(cpu);
    const mainNow = threadCpu();
    const loopBusy = performance.eventLoopUtilization(elu);
    const waitedNow = schedstatNs()[1];
    const seconds = Number(now - since) / 1e9;
    // The histogram records the time between two ticks of a 1 ms timer; the delay is what exceeds the 1 ms.
    const delay = (v) => Math.max(0, ms(v) - RESOLUTION_MS);
    const line = {
      pid: process.pid,
      // CLOCK_MONOTONIC in µs, the clock of V8's CPU profiles: profiles are cut to the measured seconds by it.
      monotonicUs: Number(now / 1000n),
      seconds,
      samples: histogram.count,
      loopDelayMs: {
        p50: delay(histogram.percentile(50)),
        p90: delay(histogram.percentile(90)),
        p99: delay(histogram.percentile(99)),
        p999: delay(histogram.percentile(99.9)),
        max: delay(histogram.max),
        mean: delay(histogram.mean),
      },
      cpuPercent: ((used.user + used.system) / 1e6 / seconds) * 100,
      // The main thread's CPU, and the share of the time its event loop was not waiting for events (1: never idle).
      mainThreadCpuPercent: mainNow && mainCpu ? ((mainNow.user - mainCpu.user + mainNow.system - mainCpu.system) / 1e6 / seconds) * 100 : null,
      eventLoopUtilization: loopBusy.utilization,
      // The share of the period the main thread was ready to run and waited for a core (null: no schedstat).
      mainThreadWaitPercent: Number.isFinite(waitedNow - waited) ? ((waitedNow - waited) / 1e9 / seconds) * 100 : null,
      rssMb: process.memoryUsage.rss() / 2 ** 20,
      // Requests answered in the period, and how long each spent in this process (null: none).
      serverMs: percentilesMs(serverTime),
      // The same less the main thread's waits for a core during each request (null: none, or no schedstat).
      serverUnwaitedMs: percentilesMs(serverTimeUnwaited),
      // The loop's holds of 5 ms or more in the period (null: not the open loop's server).
      holds: timesRequests ? { ...holds } : null,
    };
    Object.assign(holds, noHolds());
    fs.appendFileSync(file, JSON.stringify(line) + '\n');
    histogram.reset();
    serverTime.reset();
    serverTimeUnwaited.reset();
    cpu = process.cpuUsage();
    mainCpu = threadCpu();
    elu = performance.eventLoopUtilization();
    waited = waitedNow;
    since = now;
  });
}
