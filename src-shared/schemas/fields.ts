/** Reusable zod field schemas with the project's rules and messages. */
import { z } from 'zod';
import { JsonDecimal } from '../json/lossless-json';
import { parseYuan } from '../money';
import { CHANNEL_CATEGORIES, ORDER_STATUSES, PAY_METHODS } from '../constants';

/**
 * A yuan amount given as a string ("100.50") or a JSON number (100.5, kept
 * losslessly by the HTTP parser). Output: integer fen.
 */
export const yuanAmount = z
  .union([z.string(), z.number(), z.instanceof(JsonDecimal)], {
    error: 'must be a decimal amount of yuan such as "100.50"',
  })
  .transform((value, ctx) => {
    const text = value instanceof JsonDecimal ? value.text : String(value);
    const parsed = parseYuan(text);
    if (!parsed.ok) {
      ctx.addIssue({ code: 'custom', message: parsed.rule });
      return z.NEVER;
    }
    return parsed.fen;
  })
  .meta({ description: 'Yuan, as a string ("100.50") or a JSON number: greater than 0, at most 2 decimals, no exponent, at most 99999999.99.' });

/** A threshold in yuan: like yuanAmount, but 0 is allowed ("0", "0.00": everything is above it). Output: integer fen. */
export const yuanThreshold = z
  .union([z.string(), z.number(), z.instanceof(JsonDecimal)], {
    error: 'must be a decimal amount of yuan such as "5000.00", or 0',
  })
  .transform((value, ctx) => {
    const text = value instanceof JsonDecimal ? value.text : String(value);
    if (/^0+(\.0{1,2})?$/.test(text)) return 0;
    const parsed = parseYuan(text);
    if (!parsed.ok) {
      ctx.addIssue({ code: 'custom', message: parsed.rule === 'must be greater than 0' ? 'must be 0 or more' : parsed.rule });
      return z.NEVER;
    }
    return parsed.fen;
  });

export const orderTypeField = z.union([z.literal(1), z.literal(2)]).meta({ description: '1 buy, 2 sell.' });
export const orderStatusField = z.enum(ORDER_STATUSES);
export const payMethodField = z.enum(PAY_METHODS);
export const categoryField = z.enum(CHANNEL_CATEGORIES);
export const positiveId = z.int().min(1);
/** Unix seconds. */
export const unixSeconds = z.int().min(0);

/**
 * C0/C1 control characters, DEL, bidirectional overrides and isolates
 * (text that renders differently from what it stores) and unpaired UTF-16
 * surrogates (not text at all; SQLite would store U+FFFD).
 */
const UNSAFE_TEXT = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function isSafeText(value: string): boolean {
  return !UNSAFE_TEXT.test(value);
}

/** A string of printable text (no control characters, bidi overrides or lone surrogates), at most `max` long once trimmed. */
export function plainText(max: number) {
  return z.string().trim().max(max).refine(isSafeText, { error: 'must not contain control characters, bidirectional overrides or unpaired surrogates' });
}

export function boundedText(max: number) {
  return z.string().trim().min(1).max(max).refine(isSafeText, { error: 'must not contain control characters, bidirectional overrides or unpaired surrogates' });
}
