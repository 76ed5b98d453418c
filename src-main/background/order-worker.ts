/**
 * Runs the order work that is due (docs/order-lifecycle.md): the expiry
 * sweep and the jobs in `order_jobs` — hand a sell to its channel, ask the
 * channel whether a paid buy settled or an accepted payout completed. Due
 * times live in SQLite, so whatever fell due while the service was down runs
 * at the next start. Driver calls happen outside any transaction; what they
 * report is applied in a write job.
 */
import { AppError } from '../../src-shared/errors';
import type { ChannelDrivers } from '../channels/drivers';
import type { OrderJobRow } from '../repositories/order-lifecycle-repository';
import type { ServiceContext } from '../services/context';
import type { OrderLifecycleService } from '../services/order-lifecycle-service';

/** Seconds before retrying a job whose driver call failed, by attempt; the last repeats. */
export const JOB_RETRY_DELAYS = [5, 30, 120, 600, 1800] as const;
/** A payout the channel could not even be given after this many attempts is cancelled (funds released). */
export const MAX_PAYOUT_START_ATTEMPTS = 10;

/** Unpaid orders cancelled per write job by the expiry sweep. */
export const EXPIRY_BATCH = 200;

export type WriteRunner = <T>(fn: () => T) => Promise<T>;

export interface OrderWorkReport {
  expired: number;
  jobs: number;
  failed: number;
}

export function createOrderWorker(ctx: ServiceContext, deps: { drivers: ChannelDrivers; lifecycle: OrderLifecycleService; write: WriteRunner }) {
  const { repos, clock } = ctx;
  const { lifecycle, write } = deps;

  /** Applies a channel event unless the order moved on meanwhile; always drops the job. */
  async function settleJob(job: OrderJobRow, apply: () => void): Promise<void> {
    await write(() => {
      try {
        apply();
      } catch (err) {
        // The order moved on (e.g. cancelled by an operator): nothing left to do.
        if (!(err instanceof AppError)) throw err;
      }
      repos.lifecycle.deleteJob(job.id);
    });
  }

  async function runJob(job: OrderJobRow): Promise<void> {
    const order = repos.orders.findById(job.order_id)!;
    const channel = repos.channels.findById(order.channel_id)!;
    const expected = { start_payout: 'pending', settle: 'paid', complete_payout: 'confirmed' } as const;
    if (order.status !== expected[job.kind]) {
      await write(() => repos.lifecycle.deleteJob(job.id));
      return;
    }
    const driver = deps.drivers.for(channel);
    if (job.kind === 'start_payout') {
      const start = await driver.startPayout(order, channel);
      await settleJob(job, () => {
        if (start.accepted) lifecycle.applyChannelEvent(order, 'payout_accepted', `payout accepted by channel ${channel.id} (${start.reference})`);
        else lifecycle.applyChannelEvent(order, 'failed', `payout refused by channel ${channel.id}: ${start.reason}`);
      });
      return;
    }
    const report = await driver.queryStatus(order, channel);
    if (report.event === null) {
      // Still processing: ask again later.
      await write(() => repos.lifecycle.retryJob(job.id, clock.now() + retryDelay(job.attempts), report.reason));
      return;
    }
    const event = report.event;
    await settleJob(job, () => lifecycle.applyChannelEvent(order, event, report.reason));
  }

  async function failJob(job: OrderJobRow, err: unknown): Promise<void> {
    const message = err instanceof Error ? err.message : String(err);
    await write(() => {
      if (job.kind === 'start_payout' && job.attempts + 1 >= MAX_PAYOUT_START_ATTEMPTS) {
        const order = repos.orders.findById(job.order_id)!;
        try {
          lifecycle.applyChannelEvent(order, 'failed', `payout could not be handed to the channel after ${MAX_PAYOUT_START_ATTEMPTS} attempts: ${message}`);
        } catch (e) {
          if (!(e instanceof AppError)) throw e;
        }
        repos.lifecycle.deleteJob(job.id);
        return;
      }
      if (repos.lifecycle.jobById(job.id)) repos.lifecycle.retryJob(job.id, clock.now() + retryDelay(job.attempts), message);
    });
  }

  return {
    /** Runs everything due now; resolves when done. */
    async runDue(): Promise<OrderWorkReport> {
      const report: OrderWorkReport = { expired: 0, jobs: 0, failed: 0 };
      // One batch per write job: HTTP writes interleave with a long catch-up.
      for (;;) {
        const expired = await write(() => lifecycle.expireDue(EXPIRY_BATCH, 1));
        report.expired += expired;
        if (expired < EXPIRY_BATCH) break;
      }
      const seen = new Set<number>();
      for (;;) {
        const due = repos.lifecycle.dueJobs(clock.now(), 100).filter((j) => !seen.has(j.id));
        if (due.length === 0) return report;
        for (const job of due) {
          seen.add(job.id);
          try {
            await runJob(job);
            report.jobs++;
          } catch (err) {
            report.failed++;
            await failJob(job, err);
          }
        }
      }
    },

    /** When the next job falls due (Unix seconds), or null. */
    nextDue(): number | null {
      const job = repos.lifecycle.nextJobDue();
      const expiry = repos.orders.nextExpiry();
      if (job === null) return expiry;
      if (expiry === null) return job;
      return Math.min(job, expiry);
    },
  };
}
export type OrderWorker = ReturnType<typeof createOrderWorker>;

function retryDelay(attempts: number): number {
  return JOB_RETRY_DELAYS[Math.min(attempts, JOB_RETRY_DELAYS.length - 1)]!;
}
