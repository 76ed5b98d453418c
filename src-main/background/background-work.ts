/**
 * The running service's timers: one entry to start them (serve and the
 * desktop shell call it after the listener is up) and one to stop them.
 * Work itself is `service.work.runDue()`; due times are stored in the store,
 * so the first pass catches up on whatever fell due while nothing ran, and
 * timers are only a way to notice that the clock reached the next due time.
 */
import type { MerchantConsoleService } from '../service';
import { PURGE_PAUSE_MS } from './service-work';

export interface BackgroundWorkOptions {
  /** How often stored work is looked at even without a wake-up (work added by another process, clock-driven deadlines). */
  pollIntervalMs?: number;
  /** Purge of expired nonces, console login tokens/sessions and idempotency keys. */
  housekeepingIntervalMs?: number;
  onError?: (err: unknown) => void;
}

export interface BackgroundWork {
  /** Resolves once the running pass (if any) finished; no timer fires afterwards. */
  stop(): Promise<void>;
  /** Asks for a pass now (also triggered by the service's work signal). */
  wake(): void;
}

export function startBackgroundWork(service: MerchantConsoleService, options: BackgroundWorkOptions = {}): BackgroundWork {
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const housekeepingIntervalMs = options.housekeepingIntervalMs ?? 60_000;
  const onError = options.onError ?? (() => undefined);
  let stopped = false;
  let inFlight: Promise<unknown> = Promise.resolve();
  let wakeScheduled = false;

  function pass(): void {
    if (stopped) return;
    inFlight = service.work.runDue().catch(onError);
  }

  function wake(): void {
    if (stopped || wakeScheduled) return;
    wakeScheduled = true;
    // After the current synchronous work (e.g. the commit that scheduled it).
    setImmediate(() => {
      wakeScheduled = false;
      pass();
    });
  }

  const unsubscribe = service.workSignal.subscribe(wake);
  const poll = setInterval(pass, pollIntervalMs);
  // A purge of a large backlog runs in many steps, paced (PURGE_PAUSE_MS): the next one starts only after
  // it, and stop() ends it after its step under way instead of letting steps reach a closed store.
  const purgeStop = new AbortController();
  let purging: Promise<unknown> | null = null;
  const housekeeping = setInterval(() => {
    if (purging) return;
    purging = service.work
      .purgeExpired(purgeStop.signal, { pauseMs: PURGE_PAUSE_MS })
      .catch(onError)
      .finally(() => (purging = null));
  }, housekeepingIntervalMs);
  poll.unref();
  housekeeping.unref();
  pass();

  return {
    wake,
    async stop() {
      if (stopped) return;
      stopped = true;
      unsubscribe();
      clearInterval(poll);
      clearInterval(housekeeping);
      purgeStop.abort();
      await service.work.stop();
      await inFlight;
      await purging;
    },
  };
}
