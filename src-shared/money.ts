/**
 * CNY amounts: integers of fen inside the service, yuan strings with two
 * decimals at the edges. No floating point anywhere on this path.
 */
import { MAX_ORDER_AMOUNT_FEN } from './constants';

const YUAN_PATTERN = /^(0|[1-9][0-9]{0,14})(?:\.([0-9]{1,2}))?$/;

export type YuanParseResult = { ok: true; fen: number } | { ok: false; rule: string };

/**
 * Parse a yuan amount written as decimal text (`100`, `100.5`, `100.50`).
 * Refuses signs, exponents, leading zeros, more than two decimals, zero and
 * anything above MAX_ORDER_AMOUNT_FEN.
 */
export function parseYuan(text: string): YuanParseResult {
  const trimmed = text;
  if (trimmed.startsWith('-')) return { ok: false, rule: 'must be greater than 0' };
  if (/^[0-9]+\.[0-9]{3,}$/.test(trimmed)) return { ok: false, rule: 'must have at most 2 decimal places' };
  const m = YUAN_PATTERN.exec(trimmed);
  if (!m) return { ok: false, rule: 'must be a decimal number of yuan such as 100.50' };
  const whole = m[1]!;
  const frac = (m[2] ?? '').padEnd(2, '0');
  const fen = Number(whole) * 100 + Number(frac);
  if (!Number.isSafeInteger(fen) || fen > MAX_ORDER_AMOUNT_FEN) {
    return { ok: false, rule: `must not exceed ${formatFen(MAX_ORDER_AMOUNT_FEN)}` };
  }
  if (fen <= 0) return { ok: false, rule: 'must be greater than 0' };
  return { ok: true, fen };
}

/** 10050 → "100.50"; -5 → "-0.05". */
export function formatFen(fen: number): string {
  if (!Number.isSafeInteger(fen)) throw new RangeError(`not an integer amount of fen: ${fen}`);
  const sign = fen < 0 ? '-' : '';
  const abs = Math.abs(fen);
  const yuan = Math.floor(abs / 100);
  const rest = abs % 100;
  return `${sign}${yuan}.${rest.toString().padStart(2, '0')}`;
}

/** A signed yuan amount ("-50", "+100.50", "12.3") → fen; zero refused. For operator adjustments. */
export function parseSignedYuan(text: string): YuanParseResult {
  const m = /^([+-]?)(.*)$/.exec(text.trim())!;
  const magnitude = parseYuan(m[2]!);
  if (!magnitude.ok) return magnitude.rule === 'must be greater than 0' ? { ok: false, rule: 'must not be 0' } : magnitude;
  return { ok: true, fen: m[1] === '-' ? -magnitude.fen : magnitude.fen };
}
