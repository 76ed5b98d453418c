import { describe, expect, it } from 'vitest';
import {
  beijingDateOfDayIndex,
  beijingDateRangeToUnix,
  beijingDayIndex,
  beijingDayIndexStart,
  beijingDayStart,
  formatBeijingCompact,
  formatBeijingDate,
  formatBeijingTime,
  parseBeijingDate,
} from '../../src-shared/beijing-time';
import { useViewerTimeZone, VIEWER_TIME_ZONES } from '../support/time-zone';

// Beijing 2026-01-01 00:00:00 = 2025-12-31 16:00:00 UTC.
const NEW_YEAR_2026 = 1767196800;

describe.each(VIEWER_TIME_ZONES)('Beijing time for a viewer in %s', (zone) => {
  useViewerTimeZone(zone);

  it('really runs in that zone', () => {
    expect(Intl.DateTimeFormat().resolvedOptions().timeZone).toBe(zone === 'UTC' ? 'UTC' : zone);
  });

  it.each([
    [0, '1970-01-01 08:00:00', '1970-01-01'],
    [NEW_YEAR_2026 - 1, '2025-12-31 23:59:59', '2025-12-31'],
    [NEW_YEAR_2026, '2026-01-01 00:00:00', '2026-01-01'],
    [1767225600, '2026-01-01 08:00:00', '2026-01-01'],
    [1767283199, '2026-01-01 23:59:59', '2026-01-01'],
    [1835366400, '2028-02-29 00:00:00', '2028-02-29'],
    // 2 a.m. in New York the night its clocks go forward: 15:00 in Beijing, which has no daylight saving.
    [1772953200, '2026-03-08 15:00:00', '2026-03-08'],
  ])('%i is %s on %s', (t, time, date) => {
    expect(formatBeijingTime(t)).toBe(time);
    expect(formatBeijingDate(t)).toBe(date);
    expect(parseBeijingDate(date)).toBe(beijingDayStart(t));
  });

  it.each([
    [NEW_YEAR_2026 - 1, 1767110400],
    [NEW_YEAR_2026, NEW_YEAR_2026],
    [NEW_YEAR_2026 + 86399, NEW_YEAR_2026],
    [NEW_YEAR_2026 + 86400, NEW_YEAR_2026 + 86400],
  ])('the Beijing day of %i starts at %i', (t, start) => {
    expect(beijingDayStart(t)).toBe(start);
    expect(beijingDayIndexStart(beijingDayIndex(t))).toBe(start);
    expect(beijingDateOfDayIndex(beijingDayIndex(t))).toBe(formatBeijingDate(t));
  });

  it('stamps order numbers with Beijing wall-clock time', () => {
    expect(formatBeijingCompact(1793512800)).toBe('20261101140000');
  });

  it.each([
    [['2026-01-01', '2026-01-01'], NEW_YEAR_2026, 1767283199],
    [['2026-01-05', '2026-01-07'], 1767542400, 1767801599],
    [['2026-01-07', '2026-01-05'], 1767542400, 1767801599],
    [['2025-12-31', '2026-01-01'], 1767110400, 1767283199],
    [['2028-02-29', '2028-02-29'], 1835366400, 1835452799],
  ] as const)('picked days %j are Beijing %i to %i', (range, start, end) => {
    expect(beijingDateRangeToUnix(range)).toEqual({ start_time: start, end_time: end });
    expect(formatBeijingTime(start)).toMatch(/ 00:00:00$/);
    expect(formatBeijingTime(end)).toMatch(/ 23:59:59$/);
  });

  it.each(['2026-02-30', '2027-02-29', '2026-13-01', '2026-1-01', '2026-01-01T00:00', '', ' 2026-01-01', '0050-01-01'])('refuses %j as a date', (text) => {
    expect(() => parseBeijingDate(text)).toThrow(RangeError);
  });
});
