/**
 * Operator views and inputs of the money side: balances, ledger, and the
 * parts of the order detail (schemas/console.ts) about money and events:
 * transition timeline, ledger transactions, scheduled work and callback
 * deliveries. Amounts are integer fen unless the name says yuan.
 */
import { z } from 'zod';
import { ORDER_STATUSES } from '../constants';
import { TRANSITION_SOURCES } from '../order-state-machine';
import { positiveId } from './fields';

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

/** Work the service will do on an order (expiry is expires_at), with when and how its tries went. */
export const scheduledWorkView = z.object({
  /** 'start_payout', 'settle' or 'complete_payout'. */
  kind: z.string(),
  due_at: z.int(),
  /** Failed tries so far. */
  attempts: z.int(),
  last_error: z.string().nullable(),
});

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
