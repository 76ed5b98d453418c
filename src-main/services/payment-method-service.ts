import { AppError, ErrorCode } from '../../src-shared/errors';
import type { PayMethod } from '../../src-shared/constants';
import type { PaymentMethodAddInput, PaymentMethodView } from '../../src-shared/schemas/operator';
import { maskCardNumber } from '../../src-shared/validation/rules';
import type { PaymentMethodRow } from '../repositories/payment-method-repository';
import type { ServiceContext } from './context';

export function toPaymentMethodView(row: PaymentMethodRow): PaymentMethodView {
  return {
    id: row.id,
    merchant_id: row.merchant_id,
    kind: row.kind,
    source: row.source,
    bank: row.bank,
    sub_bank: row.sub_bank,
    card_number: row.card_number_masked,
    real_name: row.real_name,
    enabled: row.enabled === 1,
    createtime: row.createtime,
  };
}

/**
 * Payee accounts of sell orders. Card numbers are stored encrypted, with a
 * masked copy for display and a keyed fingerprint for de-duplication.
 */
export function createPaymentMethodService(ctx: ServiceContext) {
  const { repos, secretBox, clock } = ctx;

  return {
    add(input: PaymentMethodAddInput): PaymentMethodView {
      if (!repos.merchants.findById(input.merchant_id)) {
        throw new AppError(ErrorCode.NOT_FOUND, `merchant_id: merchant ${input.merchant_id} not found`);
      }
      const id = repos.paymentMethods.insert({
        merchant_id: input.merchant_id,
        kind: input.kind,
        source: 'operator',
        bank: input.bank ?? '',
        sub_bank: input.sub_bank ?? '',
        card_number_enc: secretBox.seal(input.card_number),
        card_number_masked: maskCardNumber(input.card_number),
        card_fingerprint: secretBox.fingerprint(input.card_number),
        real_name: input.real_name,
        createtime: clock.now(),
      });
      return toPaymentMethodView(repos.paymentMethods.findById(id)!);
    },

    listOfMerchant(merchantId: number): PaymentMethodView[] {
      // An unknown merchant is an error (as for its balance), not an empty list that hides a typo.
      if (!repos.merchants.findById(merchantId)) throw new AppError(ErrorCode.NOT_FOUND, `merchant_id: merchant ${merchantId} not found`);
      return repos.paymentMethods.listOfMerchant(merchantId).map(toPaymentMethodView);
    },

    setEnabled(id: number, enabled: boolean): PaymentMethodView {
      if (!repos.paymentMethods.setEnabled(id, enabled, clock.now())) {
        throw new AppError(ErrorCode.NOT_FOUND, `payment_method_id: payment method ${id} not found`);
      }
      return toPaymentMethodView(repos.paymentMethods.findById(id)!);
    },

    /** The merchant's default settlement account for a pay method (beta/gamma sells). */
    defaultFor(merchantId: number, kind: PayMethod): PaymentMethodRow {
      const row = repos.paymentMethods.findDefault(merchantId, kind);
      if (!row) {
        throw new AppError(
          ErrorCode.CONFLICT,
          `paychannel_paymethod: this merchant has no enabled ${kind} settlement account to pay out to; register one first`,
        );
      }
      return row;
    },

    /** The payee of an alpha sell, registered once per card and reused. */
    upsertAlphaCard(merchantId: number, kind: PayMethod, cardNo: string, realName: string): PaymentMethodRow {
      const fingerprint = secretBox.fingerprint(cardNo);
      const now = clock.now();
      const existing = repos.paymentMethods.findAlphaCard(merchantId, kind, fingerprint);
      if (existing) {
        if (existing.real_name !== realName) repos.paymentMethods.refreshAlphaName(existing.id, realName, now);
        return repos.paymentMethods.findById(existing.id)!;
      }
      const id = repos.paymentMethods.insert({
        merchant_id: merchantId,
        kind,
        source: 'alpha',
        bank: '',
        sub_bank: '',
        card_number_enc: secretBox.seal(cardNo),
        card_number_masked: maskCardNumber(cardNo),
        card_fingerprint: fingerprint,
        real_name: realName,
        createtime: now,
      });
      return repos.paymentMethods.findById(id)!;
    },
  };
}
export type PaymentMethodService = ReturnType<typeof createPaymentMethodService>;
