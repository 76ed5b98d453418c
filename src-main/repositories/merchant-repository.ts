import type { SignType } from '../../src-shared/signing';
import type { ReadTx, WriteTx } from '../store/store';

export interface MerchantRow {
  id: number;
  name: string;
  api_key: string;
  api_secret_enc: string;
  sign_type: SignType;
  callback_url: string | null;
  enabled: 0 | 1;
  /** Console withdrawals above this (fen) wait for a second person's approval; 0: every one. */
  console_withdrawal_threshold: number;
  /** Merchant-API withdrawals above this (fen) wait too; null: never held. */
  api_withdrawal_threshold: number | null;
  createtime: number;
  updatetime: number;
}

export type NewMerchantRow = Omit<MerchantRow, 'id' | 'updatetime' | 'console_withdrawal_threshold' | 'api_withdrawal_threshold'>;

const MERCHANT_BY_API_KEY = 'SELECT * FROM merchants WHERE api_key = ?';

export function createMerchantRepository() {
  return {
    async insert(tx: WriteTx, row: NewMerchantRow): Promise<number> {
      const inserted = await tx.get<{ id: number }>(
        `INSERT INTO merchants (name, api_key, api_secret_enc, sign_type, callback_url, enabled, createtime, updatetime)
         VALUES (@name, @api_key, @api_secret_enc, @sign_type, @callback_url, @enabled, @createtime, @createtime) RETURNING id`,
        row,
      );
      return inserted!.id;
    },
    findById(tx: ReadTx, id: number): Promise<MerchantRow | undefined> {
      return tx.get('SELECT * FROM merchants WHERE id = ?', [id]);
    },
    findByApiKey(tx: ReadTx, apiKey: string): Promise<MerchantRow | undefined> {
      return tx.get(MERCHANT_BY_API_KEY, [apiKey]);
    },
    list(tx: ReadTx): Promise<MerchantRow[]> {
      return tx.all('SELECT * FROM merchants ORDER BY id');
    },
    async updateSecret(tx: WriteTx, id: number, apiSecretEnc: string, now: number): Promise<boolean> {
      return (await tx.run('UPDATE merchants SET api_secret_enc = ?, updatetime = ? WHERE id = ?', [apiSecretEnc, now, id])) === 1;
    },
    async updateLimits(tx: WriteTx, id: number, consoleThreshold: number, apiThreshold: number | null, now: number): Promise<boolean> {
      const changed = await tx.run('UPDATE merchants SET console_withdrawal_threshold = ?, api_withdrawal_threshold = ?, updatetime = ? WHERE id = ?', [
        consoleThreshold,
        apiThreshold,
        now,
        id,
      ]);
      return changed === 1;
    },
    async updateProfile(tx: WriteTx, row: Pick<MerchantRow, 'id' | 'name' | 'sign_type' | 'callback_url' | 'enabled'>, now: number): Promise<boolean> {
      const changed = await tx.run(
        `UPDATE merchants SET name = @name, sign_type = @sign_type, callback_url = @callback_url, enabled = @enabled, updatetime = @updatetime
         WHERE id = @id`,
        { ...row, updatetime: now },
      );
      return changed === 1;
    },
  };
}
export type MerchantRepository = ReturnType<typeof createMerchantRepository>;
