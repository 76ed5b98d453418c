/**
 * The limit reference's createOrder statement on PostgreSQL, shared by the
 * reference itself (bench/limit-reference.ts) and the probe that compares it
 * with the service's unit of work (bench/pg-unit-probe.ts).
 */

/** Every column the reference writes, in the order its values are given. */
export const REFERENCE_ORDER_COLUMNS = [
  'order_no', 'merchant_id', 'channel_id', 'order_type', 'status', 'pay_method', 'cny_amount', 'service_rate', 'passage_rate',
  'deposit_rate', 'base_rate', 'service_amount', 'passage_amount', 'deposit_amount', 'channel_amount', 'merchant_actual_amount',
  'customer_name', 'payment_method_id', 'payment_method_snapshot', 'customer_payment_method', 'alpha_data_enc', 'pay_token', 'pay_url',
  'expires_at', 'createtime', 'updatetime',
] as const;

/**
 * One statement, one implicit transaction: the nonce ($1 api_key, $2 nonce,
 * $3 expires_at) and, only if it was new, the order ($4… in
 * REFERENCE_ORDER_COLUMNS order). Answers the order's id, or no row for a replay.
 */
export const POSTGRES_NONCE_AND_ORDER = {
  name: 'ref_create',
  text: `WITH n AS (INSERT INTO nonces (api_key, nonce, expires_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1)
      INSERT INTO orders (${REFERENCE_ORDER_COLUMNS.join(', ')}) SELECT ${REFERENCE_ORDER_COLUMNS.map((_, i) => `$${i + 4}`).join(', ')} FROM n RETURNING id`,
};
