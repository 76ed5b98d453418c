/**
 * Everything the service does on its own, as one `runDue()`: tests call it
 * after moving a manual clock (no sleeping); the running service calls it
 * from timers (background-work.ts); the CLI calls it when it acts on a data
 * dir no service is running on. Work is claimed in the store, so any number
 * of instances may run it side by side (docs/deployment.md).
 */
import type { ChannelDrivers } from '../channels/drivers';
import type { CallbackRepository } from '../repositories/callback-repository';
import type { ChannelRepository } from '../repositories/channel-repository';
import type { MerchantRepository } from '../repositories/merchant-repository';
import type { OrderLifecycleRepository } from '../repositories/order-lifecycle-repository';
import type { OrderRepository } from '../repositories/order-repository';
import type { ClusterLockRepository } from '../repositories/cluster-lock-repository';
import type { ReadTx, Store, WriteTx } from '../store/store';
import type { CallbackUrlPolicy } from '../callbacks/callback-url-policy';
import type { CallbackService } from '../services/callback-service';
import type { ConsoleAuthService } from '../services/console-auth-service';
import type { Clock } from '../services/context';
import type { IdempotencyService } from '../services/idempotency-service';
import type { OrderLifecycleService } from '../services/order-lifecycle-service';
import type { RequestAuthService } from '../services/request-auth-service';
import { createCallbackDispatcher, type CallbackDispatcherOptions } from './callback-dispatcher';
import { createOrderWorker, type OrderWorkReport } from './order-worker';

/** Rows per table a purge step removes: about 5 ms of deletes on SQLite (docs/decisions.md, "Purges in steps"). */
export const PURGE_STEP = 500;

/**
 * The running service's pause between two purge steps (background-work.ts). Back to back, SQLite's steps
 * removed about 280,000 nonces a second and wrote the WAL faster than the checkpoint worker copied it back;
 * the store's holds for the WAL's start-overs then put a list's p99 at 72–103 ms while it lasted (nonces by
 * bucket, migration 0012; up to 297 ms before them). With the pause about 23,000 rows a second, about twice
 * the list requests a second this machine serves, and the p99 stayed at 3.4–8.1 ms in every 5-s slice
 * measured (docs/decisions.md, "Purges in steps").
 */
export const PURGE_PAUSE_MS = 20;

export interface WorkReport {
  orders: OrderWorkReport;
  /** Callback attempts made (successful or not). */
  callbackAttempts: number;
}

export interface ServiceWorkDeps {
  store: Store;
  clock: Clock;
  instanceId: string;
  orders: OrderRepository;
  channels: ChannelRepository;
  merchants: MerchantRepository;
  jobs: OrderLifecycleRepository;
  callbackRepo: CallbackRepository;
  clusterLocks: ClusterLockRepository;
  drivers: ChannelDrivers;
  lifecycle: OrderLifecycleService;
  callbacks: CallbackService;
  requestAuth: RequestAuthService;
  consoleAuth: ConsoleAuthService;
  idempotency: IdempotencyService;
  callbackOptions?: CallbackDispatcherOptions | undefined;
  /** How long claims on jobs and deliveries hold before another instance may take the work (defaults in the workers). */
  claimSeconds?: number | undefined;
  /** Where callbacks may go (read at every attempt). */
  callbackPolicy(tx: ReadTx): Promise<CallbackUrlPolicy>;
  /** Approval requests past their 24 h end (holds released). */
  approvals: { expireDue(tx: WriteTx): Promise<number>; nextExpiry(tx: ReadTx): Promise<number | null> };
}

export interface Backlog {
  order_jobs: number;
  order_jobs_due: number;
  oldest_job_due: number | null;
  callbacks_pending: number;
  callbacks_due: number;
  oldest_callback_due: number | null;
}

