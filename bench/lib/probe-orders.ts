/**
 * What the PostgreSQL probes (bench/pg-unit-probe.ts, bench/pg-cpu-probe.ts)
 * insert: a buy order with fixed amounts and a fresh order number and pay
 * token, and the limit reference's statement for it.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { POSTGRES_NONCE_AND_ORDER, REFERENCE_ORDER_COLUMNS } from './reference-sql';
import type { NewOrderRow } from '../../src-main/repositories/order-repository';
import { newOrderNo, newPayToken } from '../../src-main/services/order-service';

/** Nonces of the probes may be purged from then on (far in the future). */
export const PROBE_NONCE_EXPIRES_AT = 2_000_000_000;

export function probeBuyOrder(merchantId: number, channelId: number): NewOrderRow {
  const now = Math.floor(Date.now() / 1000);
  return {
    order_no: newOrderNo(1, now), merchant_id: merchantId, channel_id: channelId, order_type: 1, status: 'pending', pay_method: 'bank',
    cny_amount: 10_000, service_rate: '0.01', passage_rate: '0', deposit_rate: 0, base_rate: 0, service_amount: 100, passage_amount: 0,
    deposit_amount: 200, channel_amount: 0, merchant_actual_amount: 9_700, customer_name: null, payment_method_id: null,
    payment_method_snapshot: null, customer_payment_method: null, alpha_data_enc: null, pay_token: newPayToken(), pay_url: 'http://127.0.0.1/pay',
    expires_at: now + 900, createtime: now,
  };
}

/** The limit reference's one statement (nonce and order) for a probe order, with a new nonce. */
export function referenceInsert(pool: pg.Pool, apiKey: string, row: NewOrderRow): Promise<pg.QueryResult> {
  const values = REFERENCE_ORDER_COLUMNS.map((c) => (c === 'updatetime' ? row.createtime : row[c]));
  return pool.query({ ...POSTGRES_NONCE_AND_ORDER, values: [apiKey, randomUUID(), PROBE_NONCE_EXPIRES_AT, ...values] });
}
