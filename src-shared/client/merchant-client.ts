/**
 * A small typed client of the merchant API for in-house tools, tests and
 * benchmarks: signs every request (fresh nonce, current timestamp) and
 * returns the envelope.
 */
import { randomBytes } from 'node:crypto';
import { DEFAULT_BASE_PATH } from '../constants';
import type { Envelope } from '../errors';
import type { CreatedOrderView, OrderListView, OrderView, PayChannelListView } from '../schemas/merchant-api';
import type { SignType } from '../signing';
import { computeSignature } from './sign';

export interface MerchantClientOptions {
  /** e.g. http://127.0.0.1:8787 */
  baseUrl: string;
  basePath?: string;
  apiKey: string;
  apiSecret: string;
  signType?: SignType;
  /** Unix seconds; override for clock-skew tests. */
  now?: () => number;
  fetch?: typeof fetch;
}

export interface ClientResponse<T> {
  status: number;
  body: Envelope<T | null>;
  headers: Headers;
}

export function newNonce(): string {
  return randomBytes(12).toString('base64url');
}

export function createMerchantClient(options: MerchantClientOptions) {
  const prefix = `${options.baseUrl.replace(/\/+$/, '')}${options.basePath ?? DEFAULT_BASE_PATH}/merchant`;
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  const doFetch = options.fetch ?? fetch;

  /** Adds api_key, timestamp, nonce and signature to a body. */
  function signBody(body: Record<string, unknown>, query: Record<string, string> = {}): Record<string, unknown> {
    const full: Record<string, unknown> = { api_key: options.apiKey, timestamp: now(), nonce: newNonce(), ...body };
    full.signature = computeSignature({ ...full, ...query } as never, options.apiSecret, options.signType);
    return full;
  }

  async function call<T>(endpoint: string, body: Record<string, unknown>, query: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<ClientResponse<T>> {
    const qs = new URLSearchParams(query).toString();
    const res = await doFetch(`${prefix}/${endpoint}${qs ? `?${qs}` : ''}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(signBody(body, query)),
    });
    return { status: res.status, body: (await res.json()) as Envelope<T | null>, headers: res.headers };
  }

  return {
    signBody,
    call,
    orderQueryList: (filters: Record<string, unknown> = {}) => call<OrderListView>('orderQueryList', filters),
    orderQueryDetail: (orderNo: string) => call<OrderView>('orderQueryDetail', { order_no: orderNo }),
    getPayChannels: (category?: string) => call<PayChannelListView>('getPayChannels', {}, category ? { category } : {}),
    createOrder: (body: Record<string, unknown>, headers: Record<string, string> = {}) => call<CreatedOrderView>('createOrder', body, {}, headers),
  };
}
export type MerchantClient = ReturnType<typeof createMerchantClient>;
