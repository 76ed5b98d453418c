import type { PayMethod } from '../../src-shared/constants';
import type { ReadTx, WriteTx } from '../store/store';

export interface PaymentMethodRow {
  id: number;
  merchant_id: number;
  kind: PayMethod;
  source: 'operator' | 'alpha';
  bank: string;
  sub_bank: string;
  card_number_enc: string;
  card_number_masked: string;
  card_fingerprint: string;
  real_name: string;
  enabled: 0 | 1;
  createtime: number;
  updatetime: number;
}

export type NewPaymentMethodRow = Omit<PaymentMethodRow, 'id' | 'updatetime' | 'enabled'>;

export function createPaymentMethodRepository() {
  return {
    async insert(tx: WriteTx, row: NewPaymentMethodRow): Promise<number> {
      const inserted = await tx.get<{ id: number }>(
        `INSERT INTO payment_methods (merchant_id, kind, source, bank, sub_bank, card_number_enc, card_number_masked,
           card_fingerprint, real_name, enabled, createtime, updatetime)
         VALUES (@merchant_id, @kind, @source, @bank, @sub_bank, @card_number_enc, @card_number_masked,
           @card_fingerprint, @real_name, 1, @createtime, @createtime) RETURNING id`,
        row,
      );
      return inserted!.id;
    },
    findById(tx: ReadTx, id: number): Promise<PaymentMethodRow | undefined> {
      return tx.get('SELECT * FROM payment_methods WHERE id = ?', [id]);
    },
    listOfMerchant(tx: ReadTx, merchantId: number): Promise<PaymentMethodRow[]> {
      return tx.all('SELECT * FROM payment_methods WHERE merchant_id = ? ORDER BY id', [merchantId]);
    },
    /** The newest enabled operator-registered account of a kind is the default payee. */
    findDefault(tx: ReadTx, merchantId: number, kind: PayMethod): Promise<PaymentMethodRow | undefined> {
      return tx.get(
        `SELECT * FROM payment_methods WHERE merchant_id = ? AND kind = ? AND source = 'operator' AND enabled = 1
         ORDER BY id DESC LIMIT 1`,
        [merchantId, kind],
      );
    },
    findAlphaCard(tx: ReadTx, merchantId: number, kind: PayMethod, fingerprint: string): Promise<PaymentMethodRow | undefined> {
      return tx.get(`SELECT * FROM payment_methods WHERE merchant_id = ? AND kind = ? AND card_fingerprint = ? AND source = 'alpha'`, [
        merchantId,
        kind,
        fingerprint,
      ]);
    },
    /**
     * Registers an alpha payee card once per (merchant, kind, card): a second
     * insert of the same card (another instance at the same moment) does nothing.
     */
    async insertAlphaCard(tx: WriteTx, row: NewPaymentMethodRow): Promise<void> {
      await tx.run(
        `INSERT INTO payment_methods (merchant_id, kind, source, bank, sub_bank, card_number_enc, card_number_masked,
           card_fingerprint, real_name, enabled, createtime, updatetime)
         VALUES (@merchant_id, @kind, @source, @bank, @sub_bank, @card_number_enc, @card_number_masked,
           @card_fingerprint, @real_name, 1, @createtime, @createtime)
         ON CONFLICT (merchant_id, kind, card_fingerprint) WHERE source = 'alpha' DO NOTHING`,
        row,
      );
    },
    async refreshAlphaName(tx: WriteTx, id: number, realName: string, now: number): Promise<void> {
      await tx.run('UPDATE payment_methods SET real_name = ?, updatetime = ? WHERE id = ?', [realName, now, id]);
    },
    async setEnabled(tx: WriteTx, id: number, enabled: boolean, now: number): Promise<boolean> {
      return (await tx.run('UPDATE payment_methods SET enabled = ?, updatetime = ? WHERE id = ?', [enabled ? 1 : 0, now, id])) === 1;
    },
  };
}
export type PaymentMethodRepository = ReturnType<typeof createPaymentMethodRepository>;
