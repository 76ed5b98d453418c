/**
 * Beijing time (UTC+8, no daylight saving): the one time zone of the service
 * and the console. The merchants are in mainland China, and order numbers,
 * dashboard days and the CSV export already count in Beijing time, so the
 * console shows and filters in it too, whatever the viewer's own zone is.
 * Pure arithmetic on Unix seconds: nothing here reads the host's zone
 * (no local Date getters), so the result is the same on every machine.
 */

/** Seconds east of UTC. */
export const BEIJING_UTC_OFFSET_SECONDS = 8 * 3600;
/** The offset as ISO 8601 text (the dashboard's `time_zone`). */
export const BEIJING_UTC_OFFSET_TEXT = '+08:00';

const DAY_SECONDS = 86400;
const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM-DDTHH:MM:SS` of Beijing wall-clock time (UTC getters of a shifted instant). */
function beijingWallClock(unixSeconds: number): string {
  return new Date((unixSeconds + BEIJING_UTC_OFFSET_SECONDS) * 1000).toISOString().slice(0, 19);
}

/** 1767225600 → `2026-01-01 08:00:00`. */
export function formatBeijingTime(unixSeconds: number): string {
  return beijingWallClock(unixSeconds).replace('T', ' ');
}

/** 1767196800 → `2026-01-01`: the Beijing calendar day `unixSeconds` falls in. */
export function formatBeijingDate(unixSeconds: number): string {
  return beijingWallClock(unixSeconds).slice(0, 10);
}

/** 1767225600 → `20260101080000` (order numbers). */
export function formatBeijingCompact(unixSeconds: number): string {
  return beijingWallClock(unixSeconds).replace(/[-T:]/g, '');
}

/** Days since 1970-01-01 counted in Beijing calendar days. */
export function beijingDayIndex(unixSeconds: number): number {
  return Math.floor((unixSeconds + BEIJING_UTC_OFFSET_SECONDS) / DAY_SECONDS);
}

/** Beijing 00:00:00 of a day index, as Unix seconds. */
export function beijingDayIndexStart(day: number): number {
  return day * DAY_SECONDS - BEIJING_UTC_OFFSET_SECONDS;
}

/** `YYYY-MM-DD` of a day index. */
export function beijingDateOfDayIndex(day: number): string {
  return formatBeijingDate(beijingDayIndexStart(day));
}

/** Beijing 00:00:00 of the day `unixSeconds` falls in, as Unix seconds. */
export function beijingDayStart(unixSeconds: number): number {
  return beijingDayIndexStart(beijingDayIndex(unixSeconds));
}

/** `2026-01-01` → 1767196800 (Beijing 00:00:00 of that day); throws on anything but a real YYYY-MM-DD date. */
export function parseBeijingDate(date: string): number {
  const m = DATE_PATTERN.exec(date);
  const [year, month, day] = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [NaN, NaN, NaN];
  const utcMidnightMs = Date.UTC(year, month - 1, day);
  if (!m || Number.isNaN(utcMidnightMs) || new Date(utcMidnightMs).toISOString().slice(0, 10) !== date) {
    throw new RangeError(`not a YYYY-MM-DD date: ${JSON.stringify(date)}`);
  }
  return utcMidnightMs / 1000 - BEIJING_UTC_OFFSET_SECONDS;
}

/**
 * Picked days (first, last; YYYY-MM-DD, either order) → inclusive Unix-second
 * bounds: Beijing 00:00:00 of the first day to 23:59:59 of the last.
 */
export function beijingDateRangeToUnix(range: readonly [string, string]): { start_time: number; end_time: number } {
  const [a, b] = [parseBeijingDate(range[0]), parseBeijingDate(range[1])];
  return { start_time: Math.min(a, b), end_time: Math.max(a, b) + DAY_SECONDS - 1 };
}
