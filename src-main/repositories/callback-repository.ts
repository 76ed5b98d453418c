import type { Database } from 'better-sqlite3';
import type { OrderStatus } from '../../src-shared/constants';

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

export function createCallbackRepository(db: Database) {
  const insert = db.prepare<Omit<CallbackDeliveryRow, 'id' | 'state' | 'attempts' | 'updatetime'>>(
    `INSERT INTO callback_deliveries (order_id, merchant_id, order_status, trigger, payload, next_attempt_at, createtime, updatetime)
     VALUES (@order_id, @merchant_id, @order_status, @trigger, @payload, @next_attempt_at, @createtime, @createtime)`,
  );
  // Due, and first in line for its order: an order's deliveries go out one after the other.
  const due = db.prepare<[number, number], CallbackDeliveryRow>(
    `SELECT d.* FROM callback_deliveries d
     WHERE d.state = 'pending' AND d.next_attempt_at <= ?
       AND NOT EXISTS (SELECT 1 FROM callback_deliveries e WHERE e.order_id = d.order_id AND e.state = 'pending' AND e.id < d.id)
     ORDER BY d.next_attempt_at, d.id LIMIT ?`,
  );
  const byId = db.prepare<[number], CallbackDeliveryRow>('SELECT * FROM callback_deliveries WHERE id = ?');
  const ofOrder = db.prepare<[number], CallbackDeliveryRow>('SELECT * FROM callback_deliveries WHERE order_id = ? ORDER BY id');
  const attemptsOf = db.prepare<[number], CallbackAttemptRow>('SELECT * FROM callback_attempts WHERE delivery_id = ? ORDER BY attempt');
  const insertAttempt = db.prepare<Omit<CallbackAttemptRow, 'id'>>(
    `INSERT INTO callback_attempts (delivery_id, attempt, url, attempted_at, http_status, latency_ms, response_excerpt, error, acknowledged)
     VALUES (@delivery_id, @attempt, @url, @attempted_at, @http_status, @latency_ms, @response_excerpt, @error, @acknowledged)`,
  );
  const settle = db.prepare<{ id: number; state: CallbackState; attempts: number; next_attempt_at: number | null; updatetime: number }>(
    `UPDATE callback_deliveries SET state = @state, attempts = @attempts, next_attempt_at = @next_attempt_at, updatetime = @updatetime
     WHERE id = @id AND state = 'pending'`,
  );
  const nextDue = db.prepare<[], { due: number | null }>(`SELECT min(next_attempt_at) AS due FROM callback_deliveries WHERE state = 'pending'`);

  return {
    insert(row: Omit<CallbackDeliveryRow, 'id' | 'state' | 'attempts' | 'updatetime'>): number {
      return Number(insert.run(row).lastInsertRowid);
    },
    due(now: number, limit: number): CallbackDeliveryRow[] {
      return due.all(now, limit);
    },
    findById(id: number): CallbackDeliveryRow | undefined {
      return byId.get(id);
    },
    ofOrder(orderId: number): CallbackDeliveryRow[] {
      return ofOrder.all(orderId);
    },
    attemptsOf(deliveryId: number): CallbackAttemptRow[] {
      return attemptsOf.all(deliveryId);
    },
    insertAttempt(row: Omit<CallbackAttemptRow, 'id'>): void {
      insertAttempt.run(row);
    },
    /** Records the outcome of an attempt on a still-pending delivery; false when it was no longer pending. */
    settle(row: { id: number; state: CallbackState; attempts: number; next_attempt_at: number | null; updatetime: number }): boolean {
      return settle.run(row).changes === 1;
    },
    nextDue(): number | null {
      return nextDue.get()!.due;
    },
  };
}
export type CallbackRepository = ReturnType<typeof createCallbackRepository>;
