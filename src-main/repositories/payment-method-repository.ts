import type { Database } from 'better-sqlite3';
import type { PayMethod } from '../../src-shared/constants';

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

export function createPaymentMethodRepository(db: Database) {
  const insert = db.prepare<NewPaymentMethodRow>(
    `INSERT INTO payment_methods (merchant_id, kind, source, bank, sub_bank, card_number_enc, card_number_masked,
       card_fingerprint, real_name, enabled, createtime, updatetime)
     VALUES (@merchant_id, @kind, @source, @bank, @sub_bank, @card_number_enc, @card_number_masked,
       @card_fingerprint, @real_name, 1, @createtime, @createtime)`,
  );
  const byId = db.prepare<[number], PaymentMethodRow>('SELECT * FROM payment_methods WHERE id = ?');
  const ofMerchant = db.prepare<[number], PaymentMethodRow>('SELECT * FROM payment_methods WHERE merchant_id = ? ORDER BY id');
  // The newest enabled operator-registered account of a kind is the default payee.
  const defaultFor = db.prepare<[number, string], PaymentMethodRow>(
    `SELECT * FROM payment_methods WHERE merchant_id = ? AND kind = ? AND source = 'operator' AND enabled = 1
     ORDER BY id DESC LIMIT 1`,
  );
  const alphaByCard = db.prepare<[number, string, string], PaymentMethodRow>(
    `SELECT * FROM payment_methods WHERE merchant_id = ? AND kind = ? AND card_fingerprint = ? AND source = 'alpha'`,
  );
  const refreshAlpha = db.prepare<[string, number, number]>('UPDATE payment_methods SET real_name = ?, updatetime = ? WHERE id = ?');
  const setEnabled = db.prepare<[0 | 1, number, number]>('UPDATE payment_methods SET enabled = ?, updatetime = ? WHERE id = ?');

  return {
    insert(row: NewPaymentMethodRow): number {
      return Number(insert.run(row).lastInsertRowid);
    },
    findById(id: number): PaymentMethodRow | undefined {
      return byId.get(id);
    },
    listOfMerchant(merchantId: number): PaymentMethodRow[] {
      return ofMerchant.all(merchantId);
    },
    findDefault(merchantId: number, kind: PayMethod): PaymentMethodRow | undefined {
      return defaultFor.get(merchantId, kind);
    },
    findAlphaCard(merchantId: number, kind: PayMethod, fingerprint: string): PaymentMethodRow | undefined {
      return alphaByCard.get(merchantId, kind, fingerprint);
    },
    refreshAlphaName(id: number, realName: string, now: number): void {
      refreshAlpha.run(realName, now, id);
    },
    setEnabled(id: number, enabled: boolean, now: number): boolean {
      return setEnabled.run(enabled ? 1 : 0, now, id).changes === 1;
    },
  };
}
export type PaymentMethodRepository = ReturnType<typeof createPaymentMethodRepository>;
