/**
 * Helpers for money and lifecycle tests: fund a merchant, create orders
 * through the real services, bring an order into a given status along the
 * legal path, and check the ledger against the cached balances.
 */
import { expect } from 'vitest';
import type { ChannelCategory, OrderStatus, OrderType } from '../../src-shared/constants';
import type { OrderRow } from '../../src-main/repositories/order-repository';
import type { MerchantConsoleService } from '../../src-main/service';
import type { SeededMerchant } from './service-harness';

export function fund(service: MerchantConsoleService, merchantId: number, fen: number, reason = 'test funding'): void {
  service.services.ledger.adjust(merchantId, fen, reason);
}

export function newBuy(service: MerchantConsoleService, m: SeededMerchant, fen = 10_000, category: ChannelCategory = 'beta'): OrderRow {
  return service.services.orders.createBuy(m.id, { order_type: 1, cny_amount: fen, paychannel_id: m.channels[category], paychannel_paymethod: 'alipay' });
}

export function newSell(service: MerchantConsoleService, m: SeededMerchant, fen = 10_000, category: Exclude<ChannelCategory, 'alpha'> = 'beta'): OrderRow {
  return service.services.orders.createSell(m.id, { order_type: 2, cny_amount: fen, paychannel_id: m.channels[category], paychannel_paymethod: 'bank' });
}

const PATHS: Record<OrderType, Partial<Record<OrderStatus, OrderStatus[]>>> = {
  1: { pending: [], paid: ['paid'], completed: ['paid', 'completed'], cancelled: ['cancelled'] },
  2: { pending: [], confirmed: ['confirmed'], completed: ['confirmed', 'completed'], cancelled: ['cancelled'] },
};

/** A new order of this type moved to `status` along the legal path; undefined when the type never has that status. */
export function orderIn(service: MerchantConsoleService, m: SeededMerchant, type: OrderType, status: OrderStatus): OrderRow | undefined {
  const path = PATHS[type][status];
  if (!path) return undefined;
  let order = type === 1 ? newBuy(service, m) : newSell(service, m);
  for (const to of path) order = service.services.lifecycle.transition(order, to, { source: 'operator', reason: 'test setup' });
  return order;
}

export function reload(service: MerchantConsoleService, order: OrderRow): OrderRow {
  return service.ctx.repos.orders.findById(order.id)!;
}

/** Every ledger transaction balances, the whole ledger sums to 0, and cached balances equal ledger sums. */
export function expectLedgerConsistent(service: MerchantConsoleService): void {
  expect(service.services.ledger.audit()).toEqual([]);
  const total = service.db.prepare('SELECT coalesce(sum(amount), 0) AS t FROM ledger_entries').get() as { t: number };
  expect(total.t).toBe(0);
  for (const m of service.services.merchants.list()) {
    const cached = service.services.ledger.balances(m.id);
    expect(service.services.ledger.ledgerBalances(m.id)).toEqual(cached);
    expect(cached.available).toBeGreaterThanOrEqual(0);
    expect(cached.frozen).toBeGreaterThanOrEqual(0);
    expect(cached.deposit).toBeGreaterThanOrEqual(0);
  }
}

/** Rows of the tables an operation may write: compare before/after to prove nothing was written. */
export function writeFootprint(service: MerchantConsoleService): Record<string, number> {
  const tables = ['orders', 'ledger_transactions', 'ledger_entries', 'order_transitions', 'order_jobs', 'merchant_balances'];
  const extra = service.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('callback_deliveries', 'idempotency_keys')").all() as { name: string }[];
  const out: Record<string, number> = {};
  for (const t of [...tables, ...extra.map((e) => e.name)]) out[t] = (service.db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n;
  out.status_sum = (service.db.prepare("SELECT coalesce(sum(length(status) * id), 0) AS n FROM orders").get() as { n: number }).n;
  return out;
}
