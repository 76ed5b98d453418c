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

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const expected = spec.expectStatus ?? 200;
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  let failures = 0;
  let failureSample: string | undefined;
  // Without a callback autocannon returns its run as a promise that is also an event emitter.
  const instance = autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.durationSeconds,
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
  instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
    if (count === latencies.length) {
      const bigger = new Float64Array(latencies.length * 2);
      bigger.set(latencies);
      latencies = bigger;
    }
    latencies[count++] = responseTime;
  });
  const result = await instance;
  const sorted = latencies.subarray(0, count).sort();
  return {
    requests: count,
    rps: count / result.duration,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[count - 1] ?? NaN,
    failures: failures + result.errors + result.timeouts,
    failureSample,
  };
}
