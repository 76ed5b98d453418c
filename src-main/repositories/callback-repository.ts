import type { OrderStatus } from '../../src-shared/constants';
import type { ReadTx, WriteTx } from '../store/store';

export type CallbackState = 'pending' | 'delivered' | 'failed';
export type CallbackTrigger = 'transition' | 'resend';

export interface CallbackDeliveryRow {
  id: number;
  order_id: number;
  merchant_id: number;
  order_status: OrderStatus;
  trigger: CallbackTrigger;
  payload: string;
  state: CallbackState;
  attempts: number;
  next_attempt_at: number | null;
  /** The instance whose attempt is under way, and until when its claim holds (migration 0008). */
  claimed_by: string | null;
  claimed_until: number | null;
  createtime: number;
  updatetime: number;
}

export interface CallbackAttemptRow {
  id: number;
  delivery_id: number;
  attempt: number;
  url: string;
  attempted_at: number;
  http_status: number | null;
  latency_ms: number;
  response_excerpt: string;
  error: string | null;
  acknowledged: 0 | 1;
}

export type NewCallbackDeliveryRow = Omit<CallbackDeliveryRow, 'id' | 'state' | 'attempts' | 'updatetime' | 'claimed_by' | 'claimed_until'>;

// Due, unclaimed (or its claim ran out), and first in line for its order: an
// order's deliveries go out one after the other, whichever instance sends them.
const DUE = (lock: string, oneOrder: boolean) => `SELECT d.id FROM callback_deliveries d
     WHERE d.state = 'pending' AND d.next_attempt_at <= @now AND (d.claimed_until IS NULL OR d.claimed_until <= @now)${oneOrder ? ' AND d.order_id = @orderId' : ''}
       AND NOT EXISTS (SELECT 1 FROM callback_deliveries e WHERE e.order_id = d.order_id AND e.state = 'pending' AND e.id < d.id)
     ORDER BY d.next_attempt_at, d.id LIMIT @limit${lock}`;
const CLAIM = (lock: string, oneOrder: boolean) => `UPDATE callback_deliveries SET claimed_by = @instance, claimed_until = @until
     WHERE id IN (${DUE(lock, oneOrder)}) RETURNING *`;
// Rows another instance is claiming right now are skipped, not waited for.
const POSTGRES_LOCK = ' FOR UPDATE OF d SKIP LOCKED';
const CLAIMS = {
  sqlite: [CLAIM('', false), CLAIM('', true)],
  postgres: [CLAIM(POSTGRES_LOCK, false), CLAIM(POSTGRES_LOCK, true)],
} as const;

export function createCallbackRepository() {
  return {
    async insert(tx: WriteTx, row: NewCallbackDeliveryRow): Promise<number> {
      const inserted = await tx.get<{ id: number }>(
        `INSERT INTO callback_deliveries (order_id, merchant_id, order_status, trigger, payload, next_attempt_at, createtime, updatetime)
         VALUES (@order_id, @merchant_id, @order_status, @trigger, @payload, @next_attempt_at, @createtime, @createtime) RETURNING id`,
        row,
      );
      return inserted!.id;
    },
    /** Claims up to `limit` due deliveries (of one order, when given) for `instance` until `until`; oldest due first. */
    async claimDue(
      tx: WriteTx,
      claim: { now: number; limit: number; instance: string; until: number; orderId?: number | undefined },
    ): Promise<CallbackDeliveryRow[]> {
      const rows = await tx.all<CallbackDeliveryRow>(CLAIMS[tx.dialect][claim.orderId === undefined ? 0 : 1], claim);
      return rows.sort((a, b) => a.next_attempt_at! - b.next_attempt_at! || a.id - b.id);
    },
    /** Gives a claim back without an attempt (the instance stopped before sending). */
    async release(tx: WriteTx, id: number, instance: string): Promise<void> {
      await tx.run('UPDATE callback_deliveries SET claimed_by = NULL, claimed_until = NULL WHERE id = ? AND claimed_by = ?', [id, instance]);
    },
    /** Ends every claim not held by `instance` (their holder is known to be gone); returns how many. */
    releaseClaimsOfOthers(tx: WriteTx, instance: string): Promise<number> {
      return tx.run('UPDATE callback_deliveries SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by IS NOT NULL AND claimed_by <> ?', [instance]);
    },
    findById(tx: ReadTx, id: number): Promise<CallbackDeliveryRow | undefined> {
      return tx.get('SELECT * FROM callback_deliveries WHERE id = ?', [id]);
    },
    /** The row, locked until the end of the unit of work (PostgreSQL; SQLite's writer is alone anyway). */
    findByIdForUpdate(tx: WriteTx, id: number): Promise<CallbackDeliveryRow | undefined> {
      return tx.get(`SELECT * FROM callback_deliveries WHERE id = ?${tx.dialect === 'postgres' ? ' FOR UPDATE' : ''}`, [id]);
    },
    ofOrder(tx: ReadTx, orderId: number): Promise<CallbackDeliveryRow[]> {
      return tx.all('SELECT * FROM callback_deliveries WHERE order_id = ? ORDER BY id', [orderId]);
    },
    attemptsOf(tx: ReadTx, deliveryId: number): Promise<CallbackAttemptRow[]> {
      return tx.all('SELECT * FROM callback_attempts WHERE delivery_id = ? ORDER BY attempt', [deliveryId]);
    },
    async insertAttempt(tx: WriteTx, row: Omit<CallbackAttemptRow, 'id'>): Promise<void> {
      await tx.run(
        `INSERT INTO callback_attempts (delivery_id, attempt, url, attempted_at, http_status, latency_ms, response_excerpt, error, acknowledged)
         VALUES (@delivery_id, @attempt, @url, @attempted_at, @http_status, @latency_ms, @response_excerpt, @error, @acknowledged)`,
        row,
      );
    },
    /** Records the outcome of an attempt on a still-pending delivery and ends its claim; false when it was no longer pending. */
    async settle(
      tx: WriteTx,
      row: { id: number; state: CallbackState; attempts: number; next_attempt_at: number | null; updatetime: number },
    ): Promise<boolean> {
      const changed = await tx.run(
        `UPDATE callback_deliveries SET state = @state, attempts = @attempts, next_attempt_at = @next_attempt_at, updatetime = @updatetime,
           claimed_by = NULL, claimed_until = NULL
         WHERE id = @id AND state = 'pending'`,
        row,
      );
      return changed === 1;
    },
    /** When the next delivery may be attempted (a claimed one: when its claim runs out), or null. */
    async nextDue(tx: ReadTx): Promise<number | null> {
      const row = await tx.get<{ due: number | null }>(
        `SELECT min(CASE WHEN claimed_until IS NOT NULL AND claimed_until > next_attempt_at THEN claimed_until ELSE next_attempt_at END) AS due
         FROM callback_deliveries WHERE state = 'pending'`,
      );
      return row?.due ?? null;
    },
    /** Deliveries waiting (pending), and how many of them are due now: the backlog to monitor. */
    async backlog(tx: ReadTx, now: number): Promise<{ pending: number; due: number; oldest_due: number | null }> {
      return (await tx.get<{ pending: number; due: number; oldest_due: number | null }>(
        `SELECT count(*) AS pending, coalesce(sum(CASE WHEN next_attempt_at <= @now THEN 1 ELSE 0 END), 0) AS due,
           min(next_attempt_at) AS oldest_due
         FROM callback_deliveries WHERE state = 'pending'`,
        { now },
      ))!;
    },
  };
}
export type CallbackRepository = ReturnType<typeof createCallbackRepository>;
