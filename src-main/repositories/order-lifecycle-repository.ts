import type { Database } from 'better-sqlite3';
import type { OrderStatus } from '../../src-shared/constants';
import type { TransitionSource } from '../../src-shared/order-state-machine';

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
  createtime: number;
}

/** Status transitions of orders and the work scheduled on them. */
export function createOrderLifecycleRepository(db: Database) {
  const insertTransition = db.prepare<Omit<TransitionRow, 'id'>>(
    `INSERT INTO order_transitions (order_id, from_status, to_status, source, reason, createtime)
     VALUES (@order_id, @from_status, @to_status, @source, @reason, @createtime)`,
  );
  const transitionsOf = db.prepare<[number], TransitionRow>('SELECT * FROM order_transitions WHERE order_id = ? ORDER BY id');
  const reached = db.prepare<[number, string], { n: number }>(
    'SELECT count(*) AS n FROM order_transitions WHERE order_id = ? AND to_status = ?',
  );
  const scheduleJob = db.prepare<{ order_id: number; kind: OrderJobKind; due_at: number; createtime: number }>(
    `INSERT INTO order_jobs (order_id, kind, due_at, createtime) VALUES (@order_id, @kind, @due_at, @createtime)
     ON CONFLICT (order_id, kind) DO UPDATE SET due_at = excluded.due_at, attempts = 0, last_error = NULL`,
  );
  const dueJobs = db.prepare<[number, number], OrderJobRow>('SELECT * FROM order_jobs WHERE due_at <= ? ORDER BY due_at, id LIMIT ?');
  const jobsOf = db.prepare<[number], OrderJobRow>('SELECT * FROM order_jobs WHERE order_id = ? ORDER BY due_at, id');
  const jobById = db.prepare<[number], OrderJobRow>('SELECT * FROM order_jobs WHERE id = ?');
  const deleteJob = db.prepare<[number]>('DELETE FROM order_jobs WHERE id = ?');
  const deleteJobsOf = db.prepare<[number]>('DELETE FROM order_jobs WHERE order_id = ?');
  const retryJob = db.prepare<[number, string, number]>('UPDATE order_jobs SET due_at = ?, last_error = ?, attempts = attempts + 1 WHERE id = ?');
  const nextDue = db.prepare<[], { due: number | null }>('SELECT min(due_at) AS due FROM order_jobs');

  return {
    insertTransition(row: Omit<TransitionRow, 'id'>): void {
      insertTransition.run(row);
    },
    transitionsOf(orderId: number): TransitionRow[] {
      return transitionsOf.all(orderId);
    },
    /** Whether the order was ever moved to this status. */
    hasReached(orderId: number, status: OrderStatus): boolean {
      return reached.get(orderId, status)!.n > 0;
    },
    scheduleJob(orderId: number, kind: OrderJobKind, dueAt: number, now: number): void {
      scheduleJob.run({ order_id: orderId, kind, due_at: dueAt, createtime: now });
    },
    dueJobs(now: number, limit: number): OrderJobRow[] {
      return dueJobs.all(now, limit);
    },
    jobsOf(orderId: number): OrderJobRow[] {
      return jobsOf.all(orderId);
    },
    jobById(id: number): OrderJobRow | undefined {
      return jobById.get(id);
    },
    deleteJob(id: number): void {
      deleteJob.run(id);
    },
    deleteJobsOf(orderId: number): void {
      deleteJobsOf.run(orderId);
    },
    retryJob(id: number, dueAt: number, error: string): void {
      retryJob.run(dueAt, error.slice(0, 512), id);
    },
    nextJobDue(): number | null {
      return nextDue.get()!.due;
    },
  };
}
export type OrderLifecycleRepository = ReturnType<typeof createOrderLifecycleRepository>;
