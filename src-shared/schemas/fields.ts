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
  });

export const orderTypeField = z.union([z.literal(1), z.literal(2)]);
export const orderStatusField = z.enum(ORDER_STATUSES);
export const payMethodField = z.enum(PAY_METHODS);
export const categoryField = z.enum(CHANNEL_CATEGORIES);
export const positiveId = z.int().min(1);
/** Unix seconds. */
export const unixSeconds = z.int().min(0);

export function boundedText(max: number) {
  return z.string().trim().min(1).max(max);
}
