/**
 * Runs the order work that is due (docs/order-lifecycle.md): the expiry
 * sweep and the jobs in `order_jobs` — hand a sell to its channel, ask the
 * channel whether a paid buy settled or an accepted payout completed. Due
 * times live in the store, so whatever fell due while the service was down
 * runs at the next start. Jobs are claimed before they run (one instance
 * per job and attempt; a claim whose instance died runs out after
 * JOB_CLAIM_SECONDS and the job is picked up again). Driver calls happen
 * outside any unit of work; what they report is applied in a write.
 */
import { AppError } from '../../src-shared/errors';
import type { ChannelDrivers } from '../channels/drivers';
import type { ChannelRepository } from '../repositories/channel-repository';
import type { OrderJobRow, OrderLifecycleRepository } from '../repositories/order-lifecycle-repository';
import type { OrderRepository } from '../repositories/order-repository';
import type { Store, WriteTx } from '../store/store';
import type { Clock } from '../services/context';
import type { OrderLifecycleService } from '../services/order-lifecycle-service';

/** Seconds before retrying a job whose driver call failed, by attempt; the last repeats. */
export const JOB_RETRY_DELAYS = [5, 30, 120, 600, 1800] as const;
/** A payout the channel could not even be given after this many attempts is cancelled (funds released). */
export const MAX_PAYOUT_START_ATTEMPTS = 10;
/** How long a claimed job is this instance's: its driver call must end well within (channel drivers time out sooner). */
export const JOB_CLAIM_SECONDS = 120;

/** Unpaid orders cancelled per write by the expiry sweep. */
export const EXPIRY_BATCH = 200;
/** Jobs claimed at a time. */
const JOB_BATCH = 50;

export interface OrderWorkReport {
  expired: number;
  jobs: number;
  failed: number;
}

export interface OrderWorkerDeps {
  store: Store;
  clock: Clock;
  /** Names this process in its claims. */
  instanceId: string;
  /** How long a claim holds (default JOB_CLAIM_SECONDS). */
  claimSeconds?: number | undefined;
  orders: OrderRepository;
  channels: ChannelRepository;
  jobs: OrderLifecycleRepository;
  drivers: ChannelDrivers;
  lifecycle: OrderLifecycleService;
}

export function createOrderWorker(deps: OrderWorkerDeps) {
  const { store, clock, instanceId, orders, channels, jobs, lifecycle } = deps;

  /** Applies what the channel said unless the order moved on meanwhile; the job is done either way. */
  async function settleJob(job: OrderJobRow, apply: (tx: WriteTx) => Promise<unknown>): Promise<void> {
    await store.write(async (tx) => {
      try {
        await apply(tx);
      } catch (err) {
        // The order moved on (e.g. cancelled by an operator): nothing left to do.
        if (!(err instanceof AppError)) throw err;
      }
      await jobs.deleteClaimedJob(tx, job.id, instanceId);
    });
  }

  async function runJob(job: OrderJobRow): Promise<void> {
    const { order, channel } = await store.read(
      async (tx) => {
        const o = (await orders.findById(tx, job.order_id))!;
        return { order: o, channel: (await channels.findById(tx, o.channel_id))! };
      },
      { background: true },
    );
    const expected = { start_payout: 'pending', settle: 'paid', complete_payout: 'confirmed' } as const;
    if (order.status !== expected[job.kind]) {
      await store.write((tx) => jobs.deleteClaimedJob(tx, job.id, instanceId));
      return;
    }
    const driver = deps.drivers.for(channel);
    if (job.kind === 'start_payout') {
      const start = await driver.startPayout(order, channel);
      await settleJob(job, (tx) =>
        start.accepted
          ? lifecycle.applyChannelEvent(tx, order, 'payout_accepted', `payout accepted by channel ${channel.id} (${start.reference})`)
          : lifecycle.applyChannelEvent(tx, order, 'failed', `payout refused by channel ${channel.id}: ${start.reason}`),
      );
      return;
    }
    const report = await driver.queryStatus(order, channel);
    if (report.event === null) {
      // Still processing: ask again later.
      await store.write((tx) => jobs.retryClaimedJob(tx, job.id, instanceId, clock.now() + retryDelay(job.attempts), report.reason));
      return;
    }
    const event = report.event;
    await settleJob(job, (tx) => lifecycle.applyChannelEvent(tx, order, event, report.reason));
  }

  async function failJob(job: OrderJobRow, err: unknown): Promise<void> {
    const message = err instanceof Error ? err.message : String(err);
    await store.write(async (tx) => {
      if (job.kind === 'start_payout' && job.attempts + 1 >= MAX_PAYOUT_START_ATTEMPTS) {
        const order = (await orders.findById(tx, job.order_id))!;
        try {
          await lifecycle.applyChannelEvent(tx, order, 'failed', `payout could not be handed to the channel after ${MAX_PAYOUT_START_ATTEMPTS} attempts: ${message}`);
        } catch (e) {
          if (!(e instanceof AppError)) throw e;
        }
        await jobs.deleteClaimedJob(tx, job.id, instanceId);
        return;
      }
      await jobs.retryClaimedJob(tx, job.id, instanceId, clock.now() + retryDelay(job.attempts), message);
    });
  }

  return {
    /** Runs everything due now; resolves when done. */
    async runDue(): Promise<OrderWorkReport> {
      const report: OrderWorkReport = { expired: 0, jobs: 0, failed: 0 };
      // One batch per write: HTTP writes interleave with a long catch-up.
      const skip = new Set<number>();
      for (;;) {
        const { expired, seen } = await store.write((tx) => lifecycle.expireDue(tx, EXPIRY_BATCH, skip));
        report.expired += expired;
        if (seen < EXPIRY_BATCH) break;
      }
      for (;;) {
        const now = clock.now();
        const claimed = await store.write((tx) => jobs.claimDue(tx, { now, limit: JOB_BATCH, instance: instanceId, until: now + (deps.claimSeconds ?? JOB_CLAIM_SECONDS) }));
        if (claimed.length === 0) return report;
        for (const job of claimed) {
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
    nextDue(): Promise<number | null> {
      return store.read(async (tx) => {
        const job = await jobs.nextJobDue(tx);
        const expiry = await orders.nextExpiry(tx);
        if (job === null) return expiry;
        if (expiry === null) return job;
        return Math.min(job, expiry);
      }, { background: true });
    },
  };
}
export type OrderWorker = ReturnType<typeof createOrderWorker>;

function retryDelay(attempts: number): number {
  return JOB_RETRY_DELAYS[Math.min(attempts, JOB_RETRY_DELAYS.length - 1)]!;
}
