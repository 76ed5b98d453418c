import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AppError, ErrorCode } from '../../../src-shared/errors';
import type { OrderRow } from '../../../src-main/repositories/order-repository';
import { manualClock, seedMerchant, testService, type SeededMerchant } from '../../support/service-harness';
import { expectLedgerConsistent, fund, newBuy, newSell, reload, writeFootprint } from '../../support/money';
import type { MerchantConsoleService } from '../../../src-main/service';

function appErrorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

describe('balances and the ledger', () => {
  it('buy paid credits available and deposit; sell freezes, pays out, releases', () => {
    const service = testService();
    const m = seedMerchant(service);
    const { ledger, lifecycle } = service.services;
    expect(ledger.balances(m.id)).toEqual({ available: 0, frozen: 0, deposit: 0 });

    const buy = newBuy(service, m, 100_000); // 1000.00: service 600, deposit 500, actual 98900
    lifecycle.transition(buy, 'paid', { source: 'channel', reason: 'paid' });
    expect(ledger.balances(m.id)).toEqual({ available: 98_900, frozen: 0, deposit: 500 });

    const sell = newSell(service, m, 10_000); // actual 10130, deposit 50
    expect(ledger.balances(m.id)).toEqual({ available: 88_770, frozen: 10_130, deposit: 500 });
    const confirmed = lifecycle.transition(sell, 'confirmed', { source: 'channel', reason: 'accepted' });
    lifecycle.transition(confirmed, 'completed', { source: 'channel', reason: 'paid out' });
    expect(ledger.balances(m.id)).toEqual({ available: 88_770, frozen: 0, deposit: 550 });

    const sell2 = newSell(service, m, 20_000); // actual 20260
    lifecycle.transition(sell2, 'cancelled', { source: 'operator', reason: 'changed my mind' });
    expect(ledger.balances(m.id)).toEqual({ available: 88_770, frozen: 0, deposit: 550 });
    expect(ledger.transactionsOfOrder(sell2.id).map((t) => t.kind)).toEqual(['sell_freeze', 'sell_release']);
    expectLedgerConsistent(service);

    // The platform side: what left the payer and what reached the payee.
    const totals = Object.fromEntries(
      (service.db.prepare('SELECT account, sum(amount) AS t FROM ledger_entries GROUP BY account').all() as { account: string; t: number }[]).map((r) => [r.account, r.t]),
    );
    expect(totals.external_payer).toBe(-100_000);
    expect(totals.external_payee).toBe(10_000);
    expect(totals.platform_service_fee).toBe(600 + 60 - 30);
    expect(totals.channel_commission).toBe(30);
    expect(totals.channel_passage).toBe(20);
  });

  it('a sell the available balance cannot cover is refused with INSUFFICIENT_BALANCE and writes nothing', () => {
    const service = testService();
    const m = seedMerchant(service);
    fund(service, m.id, 10_129);
    const before = writeFootprint(service);
    const err = appErrorOf(() => newSell(service, m, 10_000)); // needs 10130
    expect(err.code).toBe(ErrorCode.INSUFFICIENT_BALANCE);
    expect(err.httpStatus).toBe(409);
    expect(err.message).toMatch(/insufficient balance/);
    expect(err.message).toContain('101.29');
    expect(err.message).toContain('101.30');
    expect(writeFootprint(service)).toEqual(before);
    fund(service, m.id, 1);
    expect(newSell(service, m, 10_000).status).toBe('pending');
    expect(service.services.ledger.balances(m.id)).toEqual({ available: 0, frozen: 10_130, deposit: 0 });
  });

  it('adjustments are ledger transactions with their reason; they never make a balance negative', () => {
    const service = testService();
    const m = seedMerchant(service);
    const { ledger } = service.services;
    const r = ledger.adjust(m.id, 5_000, 'opening balance');
    expect(r.balances).toEqual({ available: 5_000, frozen: 0, deposit: 0 });
    const [tx] = ledger.transactionsOfMerchant(m.id);
    expect(tx).toMatchObject({ kind: 'adjustment', reason: 'opening balance', order_id: null });
    expect(tx!.entries).toEqual([
      { account: 'merchant_available', merchant_id: m.id, amount: 5_000 },
      { account: 'platform_adjustment', merchant_id: null, amount: -5_000 },
    ]);
    const before = writeFootprint(service);
    expect(appErrorOf(() => ledger.adjust(m.id, -5_001, 'too much')).code).toBe(ErrorCode.INSUFFICIENT_BALANCE);
    expect(appErrorOf(() => ledger.adjust(m.id, 0, 'nothing')).code).toBe(ErrorCode.VALIDATION);
    expect(appErrorOf(() => ledger.adjust(m.id, 10, '   ')).message).toBe('reason: is required');
    expect(appErrorOf(() => ledger.adjust(999, 10, 'nobody')).code).toBe(ErrorCode.NOT_FOUND);
    expect(writeFootprint(service)).toEqual(before);
    ledger.adjust(m.id, -5_000, 'withdrawn by hand');
    expect(ledger.balances(m.id).available).toBe(0);
    expectLedgerConsistent(service);
  });

  it('the operator adjust input takes signed yuan', () => {
    const service = testService();
    const m = seedMerchant(service);
    const { orderAdmin } = service.services;
    expect(orderAdmin.adjust({ merchant_id: m.id, amount: '+100.5', reason: 'x' })).toMatchObject({ amount: 10_050, balances: { available: 10_050 } });
    expect(orderAdmin.adjust({ merchant_id: m.id, amount: '-0.50', reason: 'y' })).toMatchObject({ amount: -50, balances: { available: 10_000 } });
    expect(appErrorOf(() => orderAdmin.adjust({ merchant_id: m.id, amount: '-0', reason: 'z' })).message).toBe('amount: must not be 0');
    expect(appErrorOf(() => orderAdmin.adjust({ merchant_id: m.id, amount: '1.234', reason: 'z' })).message).toBe('amount: must have at most 2 decimal places');
  });
});

