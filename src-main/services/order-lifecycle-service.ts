/**
 * Order status changes (docs/order-lifecycle.md). Every change goes through
 * `transition`: checked against the state machine table, compare-and-set
 * on the order row, recorded with its source and reason, and — in the same
 * unit of work — its ledger movement, its follow-up work and its merchant
 * callback. Every method runs in the caller's unit of work (tx).
 */
import { AppError, ErrorCode } from '../../src-shared/errors';
import type { OrderStatus } from '../../src-shared/constants';
import { isFinalStatus, transitionRule, type TransitionSource } from '../../src-shared/order-state-machine';
import { targetStatusOf, type ChannelEvent } from '../channels/channel-events';
import type { ChannelRepository } from '../repositories/channel-repository';
import type { OrderJobKind, OrderLifecycleRepository } from '../repositories/order-lifecycle-repository';
import type { OrderRepository, OrderRow } from '../repositories/order-repository';
import type { ReadTx, WriteTx } from '../store/store';
import type { Clock, WorkSignal } from './context';
import type { LedgerService } from './ledger-service';

export interface TransitionCause {
  source: TransitionSource;
  reason: string;
}

/** Called inside the transition's unit of work (e.g. to queue the merchant callback). */
export type TransitionListener = (tx: WriteTx, order: OrderRow, from: OrderStatus) => Promise<void>;

export interface ChannelEventOutcome {
  order: OrderRow;
  /** False when the order had already reached this status (a repeated notification). */
  changed: boolean;
}

const ORDER_KIND = { 1: 'buy', 2: 'sell' } as const;

export interface OrderLifecycleDeps {
  clock: Clock;
  workSignal: WorkSignal;
  orders: OrderRepository;
  lifecycle: OrderLifecycleRepository;
  channels: ChannelRepository;
  ledger: LedgerService;
}

