import { AppError, ErrorCode } from '../../src-shared/errors';
import type { PayMethod } from '../../src-shared/constants';
import type { PaymentMethodAddInput, PaymentMethodView } from '../../src-shared/schemas/operator';
import { maskCardNumber } from '../../src-shared/validation/rules';
import type { SecretBox } from '../crypto/secret-box';
import type { MerchantRepository } from '../repositories/merchant-repository';
import type { PaymentMethodRepository, PaymentMethodRow } from '../repositories/payment-method-repository';
import type { ReadTx, WriteTx } from '../store/store';
import type { Clock } from './context';

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

export interface PaymentMethodServiceDeps {
  clock: Clock;
  secretBox: SecretBox;
  paymentMethods: PaymentMethodRepository;
  merchants: MerchantRepository;
}

/**
 * Payee accounts of sell orders. Card numbers are stored encrypted, with a
 * masked copy for display and a keyed fingerprint for de-duplication.
 * Every method runs in the caller's unit of work (tx).
 */
export function createPaymentMethodService({ clock, secretBox, paymentMethods, merchants }: PaymentMethodServiceDeps) {
  async function requireMerchant(tx: ReadTx, merchantId: number): Promise<void> {
    if (!(await merchants.findById(tx, merchantId))) throw new AppError(ErrorCode.NOT_FOUND, `merchant_id: merchant ${merchantId} not found`);
  }

  return {
    async add(tx: WriteTx, input: PaymentMethodAddInput): Promise<PaymentMethodView> {
      await requireMerchant(tx, input.merchant_id);
      const id = await paymentMethods.insert(tx, {
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
      return toPaymentMethodView((await paymentMethods.findById(tx, id))!);
    },

    async listOfMerchant(tx: ReadTx, merchantId: number): Promise<PaymentMethodView[]> {
      // An unknown merchant is an error (as for its balance), not an empty list that hides a typo.
      await requireMerchant(tx, merchantId);
      return (await paymentMethods.listOfMerchant(tx, merchantId)).map(toPaymentMethodView);
    },

    async setEnabled(tx: WriteTx, id: number, enabled: boolean): Promise<PaymentMethodView> {
      if (!(await paymentMethods.setEnabled(tx, id, enabled, clock.now()))) {
        throw new AppError(ErrorCode.NOT_FOUND, `payment_method_id: payment method ${id} not found`);
      }
      return toPaymentMethodView((await paymentMethods.findById(tx, id))!);
    },

    /** The merchant's default settlement account for a pay method (beta/gamma sells). */
    async defaultFor(tx: ReadTx, merchantId: number, kind: PayMethod): Promise<PaymentMethodRow> {
      const row = await paymentMethods.findDefault(tx, merchantId, kind);
      if (!row) {
        throw new AppError(
          ErrorCode.CONFLICT,
          `paychannel_paymethod: this merchant has no enabled ${kind} settlement account to pay out to; register one first`,
        );
      }
      return row;
    },

    /** The payee of an alpha sell, registered once per card and reused. */
    async upsertAlphaCard(tx: WriteTx, merchantId: number, kind: PayMethod, cardNo: string, realName: string): Promise<PaymentMethodRow> {
      const fingerprint = secretBox.fingerprint(cardNo);
      const now = clock.now();
      await paymentMethods.insertAlphaCard(tx, {
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
      const row = (await paymentMethods.findAlphaCard(tx, merchantId, kind, fingerprint))!;
      if (row.real_name !== realName) {
        await paymentMethods.refreshAlphaName(tx, row.id, realName, now);
        return (await paymentMethods.findById(tx, row.id))!;
      }
      return row;
    },
  };
}
export type PaymentMethodService = ReturnType<typeof createPaymentMethodService>;
