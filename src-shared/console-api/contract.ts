/**
 * The console API contract: every call the console UI makes, with its
 * request and response schema. The desktop preload exposes exactly these
 * methods over IPC; `serve` exposes the same at /console-api/<method>; the
 * renderer's client type is derived from this map, never written by hand.
 *
 * Every call names the permission it needs (src-shared/auth/permissions.ts;
 * null: any signed-in account) and its merchant scope: 'any' involves no
 * merchant; 'merchant' acts for the merchant named by `merchant_id` in the
 * request, which must be one of the caller's; 'platform' is for platform
 * staff only (accounts limited to some merchants are refused); 'filtered'
 * answers only what concerns the caller's merchants. Both transports check
 * permission and scope before the handler runs (console-handlers.ts).
 * Amounts follow the merchant API (docs/api.md): integers are fen, yuan
 * strings have two decimals; inputs accept yuan as "100.50" or 100.5.
 */
import { z } from 'zod';
import { CONSOLE_METHODS, type ConsoleMethod } from './methods';
import { acrossMembers, timeRangeInOrder } from '../schemas/across-members';
import { categoryField, positiveId, yuanThreshold } from '../schemas/fields';
import { createBuyOrderFields, createdOrderView, createSellOrderFields } from '../schemas/merchant-api';
import {
  channelAdminView,
  channelCreateInput,
  channelLinkInput,
  channelLinkView,
  channelUnlinkInput,
  channelUpdateInput,
  merchantCreateInput,
  merchantUpdateInput,
  merchantView,
  merchantWithSecretView,
  paymentMethodAddInput,
  paymentMethodView,
} from '../schemas/operator';
import {
  consoleChannelListView,
  consoleOrderFilters,
  consoleOrderListView,
  dashboardStatsView,
  EXPORT_CHUNK_DEFAULT,
  EXPORT_CHUNK_MAX,
  LEDGER_PAGE_DEFAULT,
  LEDGER_PAGE_MAX,
  ledgerPageView,
  listenerSettingsInput,
  merchantScoped,
  orderDetailView,
  orderExportChunkView,
  SANDBOX_ACTION_NAMES,
  regionTreeView,
  settingsView,
} from '../schemas/console';
import { balanceAdjustInput, balanceAdjustView, balanceView, callbackDeliveryView } from '../schemas/money';
import { LIST_DEFAULT_LIMIT, LIST_DEFAULT_PAGE, LIST_MAX_LIMIT } from '../constants';
import type { Permission } from '../auth/permissions';
import {
  accountCreateInput,
  accountUpdateInput,
  accountView,
  approvalDecisionInput,
  approvalListInput,
  approvalListView,
  approvalRejectInput,
  approvalView,
  auditPageInput,
  auditPageView,
  doneOrPending,
  oneTimeLinkView,
  passwordChangeInput,
  roleChangeInput,
  sessionView,
  totpCodeField,
  totpEnrolmentView,
} from '../schemas/accounts';

export type ConsoleScope = 'any' | 'merchant' | 'platform' | 'filtered';

export interface ContractEntry<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  /** What the caller's role must allow; null: any signed-in account. */
  permission: Permission | null;
  scope: ConsoleScope;
  request: Req;
  response: Res;
}

function entry<Req extends z.ZodType, Res extends z.ZodType>(
  permission: Permission | null,
  scope: ConsoleScope,
  request: Req,
  response: Res,
): ContractEntry<Req, Res> {
  return { permission, scope, request, response };
}

const noParams = z.strictObject({});

export const serviceInfoView = z.object({
  version: z.string(),
  data_dir: z.string(),
  /** Where the embedded listener answers, or null when it is off or failed. */
  listener_url: z.string().nullable(),
  /** Why the listener is not running (busy port…), or null. */
  listener_error: z.string().nullable(),
});

const orderNoParam = z.string().trim().min(1).max(64);

/** A console write's optional `idempotency_key` (createOrder, adjustBalance): one per form submission. */
const idempotencyKeyField = z
  .string()
  .regex(/^[\x21-\x7e]([\x20-\x7e]{0,253}[\x21-\x7e])?$/, { error: 'must be 1-255 printable ASCII characters, without leading or trailing spaces' })
  .optional();

const consoleCreateExtras = {
  ...merchantScoped,
  idempotency_key: idempotencyKeyField,
};

