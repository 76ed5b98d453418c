/**
 * Requests and views of the console (the merchant HTTP API keeps the spec's
 * shapes in merchant-api.ts); its order detail is also what the CLI's
 * `order show` prints. Amount conventions are the API's:
 * integer fields are fen, `*_amount` strings named like the spec's
 * (`cny_amount`, `merchant_amount`, channel limits) are yuan with two decimals.
 */
import { z } from 'zod';
import { BEIJING_UTC_OFFSET_TEXT } from '../beijing-time';
import { CHANNEL_DRIVERS } from '../constants';
import { categoryField, orderStatusField, orderTypeField, payMethodField, positiveId, unixSeconds } from './fields';
import { customerPaymentMethod, orderView, paymentMethodSnapshot, payChannelView } from './merchant-api';
import { feeSettingsView } from './operator';
import { regionTree } from './region-api';
import { balanceView, callbackDeliveryView, ledgerTransactionView, scheduledWorkView, transitionView } from './money';

// ---------------------------------------------------------------- order filters

export const ORDER_NO_MATCHES = ['prefix', 'exact'] as const;

/** Order numbers are upper-case letters and digits; a search is case-insensitive. */
export const orderNoSearch = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9]{1,64}$/, { error: 'must be 1-64 letters or digits (an order number or its beginning)' })
  .transform((v) => v.toUpperCase());

/** The filters of the orders page, shared by the list and the CSV export. */
export const consoleOrderFilters = {
  status: orderStatusField.optional(),
  order_type: orderTypeField.optional(),
  /** Inclusive bounds on createtime, Unix seconds. */
  start_time: unixSeconds.optional(),
  end_time: unixSeconds.optional(),
  order_no: orderNoSearch.optional(),
  /** How order_no matches: the beginning of the number (default) or all of it. */
  order_no_match: z.enum(ORDER_NO_MATCHES).default('prefix'),
};

// ---------------------------------------------------------------- order views

/** A row of the orders table: the spec's Order plus what the table shows. */
export const consoleOrderSummary = orderView.extend({
  order_id: z.string(),
  pay_method: payMethodField,
  channel_id: z.int(),
  channel_name: z.string(),
  channel_category: categoryField,
  customer_name: z.string().nullable(),
});
export type ConsoleOrderSummary = z.infer<typeof consoleOrderSummary>;

export const consoleOrderListView = z.object({
  list: z.array(consoleOrderSummary),
  total: z.int(),
  page: z.int(),
  limit: z.int(),
});
export type ConsoleOrderListView = z.infer<typeof consoleOrderListView>;

export const FEE_ITEMS = ['service', 'passage', 'deposit', 'channel'] as const;

/**
 * One fee of an order: its rate as stored (a decimal fraction for
 * service/passage, integer basis points for deposit/channel), the amount in
 * fen, and how it moves merchant_actual_amount away from cny_amount.
 */
export const feeBreakdownItem = z.object({
  item: z.enum(FEE_ITEMS),
  rate: z.string(),
  rate_unit: z.enum(['fraction', 'basis_points']),
  amount: z.int(),
  effect: z.enum(['deducted', 'added', 'informational']),
});
export type FeeBreakdownItem = z.infer<typeof feeBreakdownItem>;

export const feeBreakdown = z.object({
  /** cny_amount in fen. */
  amount: z.int(),
  items: z.array(feeBreakdownItem),
  merchant_actual_amount: z.int(),
  /** The formula in words, e.g. `merchant_actual_amount = cny_amount - service_amount - deposit_amount`. */
  formula: z.string(),
});
export type FeeBreakdown = z.infer<typeof feeBreakdown>;

export const orderChannelRef = z.object({
  id: z.int(),
  name: z.string(),
  category: categoryField,
  category_text: z.string(),
});

/**
 * Everything about one order, the one read model of it (console getOrder,
 * CLI `order show`): every field of the spec's Order, Buy order and Sell
 * order resources (null where the type has none), its merchant and channel,
 * the fee breakdown, and what happened and will happen to it.
 */
