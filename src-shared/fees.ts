/**
 * Fee formulas (docs/api.md, "Amounts and fees"), in one place, exact.
 * A is the order amount in fen; R rounds half away from zero to a whole fen.
 * Rates: service_rate and passage_rate are decimal strings (fractions of A,
 * passage_rate may be negative); deposit_rate and base_rate are integers of
 * basis points.
 */
import Decimal from 'decimal.js';

const Exact = Decimal.clone({ precision: 50, rounding: Decimal.ROUND_HALF_UP });

export interface FeeSettings {
  service_rate: string;
  passage_rate: string;
  deposit_rate: number;
  base_rate: number;
}

export interface BuyFees {
  service_amount: number;
  deposit_amount: number;
  merchant_actual_amount: number;
}

export interface SellFees {
  service_amount: number;
  passage_amount: number;
  deposit_amount: number;
  channel_amount: number;
  merchant_actual_amount: number;
}

/** R(A × rate): round half away from zero to whole fen. */
export function applyRate(amountFen: number, rate: string | number, divisor = 1): number {
  const value = new Exact(amountFen).times(new Exact(rate)).dividedBy(divisor);
  // ROUND_HALF_UP in decimal.js is "ties away from zero", i.e. R.
  return value.toDecimalPlaces(0, Exact.ROUND_HALF_UP).toNumber();
}

export function computeBuyFees(amountFen: number, fees: FeeSettings): BuyFees {
  const service_amount = applyRate(amountFen, fees.service_rate);
  const deposit_amount = applyRate(amountFen, fees.deposit_rate, 10_000);
  return {
    service_amount,
    deposit_amount,
    merchant_actual_amount: amountFen - service_amount - deposit_amount,
  };
}

export function computeSellFees(amountFen: number, fees: FeeSettings): SellFees {
  const service_amount = applyRate(amountFen, fees.service_rate);
  const passage_amount = applyRate(amountFen, fees.passage_rate);
  const deposit_amount = applyRate(amountFen, fees.deposit_rate, 10_000);
  const channel_amount = applyRate(amountFen, fees.base_rate, 10_000);
  return {
    service_amount,
    passage_amount,
    deposit_amount,
    channel_amount,
    merchant_actual_amount: amountFen + service_amount + passage_amount + deposit_amount,
  };
}

/** A rate string as accepted in settings: plain decimal, at most 8 places. */
export const RATE_PATTERN = /^-?(0|[1-9][0-9]*)(\.[0-9]{1,8})?$/;

export function isValidRate(rate: string, { allowNegative }: { allowNegative: boolean }): boolean {
  if (!RATE_PATTERN.test(rate)) return false;
  const d = new Exact(rate);
  if (!allowNegative && d.isNegative() && !d.isZero()) return false;
  return d.abs().lessThan(1);
}

/** Normalise "0.0060" to "0.006", "-0" to "0": one spelling per rate. */
export function normaliseRate(rate: string): string {
  const d = new Exact(rate);
  return d.isZero() ? '0' : d.toFixed();
}
