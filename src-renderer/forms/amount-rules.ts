/**
 * The order amount: yuan text with at most two decimals, > 0, within the
 * channel's limits and, for a sell order, covered by the available balance
 * once fees are added (merchant_actual_amount = A + fees, src-shared/fees).
 */
import { parseYuan, formatFen } from '../../src-shared/money';
import { computeBuyFees, computeSellFees, type FeeSettings } from '../../src-shared/fees';
import { problem, type CheckProblem } from './field-check';
import { groupYuan } from '../utils/format';

/** What the amount input lets through while typing: digits, one dot, two decimals at most. */
export const AMOUNT_TYPING_PATTERN = /^(0|[1-9][0-9]{0,9})?(\.[0-9]{0,2})?$/;

export function allowAmountInput(text: string): boolean {
  return AMOUNT_TYPING_PATTERN.test(text);
}

export interface AmountContext {
  /** Channel limits in fen, when a channel is chosen. */
  minFen?: number | undefined;
  maxFen?: number | undefined;
  /** Sell orders: the merchant's available balance (fen) and the fees that will be added. */
  availableFen?: number | undefined;
  sellFees?: FeeSettings | undefined;
}

export type AmountCheck = { ok: true; fen: number } | { ok: false; problem: CheckProblem };

export function checkAmount(text: string, ctx: AmountContext = {}): AmountCheck {
  const value = text.trim();
  if (value === '') return { ok: false, problem: problem('orderForm.rules.amountRequired') };
  if (!/^[0-9]+(\.[0-9]{1,2})?$/.test(value)) return { ok: false, problem: problem('orderForm.rules.amountFormat') };
  if (/^0+(\.0*)?$/.test(value)) return { ok: false, problem: problem('orderForm.rules.amountPositive') };
  const parsed = parseYuan(value.replace(/^0+(?=[0-9])/, ''));
  if (!parsed.ok) return { ok: false, problem: problem('orderForm.rules.amountFormat') };
  const fen = parsed.fen;
  if (ctx.minFen !== undefined && fen < ctx.minFen) {
    return { ok: false, problem: problem('orderForm.rules.amountMin', { min: groupYuan(formatFen(ctx.minFen)) }) };
  }
  if (ctx.maxFen !== undefined && fen > ctx.maxFen) {
    return { ok: false, problem: problem('orderForm.rules.amountMax', { max: groupYuan(formatFen(ctx.maxFen)) }) };
  }
  if (ctx.availableFen !== undefined && ctx.sellFees) {
    const need = computeSellFees(fen, ctx.sellFees).merchant_actual_amount;
    if (need > ctx.availableFen) {
      return {
        ok: false,
        problem: problem('orderForm.rules.amountBalance', { need: groupYuan(formatFen(need)), available: groupYuan(formatFen(ctx.availableFen)) }),
      };
    }
  }
  return { ok: true, fen };
}

/** The yuan text the API receives: normalised to two decimals ("100.5" → "100.50"). */
export function normaliseAmount(text: string): string {
  const parsed = parseYuan(text.trim().replace(/^0+(?=[0-9])/, ''));
  if (!parsed.ok) throw new Error(`not a valid amount: ${text}`);
  return formatFen(parsed.fen);
}

/** Fee preview shown under the amount. */
export function previewFees(fen: number, orderType: 1 | 2, fees: FeeSettings): { fee: number; actual: number } {
  if (orderType === 1) {
    const f = computeBuyFees(fen, fees);
    return { fee: f.service_amount + f.deposit_amount, actual: f.merchant_actual_amount };
  }
  const f = computeSellFees(fen, fees);
  return { fee: f.merchant_actual_amount - fen, actual: f.merchant_actual_amount };
}