export function createOrderLifecycleService(deps: OrderLifecycleDeps) {
  const { clock, orders, lifecycle: jobs, channels } = deps;
  const listeners: TransitionListener[] = [];

  async function reload(tx: ReadTx, id: number): Promise<OrderRow> {
    return (await orders.findById(tx, id))!;
  }

  async function schedule(tx: WriteTx, order: OrderRow, kind: OrderJobKind, delaySeconds: number): Promise<void> {
    const now = clock.now();
    await jobs.scheduleJob(tx, order.id, kind, now + delaySeconds, now);
    // Wake the worker once the job is committed (and so visible to it).
    tx.afterCommit(() => deps.workSignal.notify());
  }

  /** Work that follows a status: a paid buy settles, an accepted payout completes. */
  async function scheduleFollowUp(tx: WriteTx, order: OrderRow): Promise<void> {
    const channel = (await channels.findById(tx, order.channel_id))!;
    if (order.order_type === 1 && order.status === 'paid') await schedule(tx, order, 'settle', channel.settle_delay_seconds);
    if (order.order_type === 2 && order.status === 'confirmed') await schedule(tx, order, 'complete_payout', channel.payout_delay_seconds);
  }

  async function transition(tx: WriteTx, order: OrderRow, to: OrderStatus, cause: TransitionCause): Promise<OrderRow> {
    const rule = transitionRule(order.order_type, order.status, to);
    if (!rule) {
      throw new AppError(
        ErrorCode.ILLEGAL_TRANSITION,
        `status: order ${order.order_no} cannot go from ${order.status} to ${to} (${ORDER_KIND[order.order_type]} order)`,
      );
    }
    const now = clock.now();
    // Past its deadline a buy is expired, whether or not the sweeper has cancelled it yet: never paid.
    if (to === 'paid' && order.expires_at !== null && order.expires_at <= now) {
      throw new AppError(
        ErrorCode.ILLEGAL_TRANSITION,
        `status: order ${order.order_no} expired at ${order.expires_at} (not paid within ${order.expires_at - order.createtime} s) and can no longer be paid`,
      );
    }
    // Everything below is one step: a refusal after the status moved (e.g. the ledger) undoes it all.
    return tx.savepoint(async (tx) => {
      if (!(await orders.updateStatus(tx, order.id, order.status, to, now))) {
        const current = await reload(tx, order.id);
        throw new AppError(ErrorCode.ILLEGAL_TRANSITION, `status: order ${order.order_no} is ${current.status} now, no longer ${order.status}`);
      }
      await jobs.insertTransition(tx, { order_id: order.id, from_status: order.status, to_status: to, source: cause.source, reason: cause.reason, createtime: now });
      const moved = await reload(tx, order.id);
      if (rule.effect) await deps.ledger.postOrder(tx, rule.effect, moved, `${order.order_no}: ${order.status} → ${to} (${cause.reason})`);
      if (isFinalStatus(moved.order_type, to)) await jobs.deleteJobsOf(tx, order.id);
      else await scheduleFollowUp(tx, moved);
      for (const listener of listeners) await listener(tx, moved, order.status);
      return moved;
    });
  }

  return {
    transition,

    onTransition(listener: TransitionListener): void {
      listeners.push(listener);
    },

    /** Work to do on a new order (e.g. hand a sell to the channel at once). */
    schedule,

    /**
     * Applies what a channel reported. A report the order already reflects
     * (a repeated notification, also one delivered to two instances at once:
     * the order row is locked first) changes nothing; one the state machine
     * refuses is an ILLEGAL_TRANSITION.
     */
    async applyChannelEvent(tx: WriteTx, order: OrderRow, event: ChannelEvent, reason: string): Promise<ChannelEventOutcome> {
      const to = targetStatusOf(order.order_type, event);
      if (!to) {
        throw new AppError(ErrorCode.ILLEGAL_TRANSITION, `event: ${event} does not apply to ${ORDER_KIND[order.order_type]} order ${order.order_no}`);
      }
      const current = (await orders.findByIdForUpdate(tx, order.id))!;
      if (current.status === to || (await jobs.hasReached(tx, order.id, to))) return { order: current, changed: false };
      return { order: await transition(tx, current, to, { source: 'channel', reason }), changed: true };
    },

    /** Operator cancel of a pending order (or a confirmed sell). */
    async cancelByOperator(tx: WriteTx, order: OrderRow, reason: string): Promise<OrderRow> {
      const text = reason.trim();
      if (!text) throw new AppError(ErrorCode.VALIDATION, 'reason: is required');
      const current = (await orders.findByIdForUpdate(tx, order.id))!;
      return transition(tx, current, 'cancelled', { source: 'operator', reason: text.slice(0, 256) });
    },

    /**
     * Cancels up to `limit` unpaid orders whose deadline passed; returns how
     * many. On PostgreSQL the rows are locked for the sweep and rows another
     * instance sweeps are skipped. An order that cannot be moved (someone
     * else moved it meanwhile, or it is broken) is added to `skip` and left
     * alone by later batches of the same pass. `seen` < limit: nothing more is due.
     */
    async expireDue(tx: WriteTx, limit: number, skip: Set<number> = new Set()): Promise<{ expired: number; seen: number }> {
      let expired = 0;
      const batch = (await orders.pendingExpired(tx, clock.now(), limit + skip.size)).filter((o) => !skip.has(o.id)).slice(0, limit);
      for (const order of batch) {
        try {
          await transition(tx, order, 'cancelled', { source: 'expiry', reason: `not paid within ${order.expires_at! - order.createtime} s` });
          expired++;
        } catch (err) {
          skip.add(order.id);
          if (!(err instanceof AppError)) throw err;
        }
      }
      return { expired, seen: batch.length };
    },

    timelineOf(tx: ReadTx, orderId: number) {
      return jobs.transitionsOf(tx, orderId);
    },

    jobsOf(tx: ReadTx, orderId: number) {
      return jobs.jobsOf(tx, orderId);
    },
  };
}
export type OrderLifecycleService = ReturnType<typeof createOrderLifecycleService>;
