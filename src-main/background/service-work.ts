/**
 * Everything the service does on its own, as one `runDue()`: tests call it
 * after moving a manual clock (no sleeping); the running service calls it
 * from timers (background-work.ts); the CLI calls it when it acts on a data
 * dir no service is running on.
 */
import type { ChannelDrivers } from '../channels/drivers';
import type { CallbackService } from '../services/callback-service';
import type { ServiceContext } from '../services/context';
import type { OrderLifecycleService } from '../services/order-lifecycle-service';
import { createCallbackDispatcher, type CallbackDispatcherOptions } from './callback-dispatcher';
import { createOrderWorker, type OrderWorkReport, type WriteRunner } from './order-worker';

export interface WorkReport {
  orders: OrderWorkReport;
  /** Callback attempts made (successful or not). */
  callbackAttempts: number;
}

export interface ServiceWorkDeps {
  drivers: ChannelDrivers;
  lifecycle: OrderLifecycleService;
  callbacks: CallbackService;
  write: WriteRunner;
  callbackOptions?: CallbackDispatcherOptions;
}

export function createServiceWork(ctx: ServiceContext, deps: ServiceWorkDeps) {
  const orders = createOrderWorker(ctx, deps);
  const callbacks = createCallbackDispatcher(ctx, { callbacks: deps.callbacks, write: deps.write }, deps.callbackOptions);
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
      const orderReport = await runOrders();
      const callbackAttempts = await callbacks.runDue(options.callbacksOfOrder);
      return { orders: orderReport, callbackAttempts };
    },

    /** Earliest due time of stored work (Unix seconds), or null when nothing is scheduled. */
    nextDue(): number | null {
      const times = [orders.nextDue(), callbacks.nextDue()].filter((t): t is number => t !== null);
      return times.length ? Math.min(...times) : null;
    },

    /** Interrupts callback attempts in flight (they stay due) and waits for the order pass in progress. */
    async stop(): Promise<void> {
      await callbacks.stop();
      await running;
    },
  };
}
export type ServiceWork = ReturnType<typeof createServiceWork>;
