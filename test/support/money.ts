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

export async function fund(service: MerchantConsoleService, merchantId: number, fen: number, reason = 'test funding'): Promise<void> {
  await service.store.write((tx) => service.services.ledger.adjust(tx, merchantId, fen, reason));
}

export function newBuy(service: MerchantConsoleService, m: SeededMerchant, fen = 10_000, category: ChannelCategory = 'beta'): Promise<OrderRow> {
  return service.store.write((tx) =>
    service.services.orders.createBuy(tx, m.id, { order_type: 1, cny_amount: fen, paychannel_id: m.channels[category], paychannel_paymethod: 'alipay' }),
  );
}

export function newSell(service: MerchantConsoleService, m: SeededMerchant, fen = 10_000, category: Exclude<ChannelCategory, 'alpha'> = 'beta'): Promise<OrderRow> {
  return service.store.write((tx) =>
    service.services.orders.createSell(tx, m.id, { order_type: 2, cny_amount: fen, paychannel_id: m.channels[category], paychannel_paymethod: 'bank' }),
  );
}

/** Moves an order along one transition (its own unit of work). */
export function transition(service: MerchantConsoleService, order: OrderRow, to: OrderStatus, reason = 'test setup'): Promise<OrderRow> {
  return service.store.write((tx) => service.services.lifecycle.transition(tx, order, to, { source: 'operator', reason }));
}

const PATHS: Record<OrderType, Partial<Record<OrderStatus, OrderStatus[]>>> = {
  1: { pending: [], paid: ['paid'], completed: ['paid', 'completed'], cancelled: ['cancelled'] },
  2: { pending: [], confirmed: ['confirmed'], completed: ['confirmed', 'completed'], cancelled: ['cancelled'] },
};

/** A new order of this type moved to `status` along the legal path; undefined when the type never has that status. */
export async function orderIn(service: MerchantConsoleService, m: SeededMerchant, type: OrderType, status: OrderStatus): Promise<OrderRow | undefined> {
  const path = PATHS[type][status];
  if (!path) return undefined;
  let order = type === 1 ? await newBuy(service, m) : await newSell(service, m);
  for (const to of path) order = await transition(service, order, to);
  return order;
}

export async function reload(service: MerchantConsoleService, order: OrderRow): Promise<OrderRow> {
  return (await service.store.read((tx) => tx.get<OrderRow>('SELECT * FROM orders WHERE id = ?', [order.id])))!;
}

/** Every ledger transaction balances, the whole ledger sums to 0, and cached balances equal ledger sums. */
export async function expectLedgerConsistent(service: MerchantConsoleService): Promise<void> {
  const { ledger, merchants } = service.services;
  await service.store.read(async (tx) => {
    expect(await ledger.audit(tx)).toEqual([]);
    const total = await tx.get<{ t: number }>('SELECT coalesce(sum(amount), 0) AS t FROM ledger_entries');
    expect(total!.t).toBe(0);
    for (const m of await merchants.list(tx)) {
      const cached = await ledger.balances(tx, m.id);
      expect(await ledger.ledgerBalances(tx, m.id)).toEqual(cached);
      expect(cached.available).toBeGreaterThanOrEqual(0);
      expect(cached.frozen).toBeGreaterThanOrEqual(0);
      expect(cached.deposit).toBeGreaterThanOrEqual(0);
    }
  });
}

/** Rows of the tables an operation may write: compare before/after to prove nothing was written. */
export function writeFootprint(service: MerchantConsoleService): Promise<Record<string, number>> {
  const tables = [
    'orders',
    'ledger_transactions',
    'ledger_entries',
    'order_transitions',
    'order_jobs',
    'merchant_balances',
    'callback_deliveries',
    'idempotency_keys',
    'payment_methods',
  ];
  return service.store.read(async (tx) => {
    const out: Record<string, number> = {};
    for (const t of tables) out[t] = (await tx.get<{ n: number }>(`SELECT count(*) AS n FROM ${t}`))!.n;
    out.status_sum = (await tx.get<{ n: number }>('SELECT coalesce(sum(length(status) * id), 0) AS n FROM orders'))!.n;
    return out;
  });
}
