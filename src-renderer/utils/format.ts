/**
 * Display formatting. Amounts stay exact: integer fen are formatted by
 * src-shared/money (no floats), then digits are grouped as text.
 */
import { formatFen } from '../../src-shared/money';

/** "1234567.50" → "1,234,567.50" (text in, text out). */
export function groupYuan(yuan: string): string {
  const m = /^(-?)(\d+)(\.\d+)?$/.exec(yuan);
  if (!m) return yuan;
  const grouped = m[2]!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${m[1]}${grouped}${m[3] ?? ''}`;
}

/** 123450 fen → "1,234.50". */
export function fenToYuan(fen: number): string {
  return groupYuan(formatFen(fen));
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** Unix seconds → "2026-01-31 14:05:09" in the viewer's time zone. */
export function formatUnixTime(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—';
  const d = new Date(seconds * 1000);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** Epoch milliseconds of a local calendar day → that day as YYYY-MM-DD. */
export function formatLocalDate(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/**
 * A date-range picker value ([start-of-first-day, start-of-last-day] in local
 * ms) → inclusive Unix-second bounds covering both whole days.
 */
export function dayRangeToUnix(range: readonly [number, number]): { start_time: number; end_time: number } {
  const start = new Date(range[0]);
  start.setHours(0, 0, 0, 0);
  const end = new Date(range[1]);
  end.setHours(0, 0, 0, 0);
  end.setDate(end.getDate() + 1);
  return { start_time: Math.floor(start.getTime() / 1000), end_time: Math.floor(end.getTime() / 1000) - 1 };
}

/** A decimal-fraction rate ("0.006") as a percentage text ("0.6%") without floats. */
export function rateAsPercent(rate: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(rate);
  if (!m) return rate;
  const [, sign, whole, frac = ''] = m;
  const digits = (whole! + frac.padEnd(2, '0')).replace(/^0+(?=\d)/, '');
  const intPart = digits.slice(0, digits.length - (frac.length > 2 ? frac.length - 2 : 0));
  const fracPart = frac.length > 2 ? frac.slice(2) : '';
  const cleanedFrac = fracPart.replace(/0+$/, '');
  return `${sign}${intPart || '0'}${cleanedFrac ? '.' + cleanedFrac : ''}%`;
}

/** Basis points (50) as a percentage text ("0.5%"). */
export function basisPointsAsPercent(bp: number): string {
  const sign = bp < 0 ? '-' : '';
  const abs = Math.abs(bp);
  const whole = Math.floor(abs / 100);
  const frac = String(abs % 100).padStart(2, '0').replace(/0+$/, '');
  return `${sign}${whole}${frac ? '.' + frac : ''}%`;
}
