/**
 * One load run with autocannon's programmatic API: N connections for a fixed
 * duration, every request built fresh by `build()` (so each signed request
 * carries its own nonce, timestamp and signature). Latency percentiles are
 * computed here from every response's time in fractional milliseconds
 * (autocannon's own histogram rounds to whole milliseconds).
 */
import autocannon from 'autocannon';

export interface LoadSpec {
  url: string;
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  /** Fresh body per request. */
  build?: () => string;
  /** Expected status (default 200). */
  expectStatus?: number;
  /** Extra check of a response body with the expected status; false counts as a failure. */
  checkBody?: (body: string) => boolean;
  connections: number;
  durationSeconds: number;
  /** Requests per second over all connections (autocannon's overallRate); none: each connection sends its next request on an answer. */
  rate?: number | undefined;
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Responses with another status, bodies failing the check, socket errors and timeouts. */
  failures: number;
  failureSample: string | undefined;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

interface Collected {
  latencies: Float64Array;
  count: number;
  failures: number;
  failureSample: string | undefined;
  duration: number;
}

async function collect(spec: LoadSpec, url: string, connections: number): Promise<Collected> {
  const expected = spec.expectStatus ?? 200;
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  let failures = 0;
  let failureSample: string | undefined;
  // Without a callback autocannon returns its run as a promise that is also an event emitter.
  const instance = autocannon({
    url,
    connections,
    duration: spec.durationSeconds,
    ...(spec.rate !== undefined ? { overallRate: spec.rate } : {}),
    timeout: 10,
    requests: [
      {
        method: spec.method,
        path: spec.path,
        headers: spec.headers ?? {},
        ...(spec.build ? { setupRequest: (req: autocannon.Request) => ({ ...req, body: spec.build!() }) } : {}),
        onResponse: (status: number, body: string) => {
          if (status !== expected || (spec.checkBody && !spec.checkBody(body))) {
            failures++;
            failureSample ??= `${status} ${String(body).slice(0, 300)}`;
          }
        },
      },
    ],
  }) as unknown as Promise<autocannon.Result> & import('node:events').EventEmitter;
  // Socket errors and timeouts are only counted by autocannon: keep the first one's message for the report.
  instance.on('reqError', (err: Error) => {
    failureSample ??= `socket error: ${err?.message ?? String(err)}`;
  });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
    if (count === latencies.length) {
      const bigger = new Float64Array(latencies.length * 2);
      bigger.set(latencies);
      latencies = bigger;
    }
    latencies[count++] = responseTime;
  });
  const result = await instance;
  return { latencies: latencies.subarray(0, count), count, failures: failures + result.errors + result.timeouts, failureSample, duration: result.duration };
}

function summarise(parts: Collected[]): LoadResult {
  const count = parts.reduce((n, p) => n + p.count, 0);
  const all = new Float64Array(count);
  let at = 0;
  for (const p of parts) {
    all.set(p.latencies, at);
    at += p.count;
  }
  const sorted = all.sort();
  return {
    requests: count,
    rps: parts.reduce((n, p) => n + p.count / p.duration, 0),
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[count - 1] ?? NaN,
    failures: parts.reduce((n, p) => n + p.failures, 0),
    failureSample: parts.find((p) => p.failureSample)?.failureSample,
  };
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  return summarise([await collect(spec, spec.url, spec.connections)]);
}

/** The same load split evenly over several servers at once (instances on one database); one result for all. */
export async function runLoadSplit(spec: Omit<LoadSpec, 'url'>, urls: string[]): Promise<LoadResult> {
  const per = Math.max(1, Math.round(spec.connections / urls.length));
  const rate = spec.rate === undefined ? undefined : spec.rate / urls.length;
  return summarise(await Promise.all(urls.map((url) => collect({ ...spec, url, rate }, url, per))));
}
