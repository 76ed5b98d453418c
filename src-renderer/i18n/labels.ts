/**
 * Enum → label maps. Every place that shows a status, order type, channel
 * category, pay method, sign type, card type… goes through here, so labels
 * and tag colours are defined once.
 */
import type { ChannelCategory, OrderStatus, OrderType } from '../../src-shared/constants';
import { PAY_METHODS } from '../../src-shared/constants';
import { ORDER_TYPE } from '../../src-shared/constants';
import { TRANSITION_SOURCES, type TransitionSource } from '../../src-shared/order-state-machine';
import type { CallbackDeliveryView } from '../../src-shared/schemas/money';
import { useT, type MessageKey, type Translate } from './index';

export type TagType = 'default' | 'info' | 'success' | 'warning' | 'error' | 'primary';

export const ORDER_STATUS_TAG: Record<OrderStatus, TagType> = {
  pending: 'warning',
  paid: 'info',
  confirmed: 'info',
  completed: 'success',
  cancelled: 'default',
};

export const ORDER_TYPE_KEY = { [ORDER_TYPE.BUY]: 'buy', [ORDER_TYPE.SELL]: 'sell' } as const satisfies Record<OrderType, string>;

export type CallbackStatus = CallbackDeliveryView['state'];
export const CALLBACK_STATUS_TAG = { pending: 'warning', delivered: 'success', failed: 'error' } as const satisfies Record<CallbackStatus, TagType>;

export const CARD_TYPES = ['0', '1', '2', '4'] as const;
export type CardType = (typeof CARD_TYPES)[number];
export const CERT_TYPES = ['00'] as const;
export type CertType = (typeof CERT_TYPES)[number];
export const CERT_VALIDITY_TYPES = ['1', '0'] as const;
export type CertValidityType = (typeof CERT_VALIDITY_TYPES)[number];

export const SIGN_TYPE_LABEL_KEY = { 'hmac-sha256': 'enums.signType.hmac-sha256', md5: 'enums.signType.md5' } as const satisfies Record<string, MessageKey>;

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
    signType(signType: keyof typeof SIGN_TYPE_LABEL_KEY): string {
      return t(SIGN_TYPE_LABEL_KEY[signType]);
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
  };
}

export type Labels = ReturnType<typeof labelsFor>;

export function useLabels(): Labels {
  return labelsFor(useT());
}