export const consoleApiContract = {
  getServiceInfo: entry(null, 'any', noParams, serviceInfoView),
  /**
   * The region tree (the spec's regionData shape) with its version (ETag, source, counts); with
   * if_none_match = the cached etag, only the version and `not_modified: true` (cheap revalidation).
   */
  getRegionData: entry(null, 'any', z.strictObject({ if_none_match: z.string().max(200).optional() }), regionTreeView),

  // ------------------------------------------------------------ merchant-scoped
  /** Enabled channels linked to the merchant, with pay methods, limits and effective fees (order forms). */
  listPayChannels: entry('orders.read', 'merchant', z.strictObject({ ...merchantScoped, category: categoryField.optional() }), consoleChannelListView),
  /** Newest first; filters status, type, createtime range (inclusive), order number (prefix or exact). */
  listOrders: entry(
    'orders.read',
    'merchant',
    z
      .strictObject({
        ...merchantScoped,
        page: z.int().min(1).max(1_000_000).default(LIST_DEFAULT_PAGE),
        limit: z.int().min(1).max(LIST_MAX_LIMIT).default(LIST_DEFAULT_LIMIT),
        ...consoleOrderFilters,
      })
      .check(timeRangeInOrder),
    consoleOrderListView,
  ),
  /** Every field of the spec's Order / Buy / Sell resources plus channel and fee breakdown. */
  getOrder: entry('orders.read', 'merchant', z.strictObject({ ...merchantScoped, order_no: orderNoParam }), orderDetailView),
  /**
   * The merchant API's createOrder of a buy order, without signature: same validation, services and
   * ledger. With `idempotency_key` (the UI makes one per form submission), a retry with the same key and
   * fields answers the first order instead of creating another; other fields → 409 (4003).
   */
  createOrder: entry(
    'orders.create',
    'merchant',
    createBuyOrderFields.extend({ ...consoleCreateExtras, order_type: z.literal(1, { error: 'must be 1 (buy); a sell order is a withdrawal: requestWithdrawal' }) }),
    createdOrderView,
  ),
  /**
   * A withdrawal (a sell order). Above the merchant's console withdrawal threshold (default 0: every
   * one) it waits for a second person's approval, its funds held meanwhile (`approval`); else the order
   * is created at once (`done`). `idempotency_key` as for createOrder.
   */
  requestWithdrawal: entry(
    'orders.withdraw',
    'merchant',
    createSellOrderFields.extend({ ...consoleCreateExtras, order_type: z.literal(2, { error: 'must be 2 (sell): a withdrawal is a sell order' }) }),
    doneOrPending(createdOrderView),
  ),
  /** One chunk of the filtered list for CSV (src-shared/csv/orders-csv.ts formats it); follow next_cursor. */
  exportOrders: entry(
    'orders.read',
    'merchant',
    z
      .strictObject({
        ...merchantScoped,
        ...consoleOrderFilters,
        cursor: z.string().min(1).max(512).optional(),
        chunk_size: z.int().min(1).max(EXPORT_CHUNK_MAX).default(EXPORT_CHUNK_DEFAULT),
      })
      .check(timeRangeInOrder),
    orderExportChunkView,
  ),
  /** Today's and 30 days' counts and sums by type and status, and the daily volume series. */
  getDashboardStats: entry('orders.read', 'merchant', z.strictObject({ ...merchantScoped }), dashboardStatsView),
  /** available, frozen (reserved by pending sells) and deposit, fen. */
  getBalances: entry('orders.read', 'merchant', z.strictObject({ ...merchantScoped }), balanceView),
  /** The merchant's ledger transactions, newest first; page with before_id. */
  listLedger: entry(
    'orders.read',
    'merchant',
    z.strictObject({
      ...merchantScoped,
      before_id: positiveId.optional(),
      limit: z.int().min(1).max(LEDGER_PAGE_MAX).default(LEDGER_PAGE_DEFAULT),
    }),
    ledgerPageView,
  ),
  /** Queues the order's current status as a new callback to the merchant; answers that delivery. */
  resendCallback: entry('callbacks.resend', 'merchant', z.strictObject({ ...merchantScoped, order_no: orderNoParam }), callbackDeliveryView),
  /**
   * Sandbox channels only: makes the sandbox channel report an outcome — pay (buy), complete, fail —
   * through its signed notification, exactly as the checkout page and `order pay|complete|fail` do.
   * Answers the order detail right after (follow-up work such as settlement runs in the background).
   */
  simulateOrderOutcome: entry(
    'sandbox.simulate',
    'merchant',
    z.strictObject({ ...merchantScoped, order_no: orderNoParam, action: z.enum(SANDBOX_ACTION_NAMES), reason: z.string().trim().min(1).max(256).optional() }),
    orderDetailView,
  ),

  // ------------------------------------------------------------ operator
  listMerchants: entry('merchants.read', 'filtered', noParams, z.array(merchantView)),
  /** The api_secret is in this answer only. */
  createMerchant: entry('merchants.manage', 'platform', merchantCreateInput, merchantWithSecretView),
  updateMerchant: entry('merchants.manage', 'platform', merchantUpdateInput, merchantView),
  /** The new api_secret is in this answer only; the old one stops working at once. */
  rotateMerchantSecret: entry('merchants.rotate_secret', 'merchant', z.strictObject({ ...merchantScoped }), doneOrPending(merchantWithSecretView)),
  /** Every channel; sensitive config keys only, values masked. */
  listChannels: entry('channels.read', 'platform', noParams, z.array(channelAdminView)),
  /** `config` is write-only: answers carry config_masked. */
  createChannel: entry('channels.manage', 'platform', channelCreateInput, channelAdminView),
  /** `config`, when given, replaces the whole config; omitted keeps it. */
  updateChannel: entry('channels.manage', 'platform', channelUpdateInput.omit({ config: true }), channelAdminView),
  /** Links of one merchant or of one channel (exactly one of the two). */
  listChannelLinks: entry(
    'channels.read',
    'platform',
    z
      .strictObject({ merchant_id: positiveId.optional(), channel_id: positiveId.optional() })
      .check(
        acrossMembers((v) => ((v.merchant_id === undefined) === (v.channel_id === undefined) ? [['merchant_id', 'give exactly one of merchant_id and channel_id']] : undefined)),
      ),
    z.array(channelLinkView),
  ),
  /** Links (or re-links with new overrides); a null override means "the channel's". */
  linkChannel: entry('channels.manage', 'platform', channelLinkInput, channelLinkView),
  unlinkChannel: entry('channels.manage', 'platform', channelUnlinkInput, z.object({ merchant_id: z.int(), channel_id: z.int(), unlinked: z.literal(true) })),
  /** Settlement accounts (payees of beta/gamma sells), card numbers masked. */
  listPaymentMethods: entry('orders.read', 'merchant', z.strictObject({ ...merchantScoped }), z.array(paymentMethodView)),
  addPaymentMethod: entry('payment_methods.manage', 'merchant', paymentMethodAddInput, paymentMethodView),
  setPaymentMethodEnabled: entry('payment_methods.manage', 'merchant', z.strictObject({ ...merchantScoped, id: positiveId, enabled: z.boolean() }), paymentMethodView),
  /**
   * A ledger transaction on the merchant's available balance: signed yuan ("-50.00"), reason kept.
   * With `idempotency_key` (the UI makes one per adjustment being filled in), a retry with the same
   * key, amount and reason answers the first adjustment and books nothing; other fields → 409 (4003).
   */
  adjustBalance: entry('balances.adjust', 'merchant', balanceAdjustInput.extend({ idempotency_key: idempotencyKeyField }), doneOrPending(balanceAdjustView)),
  /** Operator cancel of a pending order or a confirmed sell (reserved funds released); answers the detail. */
  cancelOrder: entry('orders.cancel', 'merchant', z.strictObject({ ...merchantScoped, order_no: orderNoParam, reason: z.string().trim().min(1).max(256) }), orderDetailView),
  /** Stored listener settings, what the running listener uses, data dir, version. */
  getSettings: entry('settings.manage', 'platform', noParams, settingsView),
  /** Saved, then applied at once where the host can (desktop), else at the next start (serve). */
  updateListenerSettings: entry('settings.manage', 'platform', listenerSettingsInput, settingsView),
  /** A merchant's withdrawal thresholds (yuan; console default 0: every withdrawal needs approval; API: none). */
  updateMerchantLimits: entry(
    'merchants.manage',
    'platform',
    z.strictObject({ id: positiveId, console_withdrawal_threshold: yuanThreshold.optional(), api_withdrawal_threshold: yuanThreshold.nullable().optional() }),
    merchantView,
  ),
  /** A merchant's callback URL and sign type (developer settings). */
  updateMerchantDeveloperSettings: entry(
    'merchants.developer',
    'merchant',
    z.strictObject({ ...merchantScoped, callback_url: merchantUpdateInput.shape.callback_url, sign_type: merchantUpdateInput.shape.sign_type }),
    merchantView,
  ),
  /** The new api_secret of an approved rotation, to the account that asked for it, once. */
  revealRotatedSecret: entry('merchants.rotate_secret', 'filtered', z.strictObject({ approval_id: positiveId }), merchantWithSecretView),
  /** New channel credentials (driver config, replacing the whole config): waits for a second person's approval. */
  changeChannelCredentials: entry('channels.credentials', 'platform', z.strictObject({ id: positiveId, config: channelUpdateInput.shape.config.unwrap() }), doneOrPending(channelAdminView)),

  // ------------------------------------------------------------ the signed-in account
  /** Who is signed in, the role's permissions, the inbox count. */
  getSession: entry(null, 'any', noParams, sessionView),
  changePassword: entry(null, 'any', passwordChangeInput, sessionView),
  /** Starts two-factor enrolment: a new secret, shown once, as a QR code. */
  beginTotpEnrolment: entry(null, 'any', noParams, totpEnrolmentView),
  /** A code from the app proves the enrolment; from then on sign-in asks for a code. */
  confirmTotpEnrolment: entry(null, 'any', z.strictObject({ code: totpCodeField }), sessionView),
  /** Ends every session of this account, this one included. */
  signOutEverywhere: entry(null, 'any', noParams, z.object({ ended_sessions: z.int() })),

  // ------------------------------------------------------------ accounts
  listAccounts: entry('accounts.manage', 'platform', noParams, z.array(accountView)),
  createAccount: entry('accounts.manage', 'platform', accountCreateInput, accountView),
  updateAccount: entry('accounts.manage', 'platform', accountUpdateInput, accountView),
  /** A role change waits for a second person's approval. */
  requestRoleChange: entry('accounts.manage', 'platform', roleChangeInput, doneOrPending(accountView)),
  /** A one-time link to set a new password (its sessions end now). */
  resetAccountPassword: entry('accounts.manage', 'platform', z.strictObject({ id: positiveId }), oneTimeLinkView),
  /** Removes the account's two-factor enrolment: it enrols again at its next sign-in. */
  resetAccountTotp: entry('accounts.manage', 'platform', z.strictObject({ id: positiveId }), accountView),

  // ------------------------------------------------------------ approvals
  listApprovals: entry('approvals.read', 'filtered', approvalListInput, approvalListView),
  getApproval: entry('approvals.read', 'filtered', z.strictObject({ id: positiveId }), approvalView),
  /** Approving needs a fresh TOTP code; never the requester's own request. */
  approveRequest: entry('approvals.decide', 'filtered', approvalDecisionInput, approvalView),
  rejectRequest: entry('approvals.decide', 'filtered', approvalRejectInput, approvalView),
  /** The requester withdraws a pending request (held funds are released). */
  cancelRequest: entry('approvals.read', 'filtered', z.strictObject({ id: positiveId }), approvalView),

  // ------------------------------------------------------------ audit
  /** The audit trail, newest first; page (and export) with before_id. */
  listAuditLog: entry('audit.read', 'filtered', auditPageInput.check(timeRangeInOrder), auditPageView),
  // `satisfies` makes a method missing from, or extra to, methods.ts a compile error.
} satisfies Record<ConsoleMethod, ContractEntry>;

export type ConsoleApiContract = typeof consoleApiContract;
/** What the caller sends (defaults may be omitted). */
export type ConsoleRequest<M extends ConsoleMethod> = z.input<ConsoleApiContract[M]['request']>;
/** What the handler receives after validation (defaults applied). */
export type ConsoleParsedRequest<M extends ConsoleMethod> = z.output<ConsoleApiContract[M]['request']>;
export type ConsoleResponse<M extends ConsoleMethod> = z.output<ConsoleApiContract[M]['response']>;

/** The console API as the renderer sees it: one async function per method. */
export type ConsoleApi = { [M in ConsoleMethod]: (request: ConsoleRequest<M>) => Promise<ConsoleResponse<M>> };

export { CONSOLE_METHODS };
export type { ConsoleMethod };