export const orderDetailView = z.object({
  order_id: z.string(),
  order_no: z.string(),
  order_type: orderTypeField,
  status: orderStatusField,
  merchant: z.object({ id: z.int(), name: z.string() }),
  cny_amount: z.string(),
  merchant_amount: z.string(),
  merchant_actual_amount: z.int(),
  service_rate: z.string(),
  service_amount: z.int(),
  passage_rate: z.string(),
  passage_amount: z.int(),
  deposit_rate: z.int(),
  deposit_amount: z.int(),
  base_rate: z.int(),
  channel_amount: z.int(),
  /** The pay method (the spec's buy-order `payment_method`). */
  payment_method: payMethodField,
  paychannel_id: z.int(),
  channel: orderChannelRef.extend({ driver: z.enum(CHANNEL_DRIVERS) }),
  payment_method_id: z.int().nullable(),
  payment_method_snapshot: paymentMethodSnapshot.nullable(),
  customer_payment_method: customerPaymentMethod.nullable(),
  customer_name: z.string().nullable(),
  /** Buy orders: the checkout page. */
  pay_url: z.string().nullable(),
  /** Buy orders: when an unpaid order is cancelled. */
  expires_at: z.int().nullable(),
  createtime: z.int(),
  updatetime: z.int(),
  fees: feeBreakdown,
  /** Every status change, oldest first: from, to, source (channel/operator/expiry), reason, time. */
  timeline: z.array(transitionView),
  /** The ledger transactions this order caused, oldest first. */
  ledger: z.array(ledgerTransactionView),
  /** Work the service will do on this order, with when (expiry: expires_at). */
  scheduled: z.array(scheduledWorkView),
  /** Merchant callback deliveries, oldest first, each with its attempt log. */
  callbacks: z.array(callbackDeliveryView),
});
export type OrderDetailView = z.infer<typeof orderDetailView>;

// ---------------------------------------------------------------- export

export const EXPORT_CHUNK_DEFAULT = 500;
export const EXPORT_CHUNK_MAX = 2000;

export const orderExportRow = consoleOrderSummary.extend({
  merchant_amount: z.string(),
  passage_rate: z.string(),
  passage_amount: z.int(),
  deposit_rate: z.int(),
  deposit_amount: z.int(),
  base_rate: z.int(),
  channel_amount: z.int(),
});
export type OrderExportRow = z.infer<typeof orderExportRow>;

export const orderExportChunkView = z.object({
  rows: z.array(orderExportRow),
  /** Pass back to get the next chunk; null when this was the last. */
  next_cursor: z.string().nullable(),
  /** Matching orders when the export started (progress = exported / total). */
  total: z.int(),
  /** Rows handed out so far, this chunk included. */
  exported: z.int(),
});
export type OrderExportChunkView = z.infer<typeof orderExportChunkView>;

// ---------------------------------------------------------------- channels

/** A linked, enabled channel with what the order forms enforce. */
export const consoleChannelView = payChannelView.extend({
  pay_methods: z.array(payMethodField),
  /** Per-order limits, yuan. */
  min_amount: z.string(),
  max_amount: z.string(),
  /** The fees orders of this merchant on this channel use (link overrides applied). */
  fees: feeSettingsView,
});
export type ConsoleChannelView = z.infer<typeof consoleChannelView>;

export const consoleChannelListView = z.object({ list: z.array(consoleChannelView), total: z.int() });

// ---------------------------------------------------------------- dashboard

export const statusBucket = z.object({
  order_type: orderTypeField,
  status: orderStatusField,
  count: z.int(),
  /** Sum of cny_amount, fen. */
  amount: z.int(),
  /** Sum of merchant_actual_amount, fen. */
  merchant_actual_amount: z.int(),
});
export type StatusBucket = z.infer<typeof statusBucket>;

export const periodStats = z.object({
  /** First second of the period (Unix seconds, Beijing midnight). */
  since: z.int(),
  count: z.int(),
  amount: z.int(),
  /** Every order type × status, zeros included, buy first. */
  by_type_status: z.array(statusBucket),
});
export type PeriodStats = z.infer<typeof periodStats>;

