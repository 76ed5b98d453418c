/**
 * A real service on a temp data dir — a real SQLite file, or a real
 * PostgreSQL database of its own when the tests run on PostgreSQL
 * (test-engine.ts) — and, when asked, a real listener on 127.0.0.1 with an
 * ephemeral port.
 */
import { afterEach } from 'vitest';
import { createMerchantClient, type MerchantClient } from '../../src-shared/client/merchant-client';
import type { ChannelCategory, PayMethod } from '../../src-shared/constants';
import { startListener, type ListenerOptions, type RunningListener } from '../../src-main/http/server';
import { RATE_LIMITS_OFF } from '../../src-main/http/rate-limit';
import { openService, type MerchantConsoleService, type ServiceOptions } from '../../src-main/service';
import type { Clock } from '../../src-main/services/context';
import type { ReadTx, WriteTx } from '../../src-main/store/store';
import { tempDir } from './temp-dir';
import { databaseUrlFor } from './test-engine';
import { checkAnswersAgainstOpenApi } from './openapi-conformance';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

/** A clock the test moves by hand. */
export function manualClock(start = Math.floor(Date.now() / 1000)): Clock & { set(t: number): void; advance(s: number): void } {
  let t = start;
  return { now: () => t, set: (v) => (t = v), advance: (s) => (t += s) };
}

/** Opens the service on a data dir's store (the same store for every call with that dir in a test); closed after the test. */
export async function testService(options: Partial<ServiceOptions> = {}): Promise<MerchantConsoleService> {
  const dataDir = options.dataDir ?? tempDir();
  const databaseUrl = options.databaseUrl ?? (await databaseUrlFor(dataDir));
  const service = await openService({ ...options, dataDir, ...(databaseUrl ? { databaseUrl } : {}) });
  cleanups.push(() => service.close());
  return service;
}

/**
 * Test callback receivers listen on 127.0.0.1, which the callback URL policy refuses by default: opt in, as an
 * operator with an in-house receiver does (`callback policy --allow-private`, docs/callbacks.md).
 */
export async function allowPrivateCallbacks(service: MerchantConsoleService): Promise<void> {
  await service.store.write((tx) => service.services.settings.updateCallbacks(tx, { allow_private: true }));
}

/** Rate limits are off unless a test asks for them (tests send bursts from one address). */
export async function testListener(service: MerchantConsoleService, options: ListenerOptions = {}): Promise<RunningListener> {
  const listener = await startListener(service, { host: '127.0.0.1', port: 0, logger: false, rateLimits: RATE_LIMITS_OFF, setup: checkAnswersAgainstOpenApi, ...options });
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
): Promise<SeededMerchant> {
  const { merchants, channels, paymentMethods } = service.services;
  return service.store.write(async (tx) => {
    const m = await merchants.create(tx, { name, sign_type: opts.signType ?? 'hmac-sha256', callback_url: null });
    const ids = {} as Record<ChannelCategory, number>;
    for (const category of ['alpha', 'beta', 'gamma'] as const) {
      const c = await channels.create(tx, {
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
      await channels.link(tx, { merchant_id: m.id, channel_id: c.id });
      ids[category] = c.id;
    }
    await paymentMethods.add(tx, { merchant_id: m.id, kind: 'bank', bank: '中国银行', sub_bank: '上海分行', card_number: '6217000010001234567', real_name: '测试' });
    await paymentMethods.add(tx, { merchant_id: m.id, kind: 'alipay', card_number: 'merchant@example.com', real_name: '测试' });
    await paymentMethods.add(tx, { merchant_id: m.id, kind: 'wxpay', card_number: 'wxid_merchant', real_name: '测试' });
    if (opts.balance) await service.services.ledger.adjust(tx, m.id, opts.balance, 'test opening balance');
    return { id: m.id, apiKey: m.api_key, apiSecret: m.api_secret, channels: ids };
  });
}

export function clientFor(listener: RunningListener, merchant: SeededMerchant, extra: { now?: () => number; basePath?: string; signType?: 'md5' | 'hmac-sha256' } = {}): MerchantClient {
  return createMerchantClient({ baseUrl: listener.url, apiKey: merchant.apiKey, apiSecret: merchant.apiSecret, ...extra });
}

/** Counts rows of a table (assert that failures leave nothing behind). */
export async function rowCount(service: MerchantConsoleService, table: string): Promise<number> {
  return (await service.store.read((tx) => tx.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`)))!.n;
}

/** A read unit of work on the service's store (tests). */
export function read<T>(service: MerchantConsoleService, fn: (tx: ReadTx) => Promise<T>): Promise<T> {
  return service.store.read(fn);
}

/** A write unit of work on the service's store (tests). */
export function write<T>(service: MerchantConsoleService, fn: (tx: WriteTx) => Promise<T>): Promise<T> {
  return service.store.write(fn);
}
