/**
 * Enum → label maps. Every place that shows a status, order type, channel
 * category, pay method, sign type, card type, region cache state… goes
 * through here, so labels and tag colours are defined once.
 */
import { ORDER_TYPE, PAY_METHODS, type ChannelCategory, type OrderStatus, type OrderType } from '../../src-shared/constants';
import { TRANSITION_SOURCES, type TransitionSource } from '../../src-shared/order-state-machine';
import type { CallbackDeliveryView } from '../../src-shared/schemas/money';
import type { SignType } from '../../src-shared/signing';
import type { RegionLevel } from '../region-cache/region-index';
import type { RegionStatus } from '../stores/region-store';
import type { Role } from '../../src-shared/auth/permissions';
import type { ApprovalChangeLine, ApprovalKind, ApprovalState, ApprovalView, AuditEntryView } from '../../src-shared/schemas/accounts';
import { useT, type MessageKey, type Translate } from './index';

export type TagType = 'default' | 'info' | 'success' | 'warning' | 'error' | 'primary';

export const ORDER_STATUS_TAG = {
  pending: 'warning',
  paid: 'info',
  confirmed: 'info',
  completed: 'success',
  cancelled: 'default',
} as const satisfies Record<OrderStatus, TagType>;

export const ORDER_TYPE_KEY = { [ORDER_TYPE.BUY]: 'buy', [ORDER_TYPE.SELL]: 'sell' } as const satisfies Record<OrderType, string>;
export const ORDER_TYPE_TAG = { [ORDER_TYPE.BUY]: 'success', [ORDER_TYPE.SELL]: 'info' } as const satisfies Record<OrderType, TagType>;

export const CATEGORY_TAG = { alpha: 'warning', beta: 'info', gamma: 'success' } as const satisfies Record<ChannelCategory, TagType>;

export type CallbackStatus = CallbackDeliveryView['state'];
export const CALLBACK_STATUS_TAG = { pending: 'warning', delivered: 'success', failed: 'error' } as const satisfies Record<CallbackStatus, TagType>;

/** While loading the state is only a word; the outcomes get colours. */
export const REGION_STATUS_TAG = {
  idle: 'default',
  reading: 'default',
  checking: 'default',
  downloading: 'default',
  saving: 'default',
  ready: 'success',
  offline: 'warning',
  error: 'error',
} as const satisfies Record<RegionStatus, TagType>;

export const ROLE_TAG = {
  owner: 'error',
  admin: 'warning',
  finance: 'success',
  operator: 'info',
  developer: 'primary',
  viewer: 'default',
} as const satisfies Record<Role, TagType>;

export const APPROVAL_STATE_TAG = {
  pending: 'warning',
  approved: 'success',
  rejected: 'error',
  expired: 'default',
  cancelled: 'default',
  failed: 'error',
} as const satisfies Record<ApprovalState, TagType>;

/**
 * The audit actions the service records (its action strings, docs/accounts.md) and their labels;
 * an action not listed here (a newer service) is shown as the service wrote it.
 */
export const AUDIT_ACTION_LABEL = {
  sign_in: 'enums.auditAction.signIn',
  'sign_in.password': 'enums.auditAction.signInPassword',
  'sign_in.fail': 'enums.auditAction.signInFail',
  'sign_in.throttled': 'enums.auditAction.signInThrottled',
  sign_out: 'enums.auditAction.signOut',
  'sign_out.everywhere': 'enums.auditAction.signOutEverywhere',
  'account.create': 'enums.auditAction.accountCreate',
  'account.update': 'enums.auditAction.accountUpdate',
  'account.disable': 'enums.auditAction.accountDisable',
  'account.role': 'enums.auditAction.accountRole',
  'account.password_change': 'enums.auditAction.accountPasswordChange',
  'account.password_reset': 'enums.auditAction.accountPasswordReset',
  'account.password_set': 'enums.auditAction.accountPasswordSet',
  'account.totp_begin': 'enums.auditAction.accountTotpBegin',
  'account.totp_enable': 'enums.auditAction.accountTotpEnable',
  'account.totp_reset': 'enums.auditAction.accountTotpReset',
  'approval.request': 'enums.auditAction.approvalRequest',
  'approval.approve': 'enums.auditAction.approvalApprove',
  'approval.reject': 'enums.auditAction.approvalReject',
  'approval.cancel': 'enums.auditAction.approvalCancel',
  'approval.expire': 'enums.auditAction.approvalExpire',
  'approval.fail': 'enums.auditAction.approvalFail',
  'merchant.create': 'enums.auditAction.merchantCreate',
  'merchant.update': 'enums.auditAction.merchantUpdate',
  'merchant.limits': 'enums.auditAction.merchantLimits',
  'merchant.rotate_secret': 'enums.auditAction.merchantRotateSecret',
  'merchant.secret_revealed': 'enums.auditAction.merchantSecretRevealed',
  'channel.create': 'enums.auditAction.channelCreate',
  'channel.update': 'enums.auditAction.channelUpdate',
  'channel.credentials': 'enums.auditAction.channelCredentials',
  'channel.link': 'enums.auditAction.channelLink',
  'channel.unlink': 'enums.auditAction.channelUnlink',
  'payment_method.add': 'enums.auditAction.paymentMethodAdd',
  'payment_method.enable': 'enums.auditAction.paymentMethodEnable',
  'payment_method.disable': 'enums.auditAction.paymentMethodDisable',
  'balance.adjust': 'enums.auditAction.balanceAdjust',
  'order.create': 'enums.auditAction.orderCreate',
  'order.withdraw': 'enums.auditAction.orderWithdraw',
  'order.cancel': 'enums.auditAction.orderCancel',
  'callback.resend': 'enums.auditAction.callbackResend',
  'sandbox.pay': 'enums.auditAction.sandboxPay',
  'sandbox.complete': 'enums.auditAction.sandboxComplete',
  'sandbox.fail': 'enums.auditAction.sandboxFail',
  'settings.listener': 'enums.auditAction.settingsListener',
  'settings.callbacks': 'enums.auditAction.settingsCallbacks',
  'desktop.unlock': 'enums.auditAction.desktopUnlock',
  'desktop.unlock_fail': 'enums.auditAction.desktopUnlockFail',
  'desktop.app_lock_set': 'enums.auditAction.desktopLockSet',
  'desktop.app_lock_change': 'enums.auditAction.desktopLockChange',
  'desktop.app_lock_remove': 'enums.auditAction.desktopLockRemove',
} as const satisfies Record<string, MessageKey>;
export type KnownAuditAction = keyof typeof AUDIT_ACTION_LABEL;
export const AUDIT_ACTIONS = Object.keys(AUDIT_ACTION_LABEL) as KnownAuditAction[];

