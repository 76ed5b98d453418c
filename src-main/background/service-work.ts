/**
 * Everything the service does on its own, as one `runDue()`: tests call it
 * after moving a manual clock (no sleeping); the running service calls it
 * from timers (background-work.ts); the CLI calls it once when it acts on a
 * data dir no service is running on.
 */
import type { ChannelDrivers } from '../channels/drivers';
import type { ServiceContext } from '../services/context';
import type { OrderLifecycleService } from '../services/order-lifecycle-service';
import { createOrderWorker, type OrderWorkReport, type WriteRunner } from './order-worker';

export interface WorkReport {
  orders: OrderWorkReport;
}

export function createServiceWork(ctx: ServiceContext, deps: { drivers: ChannelDrivers; lifecycle: OrderLifecycleService; write: WriteRunner }) {
  const orders = createOrderWorker(ctx, deps);
  let running: Promise<WorkReport> | null = null;
  let again = false;

  async function runOnce(): Promise<WorkReport> {
    return { orders: await orders.runDue() };
  }

  return {
    /**
     * Runs all work due at the clock's now and resolves when it is done.
     * Calls while a run is in progress join it (and trigger one more pass).
     */
    runDue(): Promise<WorkReport> {
      if (running) {
        again = true;
        return running;
      }
      running = (async () => {
        try {
          let report = await runOnce();
          while (again) {
            again = false;
            report = await runOnce();
          }
          return report;
        } finally {
          running = null;
        }
      })();
      return running;
    },

    /** Earliest due time of stored work (Unix seconds), or null when nothing is scheduled. */
    nextDue(): number | null {
      return orders.nextDue();
    },
  };
}
export type ServiceWork = ReturnType<typeof createServiceWork>;