// ------------------------------------------------------------------ property

type Op =
  | { op: 'buy'; m: number; fen: number }
  | { op: 'sell'; m: number; fen: number }
  | { op: 'pay' | 'settle' | 'accept' | 'paidOut' | 'fail' | 'cancel'; i: number }
  | { op: 'adjust'; m: number; fen: number }
  | { op: 'expire'; seconds: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('buy' as const), m: fc.nat(1), fen: fc.integer({ min: 100, max: 500_000 }) }),
  fc.record({ op: fc.constant('sell' as const), m: fc.nat(1), fen: fc.integer({ min: 100, max: 300_000 }) }),
  fc.record({ op: fc.constantFrom('pay' as const, 'settle' as const, 'accept' as const, 'paidOut' as const, 'fail' as const, 'cancel' as const), i: fc.nat(40) }),
  fc.record({ op: fc.constant('adjust' as const), m: fc.nat(1), fen: fc.integer({ min: -400_000, max: 400_000 }).filter((n) => n !== 0) }),
  fc.record({ op: fc.constant('expire' as const), seconds: fc.integer({ min: 1, max: 2_000 }) }),
);

/** Balances predicted from order statuses and adjustments alone, independently of the ledger code. */
function modelBalances(service: MerchantConsoleService, merchantId: number, adjustments: number) {
  const orders = service.db.prepare('SELECT * FROM orders WHERE merchant_id = ?').all(merchantId) as OrderRow[];
  let available = adjustments;
  let frozen = 0;
  let deposit = 0;
  for (const o of orders) {
    if (o.order_type === 1 && (o.status === 'paid' || o.status === 'completed')) {
      available += o.merchant_actual_amount;
      deposit += o.deposit_amount;
    }
    if (o.order_type === 2) {
      if (o.status === 'pending' || o.status === 'confirmed') {
        available -= o.merchant_actual_amount;
        frozen += o.merchant_actual_amount;
      }
      if (o.status === 'completed') {
        available -= o.merchant_actual_amount;
        deposit += o.deposit_amount;
      }
    }
  }
  return { available, frozen, deposit };
}

describe('ledger property', () => {
  it('random create/pay/fail/complete/cancel/adjust sequences keep balances equal to the ledger and never negative', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 40 }), fc.nat(300_000), (ops, opening) => {
        const clock = manualClock(1_800_000_000);
        const service = testService({ clock });
        try {
          const merchants: SeededMerchant[] = [seedMerchant(service, 'A'), seedMerchant(service, 'B')];
          const adjustments = [0, 0];
          if (opening > 0) {
            fund(service, merchants[0]!.id, opening);
            adjustments[0] = opening;
          }
          const orders: OrderRow[] = [];
          const { lifecycle, ledger } = service.services;
          for (const op of ops) {
            const before = writeFootprint(service);
            try {
              switch (op.op) {
                case 'buy':
                  orders.push(newBuy(service, merchants[op.m]!, op.fen));
                  break;
                case 'sell':
                  orders.push(newSell(service, merchants[op.m]!, op.fen));
                  break;
                case 'adjust':
                  ledger.adjust(merchants[op.m]!.id, op.fen, 'property');
                  adjustments[op.m]! += op.fen;
                  break;
                case 'expire':
                  clock.advance(op.seconds);
                  lifecycle.expireDue();
                  break;
                default: {
                  if (orders.length === 0) break;
                  const order = reload(service, orders[op.i % orders.length]!);
                  if (op.op === 'cancel') lifecycle.cancelByOperator(order, 'property');
                  else {
                    const event = { pay: 'paid', settle: 'settled', accept: 'payout_accepted', paidOut: 'paid_out', fail: 'failed' } as const;
                    lifecycle.applyChannelEvent(order, event[op.op], 'property');
                  }
                }
              }
            } catch (err) {
              if (!(err instanceof AppError)) throw err;
              expect([ErrorCode.INSUFFICIENT_BALANCE, ErrorCode.ILLEGAL_TRANSITION]).toContain(err.code);
              // A refused operation leaves nothing behind.
              expect(writeFootprint(service)).toEqual(before);
            }
            expectLedgerConsistent(service);
            merchants.forEach((m, k) => expect(ledger.balances(m.id)).toEqual(modelBalances(service, m.id, adjustments[k]!)));
          }
        } finally {
          service.close();
        }
      }),
      { numRuns: 40 },
    );
  });
});
