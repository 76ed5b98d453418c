/**
 * Bodies and responses of the merchant HTTP API (spec endpoints 1–5), field
 * names and JSON types exactly as the spec's tables. Bodies are validated
 * strictly: an unknown parameter is an error.
 */
import { z } from 'zod';
import { acrossMembers, timeRangeInOrder, type MemberProblem } from './across-members';
import {
  categoryField,
  orderStatusField,
  orderTypeField,
  payMethodField,
  positiveId,
  unixSeconds,
  yuanAmount,
  boundedText,
  isSafeText,
  plainText,
} from './fields';
import { LIST_DEFAULT_LIMIT, LIST_DEFAULT_PAGE, LIST_MAX_LIMIT } from '../constants';
import { nonceMember, timestampMember } from '../freshness';
import { isBankCardNumber, isMainlandMobile, isPlausibleEmail, isValidYmd, RESIDENT_ID_PROBLEM_TEXT, residentIdProblem } from '../validation/rules';

/** The four authentication members every merchant request carries in its body. */
export const authFields = {
  api_key: z.string().meta({ description: "The merchant's public key, `mk_…`." }),
  timestamp: timestampMember,
  // The authentication step checks these first (code 2001); the pattern is here for the API reference.
  nonce: nonceMember('New for every request.'),
  signature: z.string().meta({ description: 'Uppercase hex of the signature over the canonical string (see the requestSignature scheme).' }),
};
export const AUTH_FIELD_NAMES = Object.keys(authFields) as (keyof typeof authFields)[];

// ---------------------------------------------------------------- queries

export const orderQueryListFilters = {
  page: z.int().min(1).max(1_000_000).default(LIST_DEFAULT_PAGE),
  limit: z.int().min(1).max(LIST_MAX_LIMIT).default(LIST_DEFAULT_LIMIT),
  status: orderStatusField.optional(),
  order_type: orderTypeField.optional(),
  start_time: unixSeconds.optional(),
  end_time: unixSeconds.optional(),
};

export const orderQueryListBody = z.strictObject({ ...authFields, ...orderQueryListFilters }).check(timeRangeInOrder);
export type OrderQueryListInput = z.output<typeof orderQueryListBody>;

// Safe text only: a control character can be in no order number (and NUL not even in a PostgreSQL text parameter).
export const orderQueryDetailBody = z.strictObject({
  ...authFields,
  order_no: z.string().min(1).max(64).refine(isSafeText, { error: 'must not contain control characters, bidirectional overrides or unpaired surrogates' }),
});

export const getPayChannelsBody = z.strictObject({ ...authFields });
export const getPayChannelsQuery = z.strictObject({ category: categoryField.optional() });

// ---------------------------------------------------------------- alpha objects

export const alphaPersonalData = z
  .strictObject({
    name: boundedText(64),
    cert_type: z.string().regex(/^[0-9]{2}$/, { error: 'must be a two-digit certificate type such as 00' }),
    cert_no: z.string().min(1).max(32),
    cert_validity_type: z.enum(['0', '1']),
    cert_begin_date: z.string().refine(isValidYmd, { error: 'must be a real date written YYYYMMDD' }).meta({ description: 'YYYYMMDD.' }),
    cert_end_date: z
      .string()
      .refine(isValidYmd, { error: 'must be a real date written YYYYMMDD' })
      .optional()
      .meta({ description: 'YYYYMMDD, not before cert_begin_date; required when cert_validity_type is 0, refused when 1 (long-term).' }),
    mobile_no: z.string().refine(isMainlandMobile, { error: 'must be an 11-digit mainland mobile number' }).meta({ description: 'An 11-digit mainland mobile number.' }),
    email: z.string().refine(isPlausibleEmail, { error: 'must be an e-mail address' }).optional(),
    address: plainText(256).optional(),
  })
  .check(
    acrossMembers((v) => {
      const problems: MemberProblem[] = [];
      if (v.cert_type === '00') {
        const problem = residentIdProblem(v.cert_no);
        if (problem) problems.push(['cert_no', RESIDENT_ID_PROBLEM_TEXT[problem]]);
      } else if (!/^[A-Za-z0-9()-]{4,32}$/.test(v.cert_no)) {
        problems.push(['cert_no', 'must be 4-32 letters or digits']);
      }
      if (v.cert_validity_type === '0') {
        if (v.cert_end_date === undefined) problems.push(['cert_end_date', 'is required when cert_validity_type is 0']);
        else if (v.cert_end_date < v.cert_begin_date) problems.push(['cert_end_date', 'must not be before cert_begin_date']);
      } else if (v.cert_end_date !== undefined) {
        problems.push(['cert_end_date', 'must be omitted when cert_validity_type is 1 (long-term)']);
      }
      return problems;
    }),
  );
export type AlphaPersonalData = z.output<typeof alphaPersonalData>;

