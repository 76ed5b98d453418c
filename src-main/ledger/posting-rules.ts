/**
 * Posting rules (docs/ledger.md): which accounts a money movement touches
 * and by how much, as pure functions of the order's amounts. Amounts are
 * signed fen; the entries of one movement always sum to zero. Merchant
 * accounts hold what the platform owes the merchant (positive = balance);
 * the other accounts are the platform's and the outside world's side.
 */
import type { LedgerEffect } from '../../src-shared/order-state-machine';

export const MERCHANT_ACCOUNTS = ['merchant_available', 'merchant_frozen', 'merchant_deposit'] as const;
export type MerchantAccount = (typeof MERCHANT_ACCOUNTS)[number];

export const PLATFORM_ACCOUNTS = [
  /** Payers who paid buy orders through a channel (money in). */
  'external_payer',
  /** Payees of sell orders (money out). */
  'external_payee',
  /** Service fees the platform earned. */
  'platform_service_fee',
  /** Channel passage fees of sell orders (negative passage rates rebate). */
  'channel_passage',
  /** The channel's commission (base_rate), paid from the platform's fee revenue. */
  'channel_commission',
  /** Counterpart of operator adjustments. */
  'platform_adjustment',
] as const;
export type PlatformAccount = (typeof PLATFORM_ACCOUNTS)[number];

export type Account = MerchantAccount | PlatformAccount;

export type LedgerKind = LedgerEffect | 'sell_freeze' | 'adjustment' | HoldKind;
/** A withdrawal waiting for approval: its sum held (moved to frozen) and released again (docs/ledger.md). */
export type HoldKind = 'withdrawal_hold' | 'withdrawal_release';

export interface Posting {
  account: Account;
  amount: number;
}

/** The order amounts the rules read (fen). */
export interface OrderAmounts {
  cny_amount: number;
  service_amount: number;
  passage_amount: number;
  deposit_amount: number;
  channel_amount: number;
  merchant_actual_amount: number;
}

export function isMerchantAccount(account: Account): account is MerchantAccount {
  return (MERCHANT_ACCOUNTS as readonly string[]).includes(account);
}

function nonZero(postings: Posting[]): Posting[] {
  return postings.filter((p) => p.amount !== 0);
}

/** Postings of an order movement. */
export function orderPostings(kind: Exclude<LedgerKind, 'adjustment' | HoldKind>, o: OrderAmounts): Posting[] {
  switch (kind) {
    // Buy paid: the payer's money is split into the merchant's available
    // balance, its security deposit and the platform's service fee.
    case 'buy_paid':
      return nonZero([
        { account: 'external_payer', amount: -o.cny_amount },
        { account: 'merchant_available', amount: o.merchant_actual_amount },
        { account: 'merchant_deposit', amount: o.deposit_amount },
        { account: 'platform_service_fee', amount: o.service_amount },
      ]);
    // Sell created: the full deduction is reserved.
    case 'sell_freeze':
      return nonZero([
        { account: 'merchant_available', amount: -o.merchant_actual_amount },
        { account: 'merchant_frozen', amount: o.merchant_actual_amount },
      ]);
    // Sell completed: the reserved sum leaves frozen: the amount to the
    // payee, the fees to the platform's accounts, the deposit into the
    // merchant's deposit. The channel's commission is the platform's cost.
    case 'sell_paid_out':
      return nonZero([
        { account: 'merchant_frozen', amount: -o.merchant_actual_amount },
        { account: 'external_payee', amount: o.cny_amount },
        { account: 'platform_service_fee', amount: o.service_amount - o.channel_amount },
        { account: 'channel_commission', amount: o.channel_amount },
        { account: 'channel_passage', amount: o.passage_amount },
        { account: 'merchant_deposit', amount: o.deposit_amount },
      ]);
    // Sell cancelled: the reserved sum goes back.
    case 'sell_release':
      return nonZero([
        { account: 'merchant_frozen', amount: -o.merchant_actual_amount },
        { account: 'merchant_available', amount: o.merchant_actual_amount },
      ]);
  }
}

/** A withdrawal's sum held while it waits for approval, or released again (amount > 0). */
export function holdPostings(kind: HoldKind, amount: number): Posting[] {
  const sign = kind === 'withdrawal_hold' ? 1 : -1;
  return [
    { account: 'merchant_available', amount: -sign * amount },
    { account: 'merchant_frozen', amount: sign * amount },
  ];
}

/** An operator adjustment of the available balance (amount signed, ≠ 0). */
export function adjustmentPostings(amount: number): Posting[] {
  return [
    { account: 'merchant_available', amount },
    { account: 'platform_adjustment', amount: -amount },
  ];
}

export function sumOf(postings: readonly Posting[]): number {
  return postings.reduce((s, p) => s + p.amount, 0);
}
