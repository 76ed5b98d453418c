/**
 * Many sells at once against a limited balance, over real HTTP through the
 * store's units of work (group commit on SQLite, row locks on PostgreSQL): the balance is never overdrawn, every accepted
 * sell reserved exactly its deduction, and every refused one really did not
 * fit (its deduction is more than what was left).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeSellFees } from '../../../src-shared/fees';
import { formatFen } from '../../../src-shared/money';
import { ErrorCode } from '../../../src-shared/errors';
import { expectLedgerConsistent } from '../../support/money';
import { clientFor, read, seedMerchant, testListener, testService } from '../../support/service-harness';

describe('parallel sells against a limited balance', () => {
  it('never overdraw, whatever the amounts and the parallelism', async () => {
    const service = await testService();
    const listener = await testListener(service);
    let run = 0;
    let acceptedTotal = 0;
    let refusedTotal = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 10_000, max: 2_000_000 }),
        fc.array(fc.integer({ min: 100, max: 500_000 }), { minLength: 10, maxLength: 60 }),
        fc.integer({ min: 1, max: 4 }),
        async (balance, amounts, clients) => {
          const m = await seedMerchant(service, `Sells ${run++}`, { balance });
          const { fees } = await read(service, (tx) => service.services.channels.resolveForOrder(tx, m.id, m.channels.beta, 'bank'));
          const deduction = (fen: number) => computeSellFees(fen, fees).merchant_actual_amount;
          const pool = Array.from({ length: clients }, () => clientFor(listener, m));
          const results = await Promise.all(
            amounts.map((fen, i) =>
              pool[i % clients]!.createOrder({ order_type: 2, cny_amount: formatFen(fen), paychannel_id: m.channels.beta, paychannel_paymethod: 'bank' }),
            ),
          );
          const accepted = amounts.filter((_, i) => results[i]!.body.code === 1);
          const refused = amounts.filter((_, i) => results[i]!.body.code !== 1);
          for (const [i, r] of results.entries()) {
            if (r.body.code !== 1) {
              expect(r.status, r.body.msg).toBe(409);
              expect(r.body.code, `sell ${i}`).toBe(ErrorCode.INSUFFICIENT_BALANCE);
            }
          }
          acceptedTotal += accepted.length;
          refusedTotal += refused.length;
          const reserved = accepted.reduce((s, fen) => s + deduction(fen), 0);
          const b = await read(service, (tx) => service.services.ledger.balances(tx, m.id));
          expect(b.available).toBeGreaterThanOrEqual(0);
          expect(b.frozen).toBe(reserved);
          expect(b.available + b.frozen).toBe(balance);
          // Available only went down during the burst, so a refused sell did not fit at the end either.
          for (const fen of refused) expect(deduction(fen)).toBeGreaterThan(b.available);
          const orders = await read(service, (tx) => tx.get<{ n: number }>('SELECT count(*) AS n FROM orders WHERE merchant_id = ? AND order_type = 2', [m.id]));
          expect(orders!.n).toBe(accepted.length);
        },
      ),
      { numRuns: 12 },
    );
    // Both outcomes happened, so the property was really exercised.
    expect(acceptedTotal).toBeGreaterThan(0);
    expect(refusedTotal).toBeGreaterThan(0);
    await expectLedgerConsistent(service);
  }, 120_000);
});
