/**
 * Preloaded into the benchmark's server children (`node --import <this file>
 * …`), never part of the product: with MERCHANT_CONSOLE_BENCH_METRICS=<file>
 * set, it samples the process's event-loop delay (perf_hooks
 * monitorEventLoopDelay, 1 ms resolution) and, on each SIGUSR2, appends one
 * JSON line to <file> with the delay percentiles, CPU time (the process's
 * and its main thread's), event-loop utilisation and RSS since the
 * previous SIGUSR2, then starts over. The bench sends SIGUSR2 right before
 * and right after each measured period. Being a preload, it measures any
 * checkout (`--serve-from`) and the references the same way, with no hook in
 * the service's code.
 *
 * Plain JavaScript: it runs before tsx or the CLI bundle is loaded.
 */
import fs from 'node:fs';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

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
  let since = process.hrtime.bigint();
  const ms = (ns) => ns / 1e6;
  process.on('SIGUSR2', () => {
    const now = process.hrtime.bigint();
    const used = process.cpuUsage(cpu);
    const mainNow = threadCpu();
    const loopBusy = performance.eventLoopUtilization(elu);
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
      rssMb: process.memoryUsage.rss() / 2 ** 20,
    };
    fs.appendFileSync(file, JSON.stringify(line) + '\n');
    histogram.reset();
    cpu = process.cpuUsage();
    mainCpu = threadCpu();
    elu = performance.eventLoopUtilization();
    since = now;
  });
}
