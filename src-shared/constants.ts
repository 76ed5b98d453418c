/** Enumerations and limits of the merchant API, shared by service and console. */

export const CHANNEL_CATEGORIES = ['alpha', 'beta', 'gamma'] as const;
export type ChannelCategory = (typeof CHANNEL_CATEGORIES)[number];

export const PAY_METHODS = ['wxpay', 'alipay', 'bank'] as const;
export type PayMethod = (typeof PAY_METHODS)[number];

export const ORDER_TYPE = { BUY: 1, SELL: 2 } as const;
export type OrderType = (typeof ORDER_TYPE)[keyof typeof ORDER_TYPE];
export const ORDER_TYPES: readonly OrderType[] = [ORDER_TYPE.BUY, ORDER_TYPE.SELL];

export const ORDER_STATUSES = ['pending', 'paid', 'confirmed', 'completed', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const CHANNEL_DRIVERS = ['sandbox'] as const;
export type ChannelDriver = (typeof CHANNEL_DRIVERS)[number];

/** `Alpha` for `alpha`: the spec's category_text / pay_method_text convention. */
export function capitalise(word: string): string {
  return word.length === 0 ? word : word[0]!.toUpperCase() + word.slice(1);
}

export function categoryText(category: ChannelCategory): string {
  return capitalise(category);
}

/** `Wxpay,Alipay` for `wxpay,alipay`. */
export function payMethodText(payMethod: string): string {
  return payMethod
    .split(',')
    .filter((m) => m.length > 0)
    .map(capitalise)
    .join(',');
}

export const LIST_DEFAULT_PAGE = 1;
export const LIST_DEFAULT_LIMIT = 20;
export const LIST_MAX_LIMIT = 100;
/** The page sizes the console's tables offer (PostgreSQL keeps a plan for their first pages: order-repository). */
export const LIST_PAGE_SIZES: readonly number[] = [10, 20, 50, 100];

/** Requests whose timestamp is further than this from the server clock are refused. */
export const TIMESTAMP_TOLERANCE_SECONDS = 300;
/** How long a consumed nonce is remembered; must exceed twice the tolerance. */
export const NONCE_RETENTION_SECONDS = 900;
export const NONCE_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

/** Largest single order accepted by any channel: 99,999,999.99 CNY. */
export const MAX_ORDER_AMOUNT_FEN = 9_999_999_999;

export const BODY_LIMIT_BYTES = 64 * 1024;
export const DEFAULT_BASE_PATH = '/addons/paychannel';
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8787;

/** Channel timing defaults (seconds): unpaid buy orders expire, paid buys settle, accepted payouts complete. */
export const DEFAULT_PAY_TIMEOUT_SECONDS = 30 * 60;
export const DEFAULT_SETTLE_DELAY_SECONDS = 0;
export const DEFAULT_PAYOUT_DELAY_SECONDS = 5;
export const PAY_TIMEOUT_RANGE_SECONDS = { min: 60, max: 7 * 24 * 3600 } as const;
export const CHANNEL_DELAY_MAX_SECONDS = 7 * 24 * 3600;
