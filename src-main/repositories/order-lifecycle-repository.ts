import type { OrderStatus } from '../../src-shared/constants';
import type { TransitionSource } from '../../src-shared/order-state-machine';
import type { ReadTx, WriteTx } from '../store/store';

export interface TransitionRow {
  id: number;
  order_id: number;
  from_status: OrderStatus;
  to_status: OrderStatus;
  source: TransitionSource;
  reason: string;
  createtime: number;
}

export const ORDER_JOB_KINDS = ['start_payout', 'settle', 'complete_payout'] as const;
export type OrderJobKind = (typeof ORDER_JOB_KINDS)[number];

export interface OrderJobRow {
  id: number;
  order_id: number;
  kind: OrderJobKind;
  due_at: number;
  attempts: number;
  last_error: string | null;
  /** The instance running it now, and until when its claim holds (migration 0008). */
  claimed_by: string | null;
  claimed_until: number | null;
  createtime: number;
}

const CLAIM = (lock: string) => `UPDATE order_jobs SET claimed_by = @instance, claimed_until = @until
     WHERE id IN (SELECT id FROM order_jobs WHERE due_at <= @now AND (claimed_until IS NULL OR claimed_until <= @now)
                  ORDER BY due_at, id LIMIT @limit${lock})
     RETURNING *`;
const CLAIM_SQLITE = CLAIM('');
// Jobs another instance is claiming right now are skipped, not waited for.
const CLAIM_POSTGRES = CLAIM(' FOR UPDATE SKIP LOCKED');

/** Status transitions of orders and the work scheduled on them. */
export function createOrderLifecycleRepository() {
  return {
    async insertTransition(tx: WriteTx, row: Omit<TransitionRow, 'id'>): Promise<void> {
      await tx.run(
        `INSERT INTO order_transitions (order_id, from_status, to_status, source, reason, createtime)
         VALUES (@order_id, @from_status, @to_status, @source, @reason, @createtime)`,
        row,
      );
    },
    transitionsOf(tx: ReadTx, orderId: number): Promise<TransitionRow[]> {
      return tx.all('SELECT * FROM order_transitions WHERE order_id = ? ORDER BY id', [orderId]);
    },
    /** Whether the order was ever moved to this status. */
    async hasReached(tx: ReadTx, orderId: number, status: OrderStatus): Promise<boolean> {
      const row = await tx.get<{ n: number }>('SELECT count(*) AS n FROM order_transitions WHERE order_id = ? AND to_status = ?', [orderId, status]);
      return row!.n > 0;
    },
    /** (Re)schedules the order's job of this kind; a claim on the old one ends. */
    async scheduleJob(tx: WriteTx, orderId: number, kind: OrderJobKind, dueAt: number, now: number): Promise<void> {
      await tx.run(
        `INSERT INTO order_jobs (order_id, kind, due_at, createtime) VALUES (@order_id, @kind, @due_at, @createtime)
         ON CONFLICT (order_id, kind) DO UPDATE SET due_at = excluded.due_at, attempts = 0, last_error = NULL,
           claimed_by = NULL, claimed_until = NULL`,
        { order_id: orderId, kind, due_at: dueAt, createtime: now },
      );
    },
    /** Claims up to `limit` due jobs for `instance` until `until`; oldest due first. */
    async claimDue(tx: WriteTx, claim: { now: number; limit: number; instance: string; until: number }): Promise<OrderJobRow[]> {
      const rows = await tx.all<OrderJobRow>(tx.dialect === 'postgres' ? CLAIM_POSTGRES : CLAIM_SQLITE, claim);
      return rows.sort((a, b) => a.due_at - b.due_at || a.id - b.id);
    },
    jobsOf(tx: ReadTx, orderId: number): Promise<OrderJobRow[]> {
      return tx.all('SELECT * FROM order_jobs WHERE order_id = ? ORDER BY due_at, id', [orderId]);
    },
    jobById(tx: ReadTx, id: number): Promise<OrderJobRow | undefined> {
      return tx.get('SELECT * FROM order_jobs WHERE id = ?', [id]);
    },
    /** Drops a job this instance claimed; false when its claim was lost (ran out, and another instance took the job). */
    async deleteClaimedJob(tx: WriteTx, id: number, instance: string): Promise<boolean> {
      return (await tx.run('DELETE FROM order_jobs WHERE id = ? AND claimed_by = ?', [id, instance])) === 1;
    },
    async deleteJobsOf(tx: WriteTx, orderId: number): Promise<void> {
      await tx.run('DELETE FROM order_jobs WHERE order_id = ?', [orderId]);
    },
    /** Puts a claimed job back for later, counting the attempt; false when the claim was lost. */
    async retryClaimedJob(tx: WriteTx, id: number, instance: string, dueAt: number, error: string): Promise<boolean> {
      const changed = await tx.run(
        `UPDATE order_jobs SET due_at = ?, last_error = ?, attempts = attempts + 1, claimed_by = NULL, claimed_until = NULL
         WHERE id = ? AND claimed_by = ?`,
        [dueAt, error.slice(0, 512), id, instance],
      );
      return changed === 1;
    },
    /** Ends every claim not held by `instance` (their holder is known to be gone); returns how many. */
    releaseClaimsOfOthers(tx: WriteTx, instance: string): Promise<number> {
      return tx.run('UPDATE order_jobs SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by IS NOT NULL AND claimed_by <> ?', [instance]);
    },
    /** When the next job may run (a claimed one: when its claim runs out), or null. */
    async nextJobDue(tx: ReadTx): Promise<number | null> {
      const row = await tx.get<{ due: number | null }>(
        'SELECT min(CASE WHEN claimed_until IS NOT NULL AND claimed_until > due_at THEN claimed_until ELSE due_at END) AS due FROM order_jobs',
      );
      return row?.due ?? null;
    },
    /** Jobs waiting, and how many are due now: the backlog to monitor. */
    async backlog(tx: ReadTx, now: number): Promise<{ jobs: number; due: number; oldest_due: number | null }> {
      return (await tx.get<{ jobs: number; due: number; oldest_due: number | null }>(
        `SELECT count(*) AS jobs, coalesce(sum(CASE WHEN due_at <= @now THEN 1 ELSE 0 END), 0) AS due, min(due_at) AS oldest_due FROM order_jobs`,
        { now },
      ))!;
    },
  };
}
export type OrderLifecycleRepository = ReturnType<typeof createOrderLifecycleRepository>;
