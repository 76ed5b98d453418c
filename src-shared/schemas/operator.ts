/**
 * Inputs of operator actions (CLI and console): merchants, channels, links,
 * payment methods. Output views never carry secrets or sensitive config.
 */
import { z } from 'zod';
import { CHANNEL_CATEGORIES, CHANNEL_DELAY_MAX_SECONDS, CHANNEL_DRIVERS, PAY_METHODS, PAY_TIMEOUT_RANGE_SECONDS } from '../constants';
import { isValidRate } from '../fees';
import { SIGN_TYPES } from '../signing';
import { acrossMembers } from './across-members';
import { boundedText, positiveId, yuanAmount } from './fields';

export const httpUrl = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      return false;
    }
  }, { error: 'must be an http:// or https:// URL' });

export const signTypeField = z.enum(SIGN_TYPES);

export const merchantCreateInput = z.strictObject({
  name: boundedText(64),
  callback_url: httpUrl.nullable().optional(),
  sign_type: signTypeField.optional(),
});
export type MerchantCreateInput = z.output<typeof merchantCreateInput>;

export const merchantUpdateInput = z.strictObject({
  id: positiveId,
  name: boundedText(64).optional(),
  callback_url: httpUrl.nullable().optional(),
  sign_type: signTypeField.optional(),
  enabled: z.boolean().optional(),
});
export type MerchantUpdateInput = z.output<typeof merchantUpdateInput>;

/** A merchant as operators see it: api_key yes, secret never. */
export const merchantView = z.object({
  id: z.int(),
  name: z.string(),
  api_key: z.string(),
  sign_type: signTypeField,
  callback_url: z.string().nullable(),
  enabled: z.boolean(),
  /** Console withdrawals above this (fen) wait for a second person's approval; 0: every one. */
  console_withdrawal_threshold: z.int(),
  /** Merchant-API withdrawals above this (fen) wait too; null: never held. */
  api_withdrawal_threshold: z.int().nullable(),
  createtime: z.int(),
  updatetime: z.int(),
});
export type MerchantView = z.infer<typeof merchantView>;

/** Returned once, at creation and at rotation. */
export const merchantWithSecretView = merchantView.extend({ api_secret: z.string() });
export type MerchantWithSecretView = z.infer<typeof merchantWithSecretView>;

export const serviceRate = z.string().refine((v) => isValidRate(v, { allowNegative: false }), {
  error: 'must be a decimal fraction from 0 to below 1, e.g. "0.006"',
});
export const passageRate = z.string().refine((v) => isValidRate(v, { allowNegative: true }), {
  error: 'must be a decimal fraction above -1 and below 1, e.g. "-0.001"',
});
export const basisPoints = z.int().min(0).max(10_000);

const payMethodList = z
  .array(z.enum(PAY_METHODS))
  .min(1, { error: 'must name at least one of wxpay, alipay, bank' })
  .refine((list) => new Set(list).size === list.length, { error: 'must not repeat a method' });

/** Sensitive channel configuration: merchant number, keys, proxy address… write-only. */
export const channelConfig = z.record(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/), z.string().max(4096));

/** Channel timing (seconds): pay timeout of buy orders, settle delay after payment, payout delay after acceptance. */
export const payTimeoutSeconds = z.int().min(PAY_TIMEOUT_RANGE_SECONDS.min).max(PAY_TIMEOUT_RANGE_SECONDS.max);
export const channelDelaySeconds = z.int().min(0).max(CHANNEL_DELAY_MAX_SECONDS);
const channelTimingFields = {
  pay_timeout: payTimeoutSeconds.optional(),
  settle_delay: channelDelaySeconds.optional(),
  payout_delay: channelDelaySeconds.optional(),
};

const channelFeeFields = {
  service_rate: serviceRate.optional(),
  passage_rate: passageRate.optional(),
  deposit_rate: basisPoints.optional(),
  base_rate: basisPoints.optional(),
};

