import { describe, expect, it } from 'vitest';
import { basisPointsAsPercent, dayRangeToUnix, fenToYuan, groupYuan, rateAsPercent } from '../../../src-renderer/utils/format';

describe('display formatting', () => {
  it.each([
    ['0', '0'],
    ['999.99', '999.99'],
    ['1000', '1,000'],
    ['1234567.50', '1,234,567.50'],
    ['-1234.05', '-1,234.05'],
    ['n/a', 'n/a'],
  ])('groups %s as %s', (input, out) => expect(groupYuan(input)).toBe(out));

  it('formats fen exactly', () => {
    expect(fenToYuan(123456789)).toBe('1,234,567.89');
    expect(fenToYuan(-5)).toBe('-0.05');
    expect(fenToYuan(9_999_999_999)).toBe('99,999,999.99');
  });

  it.each([
    ['0.006', '0.6%'],
    ['0.0125', '1.25%'],
    ['-0.001', '-0.1%'],
    ['0.1', '10%'],
    ['0', '0%'],
    ['0.00000001', '0.000001%'],
    ['0.5', '50%'],
  ])('rate %s is %s', (rate, out) => expect(rateAsPercent(rate)).toBe(out));

  it.each([
    [0, '0%'],
    [50, '0.5%'],
    [30, '0.3%'],
    [125, '1.25%'],
    [10000, '100%'],
  ])('%i basis points are %s', (bp, out) => expect(basisPointsAsPercent(bp)).toBe(out));

  it('turns a picked day range into inclusive Unix bounds of whole local days', () => {
    const first = new Date(2026, 0, 5, 15, 30).getTime();
    const last = new Date(2026, 0, 7, 0, 0).getTime();
    const { start_time, end_time } = dayRangeToUnix([first, last]);
    expect(new Date(start_time * 1000)).toEqual(new Date(2026, 0, 5, 0, 0, 0));
    expect(new Date(end_time * 1000)).toEqual(new Date(2026, 0, 7, 23, 59, 59));
  });
});