export const CARD_TYPES = ['0', '1', '2', '4'] as const;
export type CardType = (typeof CARD_TYPES)[number];
export const CERT_TYPES = ['00'] as const;
export type CertType = (typeof CERT_TYPES)[number];
export const CERT_VALIDITY_TYPES = ['1', '0'] as const;
export type CertValidityType = (typeof CERT_VALIDITY_TYPES)[number];

function isOneOf<T extends string>(list: readonly T[], value: string): value is T {
  return (list as readonly string[]).includes(value);
}

export function labelsFor(t: Translate) {
  return {
    /** A pending buy order awaits payment; a pending sell order awaits processing. */
    orderStatus(status: OrderStatus, orderType?: OrderType): string {
      if (status === 'pending' && orderType === ORDER_TYPE.BUY) return t('enums.buyPending');
      return t(`enums.orderStatus.${status}`);
    },
    orderType(orderType: OrderType): string {
      return t(`enums.orderType.${ORDER_TYPE_KEY[orderType]}`);
    },
    category(category: ChannelCategory): string {
      return t(`enums.category.${category}`);
    },
    payMethod(method: string): string {
      return isOneOf(PAY_METHODS, method) ? t(`enums.payMethod.${method}`) : method;
    },
    /** "wxpay,alipay" → "微信支付、支付宝" / "WeChat Pay, Alipay". */
    payMethods(list: string | readonly string[]): string {
      const methods = typeof list === 'string' ? list.split(',').filter(Boolean) : list;
      return methods.map((m) => this.payMethod(m)).join(t('common.listSeparator'));
    },
    signType(signType: SignType): string {
      return t(`enums.signType.${signType}`);
    },
    cardType(cardType: string): string {
      return isOneOf(CARD_TYPES, cardType) ? t(`enums.cardType.${cardType}`) : cardType;
    },
    certType(certType: string): string {
      return isOneOf(CERT_TYPES, certType) ? t(`enums.certType.${certType}`) : certType;
    },
    certValidity(validity: string): string {
      return isOneOf(CERT_VALIDITY_TYPES, validity) ? t(`enums.certValidity.${validity}`) : validity;
    },
    transitionSource(source: TransitionSource | string): string {
      return isOneOf<TransitionSource>(TRANSITION_SOURCES, source) ? t(`enums.transitionSource.${source}`) : source;
    },
    callbackStatus(status: CallbackStatus): string {
      return t(`enums.callbackStatus.${status}`);
    },
    regionStatus(status: RegionStatus): string {
      return t(`regions.phase.${status}`);
    },
    regionLevel(level: RegionLevel): string {
      return t(`regions.${level}`);
    },
    role(role: Role): string {
      return t(`enums.role.${role}`);
    },
    approvalKind(kind: ApprovalKind): string {
      return t(`enums.approvalKind.${kind}`);
    },
    approvalState(state: ApprovalState): string {
      return t(`enums.approvalState.${state}`);
    },
    /** A request's title in the console's language (from its kind and title_params); the service's English one when it has none. */
    approvalTitle(approval: Pick<ApprovalView, 'kind' | 'title' | 'title_params'>): string {
      const params = approval.title_params;
      if (Object.keys(params).length === 0) return approval.title;
      const words: Record<string, string> = { ...params };
      if (params.from_role) words.from_role = this.role(params.from_role as Role);
      if (params.to_role) words.to_role = this.role(params.to_role as Role);
      return t(`approvals.kindTitle.${approval.kind}`, words);
    },
    approvalChangeLabel(line: ApprovalChangeLine): string {
      return t(`approvals.changeKey.${line.key}`);
    },
    /** A value of a change line: role names and which API secret are words of the console; amounts and text as given. */
    approvalChangeValue(line: ApprovalChangeLine, value: string | null): string {
      if (value === null) return '—';
      if (line.key === 'role') return this.role(value as Role);
      if (line.key === 'api_secret' && (value === 'current' || value === 'new')) return t(`approvals.secretValue.${value}`);
      return value;
    },
    requestedVia(via: ApprovalView['requested_via']): string {
      return t(`enums.requestedVia.${via}`);
    },
    auditActor(kind: AuditEntryView['actor_kind']): string {
      return t(`enums.auditActor.${kind}`);
    },
    auditAction(action: string): string {
      return Object.hasOwn(AUDIT_ACTION_LABEL, action) ? t(AUDIT_ACTION_LABEL[action as KnownAuditAction]) : action;
    },
  };
}

export type Labels = ReturnType<typeof labelsFor>;

export function useLabels(): Labels {
  return labelsFor(useT());
}
