import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AppError, ErrorCode } from '../../../src-shared/errors';
import type { OrderRow } from '../../../src-main/repositories/order-repository';
import { manualClock, read, seedMerchant, testService, write, type SeededMerchant } from '../../support/service-harness';
import { expectLedgerConsistent, fund, newBuy, newSell, reload, transition, writeFootprint } from '../../support/money';
import type { MerchantConsoleService } from '../../../src-main/service';

async function appErrorOf(fn: () => Promise<unknown>): Promise<AppError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

const balances = (service: MerchantConsoleService, merchantId: number) => read(service, (tx) => service.services.ledger.balances(tx, merchantId));

describe('balances and the ledger', () => {
  it('buy paid credits available and deposit; sell freezes, pays out, releases', async () => {
    const service = await testService();
    const m = await seedMerchant(service);
    const { ledger } = service.services;
    expect(await balances(service, m.id)).toEqual({ available: 0, frozen: 0, deposit: 0 });

    const buy = await newBuy(service, m, 100_000); // 1000.00: service 600, deposit 500, actual 98900
    await transition(service, buy, 'paid');
    expect(await balances(service, m.id)).toEqual({ available: 98_900, frozen: 0, deposit: 500 });

    const sell = await newSell(service, m, 10_000); // actual 10130, deposit 50
    expect(await balances(service, m.id)).toEqual({ available: 88_770, frozen: 10_130, deposit: 500 });
    const confirmed = await transition(service, sell, 'confirmed');
    await transition(service, confirmed, 'completed');
    expect(await balances(service, m.id)).toEqual({ available: 88_770, frozen: 0, deposit: 550 });

    const sell2 = await newSell(service, m, 20_000); // actual 20260
    await transition(service, sell2, 'cancelled', 'changed my mind');
    expect(await balances(service, m.id)).toEqual({ available: 88_770, frozen: 0, deposit: 550 });
    expect((await read(service, (tx) => ledger.transactionsOfOrder(tx, sell2.id))).map((t) => t.kind)).toEqual(['sell_freeze', 'sell_release']);
    await expectLedgerConsistent(service);

    // The platform side: what left the payer and what reached the payee.
    const rows = await read(service, (tx) => tx.all<{ account: string; t: number }>('SELECT account, sum(amount) AS t FROM ledger_entries GROUP BY account'));
    const totals = Object.fromEntries(rows.map((r) => [r.account, r.t]));
    expect(totals.external_payer).toBe(-100_000);
    expect(totals.external_payee).toBe(10_000);
    expect(totals.platform_service_fee).toBe(600 + 60 - 30);
    expect(totals.channel_commission).toBe(30);
    expect(totals.channel_passage).toBe(20);
  });

  it('a sell the available balance cannot cover is refused with INSUFFICIENT_BALANCE and writes nothing', async () => {
    const service = await testService();
    const m = await seedMerchant(service);
    await fund(service, m.id, 10_129);
    const before = await writeFootprint(service);
    const err = await appErrorOf(() => newSell(service, m, 10_000)); // needs 10130
    expect(err.code).toBe(ErrorCode.INSUFFICIENT_BALANCE);
    expect(err.httpStatus).toBe(409);
    expect(err.message).toMatch(/insufficient balance/);
    expect(err.message).toContain('101.29');
    expect(err.message).toContain('101.30');
    expect(await writeFootprint(service)).toEqual(before);
    await fund(service, m.id, 1);
    expect((await newSell(service, m, 10_000)).status).toBe('pending');
    expect(await balances(service, m.id)).toEqual({ available: 0, frozen: 10_130, deposit: 0 });
  });

  it('adjustments are ledger transactions with their reason; they never make a balance negative', async () => {
    const service = await testService();
    const m = await seedMerchant(service);
    const { ledger } = service.services;
    const adjust = (merchantId: number, fen: number, reason: string) => write(service, (tx) => ledger.adjust(tx, merchantId, fen, reason));
    const r = await adjust(m.id, 5_000, 'opening balance');
    expect(r.balances).toEqual({ available: 5_000, frozen: 0, deposit: 0 });
    const [tx] = await read(service, (t) => ledger.transactionsOfMerchant(t, m.id));
    expect(tx).toMatchObject({ kind: 'adjustment', reason: 'opening balance', order_id: null });
    expect(tx!.entries).toEqual([
      { account: 'merchant_available', merchant_id: m.id, amount: 5_000 },
      { account: 'platform_adjustment', merchant_id: null, amount: -5_000 },
    ]);
    const before = await writeFootprint(service);
    expect((await appErrorOf(() => adjust(m.id, -5_001, 'too much'))).code).toBe(ErrorCode.INSUFFICIENT_BALANCE);
    expect((await appErrorOf(() => adjust(m.id, 0, 'nothing'))).code).toBe(ErrorCode.VALIDATION);
    expect((await appErrorOf(() => adjust(m.id, 10, '   '))).message).toBe('reason: is required');
    expect((await appErrorOf(() => adjust(999, 10, 'nobody'))).code).toBe(ErrorCode.NOT_FOUND);
    expect(await writeFootprint(service)).toEqual(before);
    await adjust(m.id, -5_000, 'withdrawn by hand');
    expect((await balances(service, m.id)).available).toBe(0);
    await expectLedgerConsistent(service);
  });

  it('the operator adjust input takes signed yuan', async () => {
    const service = await testService();
    const m = await seedMerchant(service);
    const { orderAdmin } = service.services;
    const adjust = (amount: string, reason: string) => write(service, (tx) => orderAdmin.adjust(tx, { merchant_id: m.id, amount, reason }));
    expect(await adjust('+100.5', 'x')).toMatchObject({ amount: 10_050, balances: { available: 10_050 } });
    expect(await adjust('-0.50', 'y')).toMatchObject({ amount: -50, balances: { available: 10_000 } });
    expect((await appErrorOf(() => adjust('-0', 'z'))).message).toBe('amount: must not be 0');
    expect((await appErrorOf(() => adjust('1.234', 'z'))).message).toBe('amount: must have at most 2 decimal places');
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
async function modelBalances(service: MerchantConsoleService, merchantId: number, adjustments: number) {
  const orders = await read(service, (tx) => tx.all<OrderRow>('SELECT * FROM orders WHERE merchant_id = ?', [merchantId]));
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
  it('random create/pay/fail/complete/cancel/adjust sequences keep balances equal to the ledger and never negative', async () => {
    const clock = manualClock(1_800_000_000);
    // One store for every run (a fresh one per run is slow on PostgreSQL); each run has merchants of its own.
    const service = await testService({ clock });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 40 }), fc.nat(300_000), async (ops, opening) => {
        run++;
        const merchants: SeededMerchant[] = [await seedMerchant(service, `A${run}`), await seedMerchant(service, `B${run}`)];
        const adjustments = [0, 0];
        if (opening > 0) {
          await fund(service, merchants[0]!.id, opening);
          adjustments[0] = opening;
        }
        const orders: OrderRow[] = [];
        const { lifecycle, ledger } = service.services;
        for (const op of ops) {
          const before = await writeFootprint(service);
          try {
            switch (op.op) {
              case 'buy':
                orders.push(await newBuy(service, merchants[op.m]!, op.fen));
                break;
              case 'sell':
                orders.push(await newSell(service, merchants[op.m]!, op.fen));
                break;
              case 'adjust':
                await write(service, (tx) => ledger.adjust(tx, merchants[op.m]!.id, op.fen, 'property'));
                adjustments[op.m]! += op.fen;
                break;
              case 'expire':
                clock.advance(op.seconds);
                for (;;) {
                  const { seen } = await write(service, (tx) => lifecycle.expireDue(tx, 200));
                  if (seen < 200) break;
                }
                break;
              default: {
                if (orders.length === 0) break;
                const order = await reload(service, orders[op.i % orders.length]!);
                if (op.op === 'cancel') await write(service, (tx) => lifecycle.cancelByOperator(tx, order, 'property'));
                else {
                  const event = ({ pay: 'paid', settle: 'settled', accept: 'payout_accepted', paidOut: 'paid_out', fail: 'failed' } as const)[op.op];
                  await write(service, (tx) => lifecycle.applyChannelEvent(tx, order, event, 'property'));
                }
              }
            }
          } catch (err) {
            if (!(err instanceof AppError)) throw err;
            expect([ErrorCode.INSUFFICIENT_BALANCE, ErrorCode.ILLEGAL_TRANSITION]).toContain(err.code);
            // A refused operation leaves nothing behind.
            expect(await writeFootprint(service)).toEqual(before);
          }
          await expectLedgerConsistent(service);
          for (const [k, m] of merchants.entries()) expect(await balances(service, m.id)).toEqual(await modelBalances(service, m.id, adjustments[k]!));
        }
      }),
      { numRuns: 40 },
    );
  });
});
