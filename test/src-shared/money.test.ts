import { describe, expect, it } from 'vitest';
import { formatFen, parseYuan } from '../../src-shared/money';

describe('parseYuan', () => {
  it.each([
    ['100', 10000],
    ['100.5', 10050],
    ['100.50', 10050],
    ['0.01', 1],
    ['99999999.99', 9_999_999_999],
  ])('%s → %i fen', (text, fen) => {
    expect(parseYuan(text)).toEqual({ ok: true, fen });
  });

  it.each([
    ['0', 'must be greater than 0'],
    ['0.00', 'must be greater than 0'],
    ['-1', 'must be greater than 0'],
    ['1.005', 'must have at most 2 decimal places'],
    ['1e3', 'must be a decimal number of yuan'],
    ['01.5', 'must be a decimal number of yuan'],
    ['+1', 'must be a decimal number of yuan'],
    ['1.', 'must be a decimal number of yuan'],
    ['.5', 'must be a decimal number of yuan'],
    [' 1', 'must be a decimal number of yuan'],
    ['NaN', 'must be a decimal number of yuan'],
    ['１００', 'must be a decimal number of yuan'],
    ['100000000', 'must not exceed 99999999.99'],
    ['9'.repeat(40), 'must be a decimal number of yuan'],
  ])('%j is refused: %s', (text, rule) => {
    const r = parseYuan(text);
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.rule).toContain(rule);
  });
});

describe('formatFen', () => {
  it.each([
    [0, '0.00'],
    [1, '0.01'],
    [10050, '100.50'],
    [-5, '-0.05'],
    [9_999_999_999, '99999999.99'],
  ])('%i → %s', (fen, text) => {
    expect(formatFen(fen)).toBe(text);
  });

  it('refuses non-integers', () => {
    expect(() => formatFen(1.5)).toThrow(RangeError);
  });
});