export const channelCreateInput = z
  .strictObject({
    category: z.enum(CHANNEL_CATEGORIES),
    name: boundedText(64),
    pay_methods: payMethodList,
    driver: z.enum(CHANNEL_DRIVERS).optional(),
    ...channelFeeFields,
    ...channelTimingFields,
    min_amount: yuanAmount.optional(),
    max_amount: yuanAmount.optional(),
    config: channelConfig.optional(),
    enabled: z.boolean().optional(),
  })
  .check(
    acrossMembers((v) => (v.min_amount !== undefined && v.max_amount !== undefined && v.min_amount > v.max_amount ? [['max_amount', 'must not be below min_amount']] : undefined)),
  );
export type ChannelCreateInput = z.output<typeof channelCreateInput>;

export const channelUpdateInput = z.strictObject({
  id: positiveId,
  name: boundedText(64).optional(),
  pay_methods: payMethodList.optional(),
  ...channelFeeFields,
  ...channelTimingFields,
  min_amount: yuanAmount.optional(),
  max_amount: yuanAmount.optional(),
  /** Replaces the whole config when given; omitted keeps it. */
  config: channelConfig.optional(),
  enabled: z.boolean().optional(),
});
export type ChannelUpdateInput = z.output<typeof channelUpdateInput>;

export const feeSettingsView = z.object({
  service_rate: z.string(),
  passage_rate: z.string(),
  deposit_rate: z.int(),
  base_rate: z.int(),
});

/** A channel as operators see it: config keys only, values masked. */
export const channelAdminView = z.object({
  id: z.int(),
  category: z.enum(CHANNEL_CATEGORIES),
  name: z.string(),
  pay_method: z.string(),
  category_text: z.string(),
  pay_method_text: z.string(),
  driver: z.enum(CHANNEL_DRIVERS),
  ...feeSettingsView.shape,
  min_amount: z.string(),
  max_amount: z.string(),
  enabled: z.boolean(),
  pay_timeout: z.int(),
  settle_delay: z.int(),
  payout_delay: z.int(),
  config_masked: z.record(z.string(), z.string()),
  createtime: z.int(),
  updatetime: z.int(),
});
export type ChannelAdminView = z.infer<typeof channelAdminView>;

export const channelLinkInput = z.strictObject({
  merchant_id: positiveId,
  channel_id: positiveId,
  service_rate: serviceRate.nullable().optional(),
  passage_rate: passageRate.nullable().optional(),
  deposit_rate: basisPoints.nullable().optional(),
  base_rate: basisPoints.nullable().optional(),
});
export type ChannelLinkInput = z.output<typeof channelLinkInput>;

export const channelUnlinkInput = z.strictObject({ merchant_id: positiveId, channel_id: positiveId });

export const channelLinkView = z.object({
  merchant_id: z.int(),
  channel_id: z.int(),
  service_rate: z.string().nullable(),
  passage_rate: z.string().nullable(),
  deposit_rate: z.int().nullable(),
  base_rate: z.int().nullable(),
  /** What orders on this link actually use: overrides over channel settings. */
  effective: feeSettingsView,
  createtime: z.int(),
});
export type ChannelLinkView = z.infer<typeof channelLinkView>;

export const paymentMethodAddInput = z.strictObject({
  merchant_id: positiveId,
  kind: z.enum(PAY_METHODS),
  bank: z.string().trim().max(64).optional(),
  sub_bank: z.string().trim().max(128).optional(),
  /** Bank card number, or the wxpay/alipay account. */
  card_number: z.string().trim().min(4).max(64),
  real_name: boundedText(64),
});
export type PaymentMethodAddInput = z.output<typeof paymentMethodAddInput>;

export const paymentMethodView = z.object({
  id: z.int(),
  merchant_id: z.int(),
  kind: z.enum(PAY_METHODS),
  source: z.enum(['operator', 'alpha']),
  bank: z.string(),
  sub_bank: z.string(),
  card_number: z.string(),
  real_name: z.string(),
  enabled: z.boolean(),
  createtime: z.int(),
});
export type PaymentMethodView = z.infer<typeof paymentMethodView>;