export function createServiceWork(deps: ServiceWorkDeps) {
  const orders = createOrderWorker(deps);
  const callbacks = createCallbackDispatcher(
    {
      store: deps.store,
      clock: deps.clock,
      instanceId: deps.instanceId,
      callbackRepo: deps.callbackRepo,
      merchants: deps.merchants,
      callbacks: deps.callbacks,
      callbackPolicy: deps.callbackPolicy,
    },
    { ...(deps.claimSeconds !== undefined ? { claimSeconds: deps.claimSeconds } : {}), ...deps.callbackOptions },
  );
  let running: Promise<OrderWorkReport> | null = null;
  let again = false;

  /** One order pass at a time; a call during a pass joins it and asks for one more. */
  function runOrders(): Promise<OrderWorkReport> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        let report = await orders.runDue();
        while (again) {
          again = false;
          const more = await orders.runDue();
          report = { expired: report.expired + more.expired, jobs: report.jobs + more.jobs, failed: report.failed + more.failed };
        }
        return report;
      } finally {
        running = null;
      }
    })();
    return running;
  }

  return {
    /**
     * Runs all work due at the clock's now — expiry, order jobs, then the
     * callbacks they and earlier changes queued — and resolves when it is
     * done. `callbacksOfOrder` limits the callbacks sent to one order's.
     */
    async runDue(options: { callbacksOfOrder?: number } = {}): Promise<WorkReport> {
      // Expired approval requests first: a withdrawal's held funds are free again before anything else runs.
      const expiry = await deps.store.read((tx) => deps.approvals.nextExpiry(tx), { background: true });
      if (expiry !== null && expiry <= deps.clock.now()) while ((await deps.store.write((tx) => deps.approvals.expireDue(tx))) > 0);
      const orderReport = await runOrders();
      const callbackAttempts = await callbacks.runDue(options.callbacksOfOrder);
      return { orders: orderReport, callbackAttempts };
    },

    /** Earliest due time of stored work (Unix seconds), or null when nothing is scheduled. */
    async nextDue(): Promise<number | null> {
      const approvalExpiry = await deps.store.read((tx) => deps.approvals.nextExpiry(tx), { background: true });
      const times = [await orders.nextDue(), await callbacks.nextDue(), approvalExpiry].filter((t): t is number => t !== null);
      return times.length ? Math.min(...times) : null;
    },

    /**
     * Removes what has expired: nonces, console login tokens and sessions,
     * idempotency keys. One instance at a time does it (the others skip).
     * Nonces and idempotency keys go in steps of at most PURGE_STEP rows per
     * table, each its own unit of work: after a busy hour there may be
     * hundreds of thousands, and on SQLite one DELETE of them all held the
     * event loop for seconds (docs/decisions.md, "Purges in steps").
     * An aborted `signal` ends it after the step under way (shutdown).
     * `pauseMs` between steps: the running service's pace (PURGE_PAUSE_MS,
     * background-work.ts); none when called directly (tests, bench/purge-probe.ts).
     */
    async purgeExpired(signal?: AbortSignal, options: { pauseMs?: number } = {}): Promise<{ purged: number; skipped: boolean }> {
      let purged = 0;
      for (let step = 0; !signal?.aborted; step++) {
        const r = await deps.store.write(
          async (tx) => {
            if (!(await deps.clusterLocks.tryLock(tx, 'purge'))) return undefined;
            const nonces = await deps.requestAuth.purgeExpiredNonces(tx, PURGE_STEP);
            const keys = await deps.idempotency.purgeExpired(tx, PURGE_STEP);
            // Sessions, login tokens and throttle rows: a handful per person, once per purge.
            const consoleRows = step === 0 ? await deps.consoleAuth.purgeExpired(tx) : 0;
            return { removed: nonces + keys + consoleRows, more: nonces === PURGE_STEP || keys === PURGE_STEP };
          },
          // What a crash forgets to remove is removed by the next purge.
          { durable: false },
        );
        if (r === undefined) return { purged, skipped: step === 0 };
        purged += r.removed;
        if (!r.more) break;
        if (options.pauseMs) await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
      }
      return { purged, skipped: false };
    },

    /**
     * Takes back the claims other processes left: only for a process that
     * knows it is alone on the store (SQLite, holding the data dir's lock),
     * where any other claim belongs to a process that died (kill -9, power
     * cut). Its work then runs now instead of when the claims run out. Never
     * on PostgreSQL, where the other instances are alive.
     */
    async releaseClaimsOfOthers(): Promise<number> {
      if (deps.store.dialect !== 'sqlite') return 0;
      return deps.store.write(
        async (tx) => (await deps.jobs.releaseClaimsOfOthers(tx, deps.instanceId)) + (await deps.callbackRepo.releaseClaimsOfOthers(tx, deps.instanceId)),
      );
    },

    /** Work waiting in the store, for monitoring (docs/deployment.md). */
    backlog(): Promise<Backlog> {
      return deps.store.read(async (tx) => {
        const now = deps.clock.now();
        const j = await deps.jobs.backlog(tx, now);
        const c = await deps.callbackRepo.backlog(tx, now);
        return {
          order_jobs: j.jobs,
          order_jobs_due: j.due,
          oldest_job_due: j.oldest_due,
          callbacks_pending: c.pending,
          callbacks_due: c.due,
          oldest_callback_due: c.oldest_due,
        };
      });
    },

    /** Interrupts callback attempts in flight (they stay due) and waits for the order pass in progress. */
    async stop(): Promise<void> {
      await callbacks.stop();
      await running;
    },
  };
}
export type ServiceWork = ReturnType<typeof createServiceWork>;
