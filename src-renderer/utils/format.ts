/**
 * Display formatting. Amounts stay exact: integer fen are formatted by
 * src-shared/money (no floats), then digits are grouped as text. Times are
 * Beijing time, converted only by src-shared/beijing-time.
 */
import { formatBeijingTime } from '../../src-shared/beijing-time';
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

/**
 * Unix seconds → "2026-01-31 14:05:09", Beijing time (UTC+8) whatever the
 * viewer's zone, like the CSV export and the dashboard; "—" when absent.
 */
export function formatUnixTime(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—';
  return formatBeijingTime(seconds);
}

/** How the console names a merchant everywhere (lists, filters, switcher): `#3 Shop`, or `#3` while its name is unknown. */
export function merchantLabel(id: number, name?: string | null): string {
  return name ? `#${id} ${name}` : `#${id}`;
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
