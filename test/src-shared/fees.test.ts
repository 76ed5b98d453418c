import { describe, expect, it } from 'vitest';
import { applyRate, computeBuyFees, computeSellFees, isValidRate, normaliseRate, type FeeSettings } from '../../src-shared/fees';

const fees = (over: Partial<FeeSettings> = {}): FeeSettings => ({ service_rate: '0', passage_rate: '0', deposit_rate: 0, base_rate: 0, ...over });

describe('R(A × rate): round half away from zero to whole fen', () => {
  it.each([
    // amount fen, rate, divisor, expected
    [10050, '0.006', 1, 60], // 60.3 → 60
    [10075, '0.006', 1, 60], // 60.45 → 60
    [10084, '0.006', 1, 61], // 60.504 → 61
    [250, '0.01', 1, 3], // 2.5 → 3 (tie, away from zero)
    [150, '0.01', 1, 2], // 1.5 → 2
    [250, '-0.01', 1, -3], // -2.5 → -3 (tie, away from zero)
    [249, '-0.01', 1, -2], // -2.49 → -2
    [1, '0.5', 1, 1], // 0.5 → 1
    [1, '0.49999999', 1, 0],
    [333, '0.3', 1, 100], // 99.9 → 100, exact decimal (0.1 + 0.2 float traps do not apply)
    [10050, 50, 10_000, 50], // 50.25 → 50
    [10100, 50, 10_000, 51], // 50.5 → 51
    [9_999_999_999, '0.99999999', 1, 9_999_999_899], // near the maximum, no precision loss
    [10000, '0', 1, 0],
  ])('A=%i × %s / %i = %i', (amount, rate, divisor, expected) => {
    expect(applyRate(amount, rate, divisor)).toBe(expected);
  });
});

describe('buy fees', () => {
  it.each([
    [10050, fees({ service_rate: '0.006', deposit_rate: 50 }), { service_amount: 60, deposit_amount: 50, merchant_actual_amount: 9940 }],
    [100, fees({ service_rate: '0.006' }), { service_amount: 1, deposit_amount: 0, merchant_actual_amount: 99 }],
    [100000, fees(), { service_amount: 0, deposit_amount: 0, merchant_actual_amount: 100000 }],
    [83, fees({ service_rate: '0.006', deposit_rate: 100 }), { service_amount: 0, deposit_amount: 1, merchant_actual_amount: 82 }],
  ])('A=%i', (amount, settings, expected) => {
    expect(computeBuyFees(amount, settings)).toEqual(expected);
  });
});

describe('sell fees', () => {
  it.each([
    [
      10050,
      fees({ service_rate: '0.006', passage_rate: '0.002', deposit_rate: 50, base_rate: 30 }),
      { service_amount: 60, passage_amount: 20, deposit_amount: 50, channel_amount: 30, merchant_actual_amount: 10180 },
    ],
    [
      // A negative passage rate is a rebate: it lowers what the merchant pays.
      10050,
      fees({ service_rate: '0.006', passage_rate: '-0.001', base_rate: 30 }),
      { service_amount: 60, passage_amount: -10, deposit_amount: 0, channel_amount: 30, merchant_actual_amount: 10100 },
    ],
    [
      250,
      fees({ passage_rate: '-0.01' }),
      { service_amount: 0, passage_amount: -3, deposit_amount: 0, channel_amount: 0, merchant_actual_amount: 247 },
    ],
  ])('A=%i', (amount, settings, expected) => {
    expect(computeSellFees(amount, settings)).toEqual(expected);
  });
});

describe('rates', () => {
  it.each([
    ['0.006', false, true],
    ['0', false, true],
    ['0.99999999', false, true],
    ['1', false, false],
    ['-0.001', false, false],
    ['-0.001', true, true],
    ['-1', true, false],
    ['0.123456789', false, false], // more than 8 places
    ['1e-3', false, false],
    ['.5', false, false],
    ['abc', false, false],
  ])('%s (negative allowed: %s) valid = %s', (rate, allowNegative, valid) => {
    expect(isValidRate(rate, { allowNegative })).toBe(valid);
  });

  it('normalises spellings', () => {
    expect(normaliseRate('0.0060')).toBe('0.006');
    expect(normaliseRate('-0')).toBe('0');
    expect(normaliseRate('-0.00100')).toBe('-0.001');
  });
});
