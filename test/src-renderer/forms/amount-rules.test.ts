import { describe, expect, it } from 'vitest';
import { allowAmountInput, checkAmount, normaliseAmount, previewFees } from '../../../src-renderer/forms/amount-rules';
import type { FeeSettings } from '../../../src-shared/fees';

const fees: FeeSettings = { service_rate: '0.006', passage_rate: '0.002', deposit_rate: 50, base_rate: 30 };

describe('amount typing filter', () => {
  it.each([
    ['', true],
    ['1', true],
    ['100.', true],
    ['100.5', true],
    ['100.50', true],
    ['0.05', true],
    ['100.505', false],
    ['-1', false],
    ['1e3', false],
    ['01', false],
    ['1,000', false],
    [' 1', false],
    ['１', false],
  ])('%j allowed: %s', (text, allowed) => {
    expect(allowAmountInput(text)).toBe(allowed);
  });
});

describe('checkAmount', () => {
  it.each([
    ['', 'orderForm.rules.amountRequired'],
    ['   ', 'orderForm.rules.amountRequired'],
    ['abc', 'orderForm.rules.amountFormat'],
    ['1.', 'orderForm.rules.amountFormat'],
    ['1.234', 'orderForm.rules.amountFormat'],
    ['-5', 'orderForm.rules.amountFormat'],
    ['0', 'orderForm.rules.amountPositive'],
    ['0.00', 'orderForm.rules.amountPositive'],
    ['100000000000', 'orderForm.rules.amountFormat'],
  ])('%j → %s', (text, key) => {
    const r = checkAmount(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem.key).toBe(key);
  });

  it.each([
    ['0.01', 1],
    ['1', 100],
    ['100.5', 10050],
    ['100.50', 10050],
    ['99999.99', 9999999],
  ])('%j is %i fen', (text, fen) => {
    expect(checkAmount(text)).toEqual({ ok: true, fen });
  });

  it('enforces the channel limits, naming them in yuan', () => {
    const limits = { minFen: 100, maxFen: 5_000_000 };
    expect(checkAmount('0.99', limits)).toEqual({ ok: false, problem: { key: 'orderForm.rules.amountMin', params: { min: '1.00' } } });
    expect(checkAmount('1.00', limits)).toEqual({ ok: true, fen: 100 });
    expect(checkAmount('50000.00', limits)).toEqual({ ok: true, fen: 5_000_000 });
    expect(checkAmount('50000.01', limits)).toEqual({ ok: false, problem: { key: 'orderForm.rules.amountMax', params: { max: '50,000.00' } } });
  });

  it('checks a sell amount plus its fees against the available balance', () => {
    // 100.00 + service 0.60 + passage 0.20 + deposit 0.50 = 101.30 needed.
    expect(checkAmount('100', { availableFen: 10130, sellFees: fees })).toEqual({ ok: true, fen: 10000 });
    expect(checkAmount('100', { availableFen: 10129, sellFees: fees })).toEqual({
      ok: false,
      problem: { key: 'orderForm.rules.amountBalance', params: { need: '101.30', available: '101.29' } },
    });
  });
});

describe('normaliseAmount and previewFees', () => {
  it('sends two decimals', () => {
    expect(normaliseAmount('100.5')).toBe('100.50');
    expect(normaliseAmount('7')).toBe('7.00');
    expect(() => normaliseAmount('x')).toThrow();
  });

  it('previews buy fees as deductions and sell fees as additions', () => {
    expect(previewFees(10000, 1, fees)).toEqual({ fee: 110, actual: 9890 });
    expect(previewFees(10000, 2, fees)).toEqual({ fee: 130, actual: 10130 });
  });
});
