/**
 * Operator views and inputs of the money side: balances, ledger, order
 * detail with fee breakdown, transition timeline and callback deliveries.
 * Amounts are integer fen unless the name says yuan.
 */
import { z } from 'zod';
import { CHANNEL_CATEGORIES, CHANNEL_DRIVERS, ORDER_STATUSES, PAY_METHODS } from '../constants';
import { TRANSITION_SOURCES } from '../order-state-machine';
import { orderTypeField, positiveId } from './fields';

export const balanceView = z.object({
  available: z.int(),
  frozen: z.int(),
  deposit: z.int(),
});
export type BalanceView = z.infer<typeof balanceView>;

export const ledgerEntryView = z.object({
  account: z.string(),
  /** Set on the merchant's own accounts. */
  merchant_id: z.int().nullable(),
  /** Signed fen. */
  amount: z.int(),
});

export const ledgerTransactionView = z.object({
  id: z.int(),
  kind: z.enum(['buy_paid', 'sell_freeze', 'sell_paid_out', 'sell_release', 'adjustment', 'withdrawal_hold', 'withdrawal_release']),
  merchant_id: z.int(),
  order_id: z.int().nullable(),
  reason: z.string(),
  createtime: z.int(),
  entries: z.array(ledgerEntryView),
});
export type LedgerTransactionView = z.infer<typeof ledgerTransactionView>;

/** An operator adjustment: amount in yuan, signed ("-50.00"), reason kept in the ledger. */
export const balanceAdjustInput = z.strictObject({
  merchant_id: positiveId,
  amount: z.string().regex(/^[+-]?(0|[1-9][0-9]{0,11})(\.[0-9]{1,2})?$/, { error: 'must be a signed amount of yuan such as -50.00 or +100' }),
  reason: z.string().trim().min(1).max(256),
});
export type BalanceAdjustInput = z.output<typeof balanceAdjustInput>;

export const balanceAdjustView = z.object({
  merchant_id: z.int(),
  transaction_id: z.int(),
  amount: z.int(),
  reason: z.string(),
  balances: balanceView,
});
export type BalanceAdjustView = z.infer<typeof balanceAdjustView>;

export const transitionView = z.object({
  from: z.enum(ORDER_STATUSES),
  to: z.enum(ORDER_STATUSES),
  source: z.enum(TRANSITION_SOURCES),
  reason: z.string(),
  time: z.int(),
});
export type TransitionView = z.infer<typeof transitionView>;

export const callbackAttemptView = z.object({
  attempt: z.int(),
  time: z.int(),
  /** Null when no HTTP answer came (connection error, timeout). */
  http_status: z.int().nullable(),
  latency_ms: z.int(),
  /** First 512 bytes of the answer. */
  response_excerpt: z.string(),
  error: z.string().nullable(),
  acknowledged: z.boolean(),
});

export const CALLBACK_DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;
export const callbackDeliveryView = z.object({
  id: z.int(),
  order_no: z.string(),
  /** The order status this callback reports. */
  order_status: z.enum(ORDER_STATUSES),
  state: z.enum(CALLBACK_DELIVERY_STATES),
  /** 'transition' or 'resend'. */
  trigger: z.enum(['transition', 'resend']),
  url: z.string(),
  attempts: z.int(),
  next_attempt_at: z.int().nullable(),
  createtime: z.int(),
  updatetime: z.int(),
  /** The form fields sent (without timestamp, nonce and signature, which are fresh per attempt). */
  payload: z.record(z.string(), z.string()),
  attempt_log: z.array(callbackAttemptView),
});
export type CallbackDeliveryView = z.infer<typeof callbackDeliveryView>;

/** Everything an operator sees about one order. */
export const orderDetailView = z.object({
  id: z.int(),
  order_no: z.string(),
  order_type: orderTypeField,
  status: z.enum(ORDER_STATUSES),
  merchant: z.object({ id: z.int(), name: z.string() }),
  channel: z.object({ id: z.int(), name: z.string(), category: z.enum(CHANNEL_CATEGORIES), driver: z.enum(CHANNEL_DRIVERS) }),
  pay_method: z.enum(PAY_METHODS),
  cny_amount: z.string(),
  fees: z.object({
    cny_amount: z.int(),
    service_rate: z.string(),
    service_amount: z.int(),
    passage_rate: z.string(),
    passage_amount: z.int(),
    deposit_rate: z.int(),
    deposit_amount: z.int(),
    base_rate: z.int(),
    channel_amount: z.int(),
    merchant_actual_amount: z.int(),
  }),
  customer_name: z.string().nullable(),
  /** Buy orders: where the payer pays. */
  pay_url: z.string().nullable(),
  expires_at: z.int().nullable(),
  createtime: z.int(),
  updatetime: z.int(),
  timeline: z.array(transitionView),
  ledger: z.array(ledgerTransactionView),
  /** Work the service will do on this order, with when. */
  scheduled: z.array(z.object({ kind: z.string(), due_at: z.int(), attempts: z.int(), last_error: z.string().nullable() })),
  callbacks: z.array(callbackDeliveryView),
});
export type OrderDetailView = z.infer<typeof orderDetailView>;
