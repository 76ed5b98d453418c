import type { Database } from 'better-sqlite3';
import type { SignType } from '../../src-shared/signing';

export interface MerchantRow {
  id: number;
  name: string;
  api_key: string;
  api_secret_enc: string;
  sign_type: SignType;
  callback_url: string | null;
  enabled: 0 | 1;
  createtime: number;
  updatetime: number;
}

export type NewMerchantRow = Omit<MerchantRow, 'id' | 'updatetime'>;

export function createMerchantRepository(db: Database) {
  const insert = db.prepare<NewMerchantRow>(
    `INSERT INTO merchants (name, api_key, api_secret_enc, sign_type, callback_url, enabled, createtime, updatetime)
     VALUES (@name, @api_key, @api_secret_enc, @sign_type, @callback_url, @enabled, @createtime, @createtime)`,
  );
  const byId = db.prepare<[number], MerchantRow>('SELECT * FROM merchants WHERE id = ?');
  const byApiKey = db.prepare<[string], MerchantRow>('SELECT * FROM merchants WHERE api_key = ?');
  const all = db.prepare<[], MerchantRow>('SELECT * FROM merchants ORDER BY id');
  const setSecret = db.prepare<[string, number, number]>('UPDATE merchants SET api_secret_enc = ?, updatetime = ? WHERE id = ?');
  const setProfile = db.prepare<{ id: number; name: string; sign_type: SignType; callback_url: string | null; enabled: 0 | 1; updatetime: number }>(
    `UPDATE merchants SET name = @name, sign_type = @sign_type, callback_url = @callback_url, enabled = @enabled, updatetime = @updatetime
     WHERE id = @id`,
  );

  return {
    insert(row: NewMerchantRow): number {
      return Number(insert.run(row).lastInsertRowid);
    },
    findById(id: number): MerchantRow | undefined {
      return byId.get(id);
    },
    findByApiKey(apiKey: string): MerchantRow | undefined {
      return byApiKey.get(apiKey);
    },
    list(): MerchantRow[] {
      return all.all();
    },
    updateSecret(id: number, apiSecretEnc: string, now: number): boolean {
      return setSecret.run(apiSecretEnc, now, id).changes === 1;
    },
    updateProfile(row: Pick<MerchantRow, 'id' | 'name' | 'sign_type' | 'callback_url' | 'enabled'>, now: number): boolean {
      return setProfile.run({ ...row, updatetime: now }).changes === 1;
    },
  };
}
export type MerchantRepository = ReturnType<typeof createMerchantRepository>;
