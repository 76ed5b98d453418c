/**
 * Sends due merchant callbacks (docs/callbacks.md): a small pool of HTTP
 * attempts, one at a time per order (in order), each POSTed as
 * application/x-www-form-urlencoded with a 10 s timeout and no redirects
 * followed, only where the callback URL policy allows
 * (callbacks/callback-post.ts). A delivery is claimed before its attempt (one instance sends it;
 * an order's later deliveries wait while an earlier one is pending, on
 * every instance). Every attempt is logged and ends the claim. An attempt
 * that could not be logged (storage failure, a secret that cannot be
 * opened) keeps its claim until it runs out (CALLBACK_CLAIM_SECONDS), so it
 * is tried again then, not in a tight loop. A delivery interrupted by a stop
 * is not logged, its claim is given back and it stays due, so it is sent
 * again after the restart or by another instance (at least once).
 */
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { CallbackRefusedError, postCallback } from '../callbacks/callback-post';
import type { CallbackUrlPolicy } from '../callbacks/callback-url-policy';
import type { CallbackDeliveryRow, CallbackRepository } from '../repositories/callback-repository';
import type { MerchantRepository } from '../repositories/merchant-repository';
import type { ReadTx, Store } from '../store/store';
import type { Clock } from '../services/context';
import {
  CALLBACK_EXCERPT_BYTES,
  CALLBACK_READ_LIMIT_BYTES,
  CALLBACK_TIMEOUT_MS,
  CALLBACK_USER_AGENT,
  isAcknowledgement,
  type AttemptOutcome,
  type CallbackService,
} from '../services/callback-service';

/** How long a claimed delivery is this instance's (an attempt takes at most CALLBACK_TIMEOUT_MS). */
export const CALLBACK_CLAIM_SECONDS = 60;

export interface CallbackDispatcherOptions {
  /** Attempts in flight at once (across orders). */
  concurrency?: number;
  /** How long a claimed delivery stays this instance's (default CALLBACK_CLAIM_SECONDS). */
  claimSeconds?: number;
  timeoutMs?: number;
  onError?: (err: unknown) => void;
  /** Resolves callback host names (default dns.lookup; tests map names without a network). */
  lookup?: LookupFunction;
}

function describeFailure(err: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timeout: no answer within ${timeoutMs / 1000} s`;
  if (err instanceof CallbackRefusedError) return `refused: ${err.message}`.slice(0, 256);
  const e = err as { message?: string };
  return (e.message ?? String(err)).slice(0, 256);
}

export interface CallbackDispatcherDeps {
  store: Store;
  clock: Clock;
  instanceId: string;
  callbackRepo: CallbackRepository;
  merchants: MerchantRepository;
  callbacks: CallbackService;
  /** Where callbacks may go, read at every attempt: a setting changed by the CLI applies to a running service at once. */
  callbackPolicy(tx: ReadTx): Promise<CallbackUrlPolicy>;
}

export function createCallbackDispatcher(deps: CallbackDispatcherDeps, options: CallbackDispatcherOptions = {}) {
  const { store, clock, instanceId } = deps;
  const concurrency = options.concurrency ?? 8;
  const timeoutMs = options.timeoutMs ?? CALLBACK_TIMEOUT_MS;
  const onError = options.onError ?? (() => undefined);
  /** Delivery id → the attempt in flight for it. */
  const inFlight = new Map<number, Promise<void>>();
  let stopController = new AbortController();
  let stopping = false;
  let attemptsMade = 0;

  async function attempt(delivery: CallbackDeliveryRow, signal: AbortSignal): Promise<void> {
    const { merchant, policy } = await store.read(
      async (tx) => ({
        merchant: (await deps.merchants.findById(tx, delivery.merchant_id))!,
        policy: await deps.callbackPolicy(tx),
      }),
      { background: true },
    );
    let outcome: AttemptOutcome;
    if (!merchant.callback_url) {
      outcome = { url: '', httpStatus: null, latencyMs: 0, excerpt: '', error: 'the merchant has no callback_url', acknowledged: false };
    } else {
      const form = deps.callbacks.signedForm(delivery, merchant);
      const started = performance.now();
      let httpStatus: number | null = null;
      let body: Buffer = Buffer.alloc(0);
      let error: string | null = null;
      const timeout = AbortSignal.timeout(timeoutMs);
      try {
        const res = await postCallback(merchant.callback_url, new URLSearchParams(form).toString(), {
          headers: {
            'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
            'user-agent': CALLBACK_USER_AGENT,
            'x-callback-id': String(delivery.id),
            'x-callback-attempt': String(delivery.attempts + 1),
          },
          signal: AbortSignal.any([signal, timeout]),
          readLimit: CALLBACK_READ_LIMIT_BYTES,
          policy,
          lookup: options.lookup,
        });
        httpStatus = res.status;
        body = res.body;
      } catch (err) {
        // Stopped mid-attempt: not logged; the claim is given back and the delivery stays due.
        if (signal.aborted) {
          await store.write((tx) => deps.callbackRepo.release(tx, delivery.id, instanceId)).catch(onError);
          return;
        }
        error = describeFailure(err, timeout.aborted, timeoutMs);
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
    await store.write((tx) => deps.callbacks.recordAttempt(tx, delivery, outcome));
  }

  let pumping: Promise<void> | null = null;
  let pumpAgain = false;

  /** Claims due deliveries up to the pool size and starts their attempts. */
  function pump(orderId?: number): Promise<void> {
    if (pumping) {
      pumpAgain = true;
      return pumping;
    }
    // Nothing to start: no pass (one that ended before its first await would run its finally before the
    // assignment below and leave `pumping` set for good; runDue would then spin without yielding).
    if (stopping || inFlight.size >= concurrency) return Promise.resolve();
    pumping = (async () => {
      try {
        do {
          pumpAgain = false;
          if (stopping) return;
          const free = concurrency - inFlight.size;
          if (free <= 0) return;
          const now = clock.now();
          const due = await store.write((tx) =>
            deps.callbackRepo.claimDue(tx, { now, limit: free, instance: instanceId, until: now + (options.claimSeconds ?? CALLBACK_CLAIM_SECONDS), orderId }),
          );
          const signal = stopController.signal;
          for (const d of due) {
            const p = attempt(d, signal)
              .catch(onError)
              .finally(() => {
                inFlight.delete(d.id);
                void pump(orderId).catch(onError);
              });
            inFlight.set(d.id, p);
          }
        } while (pumpAgain);
      } finally {
        pumping = null;
      }
    })();
    return pumping;
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
        await pump(orderId);
        if (inFlight.size === 0 && !pumping) return attemptsMade - before;
        await Promise.all([...inFlight.values()]);
        if (pumping) await pumping;
      }
    },

    /** Aborts attempts in flight (they stay due, unlogged) and waits for them to wind down; starts nothing new until runDue is called again. */
    async stop(): Promise<void> {
      stopping = true;
      stopController.abort();
      if (pumping) await pumping.catch(() => undefined);
      await Promise.all([...inFlight.values()]);
    },

    nextDue(): Promise<number | null> {
      return store.read((tx) => deps.callbackRepo.nextDue(tx), { background: true });
    },
  };
}
export type CallbackDispatcher = ReturnType<typeof createCallbackDispatcher>;