export const dailyVolumePoint = z.object({
  /** Beijing calendar date, YYYY-MM-DD. */
  date: z.string(),
  day_start: z.int(),
  buy_count: z.int(),
  buy_amount: z.int(),
  sell_count: z.int(),
  sell_amount: z.int(),
  /** Of those, what reached `completed` (fen). */
  buy_completed_amount: z.int(),
  sell_completed_amount: z.int(),
});
export type DailyVolumePoint = z.infer<typeof dailyVolumePoint>;

export const DASHBOARD_DAYS = 30;

export const dashboardStatsView = z.object({
  generated_at: z.int(),
  /** Days are Beijing calendar days (UTC+8), as order numbers are. */
  time_zone: z.literal(BEIJING_UTC_OFFSET_TEXT),
  today: periodStats,
  last_30_days: periodStats,
  /** Oldest first, DASHBOARD_DAYS points, today last. */
  daily: z.array(dailyVolumePoint),
  /** Now, fen. */
  balances: balanceView,
});
export type DashboardStatsView = z.infer<typeof dashboardStatsView>;

// ---------------------------------------------------------------- sandbox

/** Outcomes the sandbox channel can report (docs/order-lifecycle.md): pay (buy only), complete, fail. */
export const SANDBOX_ACTION_NAMES = ['pay', 'complete', 'fail'] as const;

// ---------------------------------------------------------------- ledger

export const LEDGER_PAGE_DEFAULT = 50;
export const LEDGER_PAGE_MAX = 200;

export const ledgerPageView = z.object({
  /** Newest first. */
  list: z.array(ledgerTransactionView),
  /** Pass as before_id for the next (older) page; null when there is none. */
  next_before_id: z.int().nullable(),
});

// ---------------------------------------------------------------- settings

const IPV4 = /^(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3}$/;
const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const IPV6 = /^[0-9A-Fa-f:.]{2,45}$/;

export function isListenHost(value: string): boolean {
  return IPV4.test(value) || HOSTNAME.test(value) || (value.includes(':') && IPV6.test(value));
}

export const listenHostField = z.string().trim().refine(isListenHost, {
  error: 'must be an IP address (127.0.0.1, ::1, 0.0.0.0) or a host name',
});

/** `/segment/segment`, or `/` for none; stored without the trailing slash. */
export const basePathField = z
  .string()
  .trim()
  .regex(/^\/?$|^(\/[A-Za-z0-9._~-]+)+\/?$/, { error: 'must look like /segment/segment (letters, digits, . _ ~ -), or /' })
  .transform((v) => v.replace(/\/+$/, ''));

export const listenerSettingsView = z.object({
  enabled: z.boolean(),
  host: z.string(),
  port: z.int(),
  /** Prefix of the merchant endpoints; '' for none. */
  base_path: z.string(),
});
export type ListenerSettings = z.infer<typeof listenerSettingsView>;

export const listenerSettingsInput = z.strictObject({
  enabled: z.boolean().optional(),
  host: listenHostField.optional(),
  port: z.int().min(1).max(65535).optional(),
  base_path: basePathField.optional(),
});
export type ListenerSettingsInput = z.output<typeof listenerSettingsInput>;

export const settingsView = z.object({
  /** Stored; the desktop applies them at once, `serve` at its next start. */
  listener: listenerSettingsView,
  /** What the running listener uses, or null when none runs in this process. */
  listener_in_use: listenerSettingsView.nullable(),
  listener_url: z.string().nullable(),
  /** Why the listener is not running (e.g. its port is busy), or null. */
  listener_error: z.string().nullable(),
  data_dir: z.string(),
  version: z.string(),
});
export type SettingsView = z.infer<typeof settingsView>;

// ---------------------------------------------------------------- regions

/** What the console caches the region tree by (see region-api.ts RegionVersion). */
export const regionVersionView = z.object({
  etag: z.string(),
  source: z.object({ package: z.string(), integrity: z.string(), vintage: z.string() }),
  counts: z.object({ provinces: z.int(), cities: z.int(), districts: z.int() }),
});

export const regionTreeView = regionVersionView.extend({
  /** True when if_none_match named the current etag: the cached tree is current, `tree` is null. */
  not_modified: z.boolean(),
  tree: regionTree.nullable(),
});

// ---------------------------------------------------------------- misc inputs

export const merchantScoped = { merchant_id: positiveId };