export const ALPHA_CARD_TYPES = ['0', '1', '2', '4'] as const;
export const alphaCardInfo = z.strictObject({
  card_type: z.enum(ALPHA_CARD_TYPES),
  card_name: boundedText(64),
  card_no: z.string().refine(isBankCardNumber, { error: 'must be 12-19 digits' }).meta({ description: '12–19 digits.' }),
  prov_id: z.string().regex(/^[0-9]{6}$/, { error: 'must be a 6-digit province code' }).meta({ description: 'A province code (provinceList).' }),
  area_id: z.string().regex(/^[0-9]{6}$/, { error: 'must be a 6-digit city code' }).meta({ description: 'The code of a city of that province (cityList).' }),
});
export type AlphaCardInfo = z.output<typeof alphaCardInfo>;

// ---------------------------------------------------------------- creation

const createCommon = {
  cny_amount: yuanAmount,
  paychannel_id: positiveId,
  paychannel_paymethod: payMethodField,
};

export const createBuyOrderFields = z.strictObject({
  order_type: z.literal(1),
  ...createCommon,
  customer_name: z.string().trim().max(64).refine(isSafeText, { error: 'must not contain control characters, bidirectional overrides or unpaired surrogates' }).optional(),
});
export type CreateBuyOrderInput = z.output<typeof createBuyOrderFields>;

export const createSellOrderFields = z.strictObject({
  order_type: z.literal(2),
  ...createCommon,
  alpha_personal_data: alphaPersonalData.optional(),
  alpha_card_info: alphaCardInfo.optional(),
});
export type CreateSellOrderInput = z.output<typeof createSellOrderFields>;

const orderTypeUnionError = {
  error: (issue: { code: string }) => (issue.code === 'invalid_union' ? 'must be 1 (buy) or 2 (sell)' : undefined),
};

/** The createOrder body minus authentication, discriminated on order_type. */
export const createOrderFields = z.discriminatedUnion('order_type', [createBuyOrderFields, createSellOrderFields], orderTypeUnionError);
export type CreateOrderInput = z.output<typeof createOrderFields>;

export const createOrderBody = z.discriminatedUnion(
  'order_type',
  [createBuyOrderFields.extend(authFields), createSellOrderFields.extend(authFields)],
  orderTypeUnionError,
);

// ---------------------------------------------------------------- responses

export const orderView = z.object({
  order_no: z.string(),
  order_type: orderTypeField,
  cny_amount: z.string(),
  merchant_actual_amount: z.int(),
  service_rate: z.string(),
  service_amount: z.int(),
  status: orderStatusField,
  createtime: z.int(),
  updatetime: z.int(),
});
export type OrderView = z.infer<typeof orderView>;

export const orderListView = z.object({
  list: z.array(orderView),
  total: z.int(),
  page: z.int(),
  limit: z.int(),
});
export type OrderListView = z.infer<typeof orderListView>;

export const paymentMethodSnapshot = z.object({
  bank: z.string(),
  sub_bank: z.string(),
  card_number: z.string(),
  real_name: z.string(),
});
export const customerPaymentMethod = paymentMethodSnapshot.extend({ full_info: z.string() });

export const sellOrderView = z.object({
  order_id: z.string(),
  order_no: z.string(),
  status: orderStatusField,
  order_type: z.literal(2),
  cny_amount: z.string(),
  payment_method_id: z.int(),
  payment_method_snapshot: paymentMethodSnapshot,
  merchant_amount: z.string(),
  passage_rate: z.string(),
  passage_amount: z.int(),
  deposit_rate: z.int(),
  deposit_amount: z.int(),
  service_amount: z.int(),
  channel_amount: z.int(),
  merchant_actual_amount: z.int(),
  base_rate: z.int(),
  customer_payment_method: customerPaymentMethod,
  createtime: z.int(),
});
export type SellOrderView = z.infer<typeof sellOrderView>;

export const buyOrderView = z.object({
  order_no: z.string(),
  status: orderStatusField,
  order_type: z.literal(1),
  cny_amount: z.string(),
  payment_method: z.string().nullable(),
  merchant_amount: z.string(),
  deposit_amount: z.int(),
  service_amount: z.int(),
  merchant_actual_amount: z.int(),
  pay_url: z.string(),
  createtime: z.int(),
});
export type BuyOrderView = z.infer<typeof buyOrderView>;

export const createdOrderView = z.union([buyOrderView, sellOrderView]);
export type CreatedOrderView = BuyOrderView | SellOrderView;

export const payChannelView = z.object({
  id: z.int(),
  category: categoryField,
  name: z.string(),
  pay_method: z.string(),
  category_text: z.string(),
  pay_method_text: z.string(),
  createtime: z.int(),
  updatetime: z.int(),
});
export type PayChannelView = z.infer<typeof payChannelView>;

export const payChannelListView = z.object({ list: z.array(payChannelView), total: z.int() });
export type PayChannelListView = z.infer<typeof payChannelListView>;

/**
 * createOrder's answer for a sell order above the merchant's API withdrawal
 * threshold: accepted, not done — it waits for a second person's approval
 * (HTTP 202, code 4005). A replay of its Idempotency-Key answers the outcome
 * once decided: the order, or a 409 saying why there is none.
 */
export const heldWithdrawalEnvelope = z.object({
  code: z.literal(4005),
  msg: z.string(),
  data: z.object({
    /** The approval request (the console's approvals inbox shows it). */
    approval_id: z.int(),
    /** Unix seconds: undecided by then, it expires and the held sum is released. */
    expires_at: z.int(),
  }),
});
