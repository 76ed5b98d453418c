/**
 * A real service on a temp data dir (real SQLite file) and, when asked, a
 * real listener on 127.0.0.1 with an ephemeral port.
 */
import { afterEach } from 'vitest';
import { createMerchantClient, type MerchantClient } from '../../src-shared/client/merchant-client';
import type { ChannelCategory, PayMethod } from '../../src-shared/constants';
import { startListener, type ListenerOptions, type RunningListener } from '../../src-main/http/server';
import { RATE_LIMITS_OFF } from '../../src-main/http/rate-limit';
import { openService, type MerchantConsoleService, type ServiceOptions } from '../../src-main/service';
import type { Clock } from '../../src-main/services/context';
import { tempDir } from './temp-dir';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

/** A clock the test moves by hand. */
export function manualClock(start = Math.floor(Date.now() / 1000)): Clock & { set(t: number): void; advance(s: number): void } {
  let t = start;
  return { now: () => t, set: (v) => (t = v), advance: (s) => (t += s) };
}

export function testService(options: Partial<ServiceOptions> = {}): MerchantConsoleService {
  const service = openService({ dataDir: options.dataDir ?? tempDir(), ...options });
  cleanups.push(() => service.close());
  return service;
}

/** Rate limits are off unless a test asks for them (tests send bursts from one address). */
export async function testListener(service: MerchantConsoleService, options: ListenerOptions = {}): Promise<RunningListener> {
  const listener = await startListener(service, { host: '127.0.0.1', port: 0, logger: false, rateLimits: RATE_LIMITS_OFF, ...options });
  cleanups.unshift(() => listener.close());
  return listener;
}

export interface SeededMerchant {
  id: number;
  apiKey: string;
  apiSecret: string;
  channels: Record<ChannelCategory, number>;
}

/** A merchant with one linked sandbox channel per category and a bank settlement account. */
/** `balance` (fen) is given to the merchant as an operator adjustment, so sell orders can be created. */
export function seedMerchant(
  service: MerchantConsoleService,
  name = 'Test Merchant',
  opts: { signType?: 'md5' | 'hmac-sha256'; payMethods?: PayMethod[]; balance?: number } = {},
): SeededMerchant {
  const { merchants, channels, paymentMethods } = service.services;
  const m = merchants.create({ name, sign_type: opts.signType ?? 'hmac-sha256', callback_url: null });
  const ids = {} as Record<ChannelCategory, number>;
  for (const category of ['alpha', 'beta', 'gamma'] as const) {
    const c = channels.create({
      category,
      name: `${name} ${category}`,
      pay_methods: opts.payMethods ?? ['wxpay', 'alipay', 'bank'],
      service_rate: '0.006',
      passage_rate: '0.002',
      deposit_rate: 50,
      base_rate: 30,
      min_amount: 100,
      max_amount: 5_000_000,
    });
    channels.link({ merchant_id: m.id, channel_id: c.id });
    ids[category] = c.id;
  }
  paymentMethods.add({ merchant_id: m.id, kind: 'bank', bank: '中国银行', sub_bank: '上海分行', card_number: '6217000010001234567', real_name: '测试' });
  paymentMethods.add({ merchant_id: m.id, kind: 'alipay', card_number: 'merchant@example.com', real_name: '测试' });
  paymentMethods.add({ merchant_id: m.id, kind: 'wxpay', card_number: 'wxid_merchant', real_name: '测试' });
  if (opts.balance) service.services.ledger.adjust(m.id, opts.balance, 'test opening balance');
  return { id: m.id, apiKey: m.api_key, apiSecret: m.api_secret, channels: ids };
}

export function clientFor(listener: RunningListener, merchant: SeededMerchant, extra: { now?: () => number; basePath?: string; signType?: 'md5' | 'hmac-sha256' } = {}): MerchantClient {
  return createMerchantClient({ baseUrl: listener.url, apiKey: merchant.apiKey, apiSecret: merchant.apiSecret, ...extra });
}

/** Counts rows of a table (assert that failures leave nothing behind). */
export function rowCount(service: MerchantConsoleService, table: string): number {
  return (service.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
}
