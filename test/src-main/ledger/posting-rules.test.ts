import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { computeBuyFees, computeSellFees } from '../../../src-shared/fees';
import { adjustmentPostings, orderPostings, sumOf, type OrderAmounts } from '../../../src-main/ledger/posting-rules';

function buy(amount: number, rates = { service_rate: '0.006', passage_rate: '0', deposit_rate: 50, base_rate: 0 }): OrderAmounts {
  return { cny_amount: amount, passage_amount: 0, channel_amount: 0, ...computeBuyFees(amount, rates) };
}
function sell(amount: number, rates = { service_rate: '0.006', passage_rate: '0.002', deposit_rate: 50, base_rate: 30 }): OrderAmounts {
  return { cny_amount: amount, ...computeSellFees(amount, rates) };
}

describe('posting rules', () => {
  it('buy paid: payer pays A; merchant available +actual, deposit +deposit, platform +service fee', () => {
    const o = buy(10_050); // 100.50: service 60, deposit 50, actual 9940
    expect(orderPostings('buy_paid', o)).toEqual([
      { account: 'external_payer', amount: -10_050 },
      { account: 'merchant_available', amount: 9_940 },
      { account: 'merchant_deposit', amount: 50 },
      { account: 'platform_service_fee', amount: 60 },
    ]);
  });

  it('sell freeze moves merchant_actual_amount from available to frozen', () => {
    const o = sell(10_000); // service 60, passage 20, deposit 50, channel 30 → actual 10130
    expect(o.merchant_actual_amount).toBe(10_130);
    expect(orderPostings('sell_freeze', o)).toEqual([
      { account: 'merchant_available', amount: -10_130 },
      { account: 'merchant_frozen', amount: 10_130 },
    ]);
  });

  it('sell paid out: frozen sum to payee, fees to the platform and channel, deposit to the merchant deposit', () => {
    const o = sell(10_000);
    expect(orderPostings('sell_paid_out', o)).toEqual([
      { account: 'merchant_frozen', amount: -10_130 },
      { account: 'external_payee', amount: 10_000 },
      { account: 'platform_service_fee', amount: 30 },
      { account: 'channel_commission', amount: 30 },
      { account: 'channel_passage', amount: 20 },
      { account: 'merchant_deposit', amount: 50 },
    ]);
  });

  it('a negative passage rate (rebate) is a negative channel passage entry', () => {
    const o = sell(10_000, { service_rate: '0.006', passage_rate: '-0.001', deposit_rate: 0, base_rate: 0 });
    const p = orderPostings('sell_paid_out', o);
    expect(p).toContainEqual({ account: 'channel_passage', amount: -10 });
    expect(sumOf(p)).toBe(0);
  });

  it('sell release returns the frozen sum to available', () => {
    expect(orderPostings('sell_release', sell(500))).toEqual([
      { account: 'merchant_frozen', amount: -sell(500).merchant_actual_amount },
      { account: 'merchant_available', amount: sell(500).merchant_actual_amount },
    ]);
  });

  it('leaves out zero entries and adjustments balance', () => {
    const o = buy(100, { service_rate: '0', passage_rate: '0', deposit_rate: 0, base_rate: 0 });
    expect(orderPostings('buy_paid', o)).toEqual([
      { account: 'external_payer', amount: -100 },
      { account: 'merchant_available', amount: 100 },
    ]);
    expect(adjustmentPostings(-700)).toEqual([
      { account: 'merchant_available', amount: -700 },
      { account: 'platform_adjustment', amount: 700 },
    ]);
  });

  it('every movement sums to zero and has no zero entry, for any amounts and rates', () => {
    const rate = fc.integer({ min: 0, max: 9_999 }).map((n) => (n / 10_000).toFixed(4));
    const signedRate = fc.integer({ min: -999, max: 9_999 }).map((n) => (n / 10_000).toFixed(4));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9_999_999_999 }), rate, signedRate, fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 10_000 }), (a, sr, pr, dr, br) => {
        const rates = { service_rate: sr, passage_rate: pr, deposit_rate: dr, base_rate: br };
        for (const [kind, o] of [
          ['buy_paid', buy(a, rates)],
          ['sell_freeze', sell(a, rates)],
          ['sell_paid_out', sell(a, rates)],
          ['sell_release', sell(a, rates)],
        ] as const) {
          const p = orderPostings(kind, o);
          expect(sumOf(p)).toBe(0);
          expect(p.every((e) => e.amount !== 0 && Number.isSafeInteger(e.amount))).toBe(true);
        }
      }),
    );
  });
});
