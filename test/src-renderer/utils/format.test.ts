import { describe, expect, it } from 'vitest';
import { basisPointsAsPercent, fenToYuan, formatUnixTime, groupYuan, rateAsPercent } from '../../../src-renderer/utils/format';
import { useViewerTimeZone, VIEWER_TIME_ZONES } from '../../support/time-zone';

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
});

describe.each(VIEWER_TIME_ZONES)('display times for a viewer in %s', (zone) => {
  useViewerTimeZone(zone);

  // Beijing time (UTC+8) everywhere, as in the CSV export and on the dashboard.
  it.each([
    [1767196799, '2025-12-31 23:59:59'],
    [1767196800, '2026-01-01 00:00:00'],
    [1767225600, '2026-01-01 08:00:00'],
    [1767283199, '2026-01-01 23:59:59'],
    [1772953200, '2026-03-08 15:00:00'],
  ])('shows %i as %s', (t, text) => expect(formatUnixTime(t)).toBe(text));

  it.each([null, undefined])('shows %s as a dash', (t) => expect(formatUnixTime(t)).toBe('—'));
});
