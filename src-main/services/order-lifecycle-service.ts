/**
 * Order status changes (docs/order-lifecycle.md). Every change goes through
 * `transition`: checked against the state machine table, compare-and-set
 * on the order row, recorded with its source and reason, and — in the same
 * SQLite transaction — its ledger movement, its follow-up work and its
 * merchant callback.
 */
import { AppError, ErrorCode } from '../../src-shared/errors';
import type { OrderStatus } from '../../src-shared/constants';
import { isFinalStatus, transitionRule, type TransitionSource } from '../../src-shared/order-state-machine';
import { targetStatusOf, type ChannelEvent } from '../channels/channel-events';
import type { OrderJobKind } from '../repositories/order-lifecycle-repository';
import type { OrderRow } from '../repositories/order-repository';
import { writeTransaction } from '../store/transaction';
import type { ServiceContext } from './context';
import type { LedgerService } from './ledger-service';

export interface TransitionCause {
  source: TransitionSource;
  reason: string;
}

/** Called inside the transition's SQLite transaction (e.g. to queue the merchant callback). */
export type TransitionListener = (order: OrderRow, from: OrderStatus) => void;

export interface ChannelEventOutcome {
  order: OrderRow;
  /** False when the order had already reached this status (a repeated notification). */
  changed: boolean;
}

const ORDER_KIND = { 1: 'buy', 2: 'sell' } as const;

export function createOrderLifecycleService(ctx: ServiceContext, deps: { ledger: LedgerService }) {
  const { repos, db, clock } = ctx;
  const listeners: TransitionListener[] = [];

  function reload(id: number): OrderRow {
    return repos.orders.findById(id)!;
  }

  function schedule(order: OrderRow, kind: OrderJobKind, delaySeconds: number): void {
    const now = clock.now();
    repos.lifecycle.scheduleJob(order.id, kind, now + delaySeconds, now);
    ctx.workSignal.notify();
  }

  /** Work that follows a status: a paid buy settles, an accepted payout completes. */
  function scheduleFollowUp(order: OrderRow): void {
    const channel = repos.channels.findById(order.channel_id)!;
    if (order.order_type === 1 && order.status === 'paid') schedule(order, 'settle', channel.settle_delay_seconds);
    if (order.order_type === 2 && order.status === 'confirmed') schedule(order, 'complete_payout', channel.payout_delay_seconds);
  }

  function transition(order: OrderRow, to: OrderStatus, cause: TransitionCause): OrderRow {
    const rule = transitionRule(order.order_type, order.status, to);
    if (!rule) {
      throw new AppError(
        ErrorCode.ILLEGAL_TRANSITION,
        `status: order ${order.order_no} cannot go from ${order.status} to ${to} (${ORDER_KIND[order.order_type]} order)`,
      );
    }
    return writeTransaction(db, () => {
      const now = clock.now();
      // Past its deadline a buy is expired, whether or not the sweeper has cancelled it yet: never paid.
      if (to === 'paid' && order.expires_at !== null && order.expires_at <= now) {
        throw new AppError(
          ErrorCode.ILLEGAL_TRANSITION,
          `status: order ${order.order_no} expired at ${order.expires_at} (not paid within ${order.expires_at - order.createtime} s) and can no longer be paid`,
        );
      }
      if (!repos.orders.updateStatus(order.id, order.status, to, now)) {
        const current = reload(order.id);
        throw new AppError(ErrorCode.ILLEGAL_TRANSITION, `status: order ${order.order_no} is ${current.status} now, no longer ${order.status}`);
      }
      repos.lifecycle.insertTransition({ order_id: order.id, from_status: order.status, to_status: to, source: cause.source, reason: cause.reason, createtime: now });
      const moved = reload(order.id);
      if (rule.effect) deps.ledger.postOrder(rule.effect, moved, `${order.order_no}: ${order.status} → ${to} (${cause.reason})`);
      if (isFinalStatus(moved.order_type, to)) repos.lifecycle.deleteJobsOf(order.id);
      else scheduleFollowUp(moved);
      for (const listener of listeners) listener(moved, order.status);
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
     * (a repeated notification) changes nothing; one the state machine
     * refuses is an ILLEGAL_TRANSITION.
     */
    applyChannelEvent(order: OrderRow, event: ChannelEvent, reason: string): ChannelEventOutcome {
      const to = targetStatusOf(order.order_type, event);
      if (!to) {
        throw new AppError(ErrorCode.ILLEGAL_TRANSITION, `event: ${event} does not apply to ${ORDER_KIND[order.order_type]} order ${order.order_no}`);
      }
      return writeTransaction(db, () => {
        const current = reload(order.id);
        if (current.status === to || repos.lifecycle.hasReached(order.id, to)) return { order: current, changed: false };
        return { order: transition(current, to, { source: 'channel', reason }), changed: true };
      });
    },

    /** Operator cancel of a pending order (or a confirmed sell). */
    cancelByOperator(order: OrderRow, reason: string): OrderRow {
      const text = reason.trim();
      if (!text) throw new AppError(ErrorCode.VALIDATION, 'reason: is required');
      return transition(order, 'cancelled', { source: 'operator', reason: text.slice(0, 256) });
    },

    /**
     * Cancels unpaid orders whose deadline passed, `limit` per transaction;
     * returns how many. Catches up any backlog, or at most `maxBatches`
     * batches (the worker commits between batches so a long catch-up never
     * holds the write lock for long).
     */
    expireDue(limit = 200, maxBatches = Infinity): number {
      let total = 0;
      const skipped = new Set<number>();
      for (let round = 0; round < maxBatches; round++) {
        const batch = repos.orders.pendingExpired(clock.now(), limit + skipped.size).filter((o) => !skipped.has(o.id)).slice(0, limit);
        if (batch.length === 0) return total;
        writeTransaction(db, () => {
          for (const order of batch) {
            try {
              transition(order, 'cancelled', { source: 'expiry', reason: `not paid within ${order.expires_at! - order.createtime} s` });
              total++;
            } catch (err) {
              // Moved by someone else meanwhile, or broken: never retry it in this sweep.
              skipped.add(order.id);
              if (!(err instanceof AppError)) throw err;
            }
          }
        });
      }
      return total;
    },

    timelineOf(orderId: number) {
      return repos.lifecycle.transitionsOf(orderId);
    },

    jobsOf(orderId: number) {
      return repos.lifecycle.jobsOf(orderId);
    },
  };
}
export type OrderLifecycleService = ReturnType<typeof createOrderLifecycleService>;
