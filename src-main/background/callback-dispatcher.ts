/**
 * Sends due merchant callbacks (docs/callbacks.md): a small pool of HTTP
 * attempts, one at a time per order (in order), each POSTed as
 * application/x-www-form-urlencoded with a 10 s timeout and no redirects
 * followed. Every attempt is logged; a delivery interrupted by a stop is not
 * logged and stays due, so it is sent again after the restart (at least once).
 */
import { performance } from 'node:perf_hooks';
import type { CallbackDeliveryRow } from '../repositories/callback-repository';
import type { ServiceContext } from '../services/context';
import {
  CALLBACK_EXCERPT_BYTES,
  CALLBACK_RETRY_DELAYS,
  CALLBACK_READ_LIMIT_BYTES,
  CALLBACK_TIMEOUT_MS,
  CALLBACK_USER_AGENT,
  isAcknowledgement,
  type AttemptOutcome,
  type CallbackService,
} from '../services/callback-service';
import type { WriteRunner } from './order-worker';

export interface CallbackDispatcherOptions {
  /** Attempts in flight at once (across orders). */
  concurrency?: number;
  timeoutMs?: number;
  onError?: (err: unknown) => void;
}

/** Reads at most `limit` bytes of a response body, then stops reading. */
async function readLimited(res: Response, limit: number): Promise<Buffer> {
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(Buffer.from(value));
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, limit);
}

function describeFailure(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return `timeout: no answer within ${timeoutMs / 1000} s`;
  const cause = e.cause?.code ?? e.cause?.message;
  return (cause ? `${e.message ?? 'request failed'}: ${cause}` : (e.message ?? String(err))).slice(0, 256);
}

export function createCallbackDispatcher(
  ctx: ServiceContext,
  deps: { callbacks: CallbackService; write: WriteRunner },
  options: CallbackDispatcherOptions = {},
) {
  const { repos } = ctx;
  const concurrency = options.concurrency ?? 8;
  const timeoutMs = options.timeoutMs ?? CALLBACK_TIMEOUT_MS;
  const onError = options.onError ?? (() => undefined);
  /** Order id → the attempt in flight for it. */
  const inFlight = new Map<number, Promise<void>>();
  /**
   * Delivery id → when it may be sent again, for attempts that failed
   * without being logged (storage failure, a secret that cannot be opened):
   * still due in SQLite, but trying again at once would loop (hammering the
   * merchant, or spinning); wait the first retry delay.
   */
  const unrecorded = new Map<number, number>();
  let stopController = new AbortController();
  let stopping = false;
  let attemptsMade = 0;

  async function attempt(delivery: CallbackDeliveryRow, signal: AbortSignal): Promise<void> {
    const merchant = repos.merchants.findById(delivery.merchant_id)!;
    let outcome: AttemptOutcome;
    if (!merchant.callback_url) {
      outcome = { url: '', httpStatus: null, latencyMs: 0, excerpt: '', error: 'the merchant has no callback_url', acknowledged: false };
    } else {
      const form = deps.callbacks.signedForm(delivery, merchant);
      const started = performance.now();
      let httpStatus: number | null = null;
      let body: Buffer = Buffer.alloc(0);
      let error: string | null = null;
      try {
        const res = await fetch(merchant.callback_url, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
            'user-agent': CALLBACK_USER_AGENT,
            'x-callback-id': String(delivery.id),
            'x-callback-attempt': String(delivery.attempts + 1),
          },
          body: new URLSearchParams(form).toString(),
          redirect: 'manual',
          signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
        });
        httpStatus = res.status;
        body = await readLimited(res, CALLBACK_READ_LIMIT_BYTES);
      } catch (err) {
        // Stopped mid-attempt: not logged, the delivery stays due and is sent again later.
        if (signal.aborted) return;
        error = describeFailure(err, timeoutMs);
      }
      const text = body.toString('utf8');
      outcome = {
        url: merchant.callback_url,
        httpStatus,
        latencyMs: Math.round(performance.now() - started),
        excerpt: body.subarray(0, CALLBACK_EXCERPT_BYTES).toString('utf8'),
        error,
        acknowledged: error === null && isAcknowledgement(httpStatus, text),
      };
    }
    attemptsMade++;
    await deps.write(() => deps.callbacks.recordAttempt(delivery, outcome));
    unrecorded.delete(delivery.id);
  }

  /** Starts attempts for due deliveries, up to the pool size, one per order. */
  function pump(orderId?: number): void {
    if (stopping) return;
    const free = concurrency - inFlight.size;
    if (free <= 0) return;
    const now = ctx.clock.now();
    const due = repos.callbacks
      .due(now, free + inFlight.size + unrecorded.size + 16)
      .filter((d) => !inFlight.has(d.order_id) && (orderId === undefined || d.order_id === orderId) && !((unrecorded.get(d.id) ?? 0) > now))
      .slice(0, free);
    const signal = stopController.signal;
    for (const d of due) {
      const p = attempt(d, signal)
        .catch((err: unknown) => {
          unrecorded.set(d.id, ctx.clock.now() + CALLBACK_RETRY_DELAYS[0]);
          onError(err);
        })
        .finally(() => {
          inFlight.delete(d.order_id);
          pump(orderId);
        });
      inFlight.set(d.order_id, p);
    }
  }

  return {
    /**
     * Sends everything due now (only `orderId`'s deliveries when given) and
     * resolves when no attempt is in flight and nothing more is due; returns
     * how many attempts were made.
     */
    async runDue(orderId?: number): Promise<number> {
      if (stopping && inFlight.size === 0) {
        // Called again after a stop: deliver again.
        stopping = false;
        stopController = new AbortController();
      }
      const before = attemptsMade;
      for (;;) {
        pump(orderId);
        if (inFlight.size === 0) return attemptsMade - before;
        await Promise.all([...inFlight.values()]);
      }
    },

    /** Aborts attempts in flight (they stay due, unlogged) and waits for them to wind down; starts nothing new until runDue is called again. */
    async stop(): Promise<void> {
      stopping = true;
      stopController.abort();
      await Promise.all([...inFlight.values()]);
    },

    nextDue(): number | null {
      return repos.callbacks.nextDue();
    },
  };
}
export type CallbackDispatcher = ReturnType<typeof createCallbackDispatcher>;
