import type { Role } from '../../src-shared/auth/permissions';
import type { ReadTx, WriteTx } from '../store/store';

export interface AccountRow {
  id: number;
  login: string;
  display_name: string;
  password_hash: string;
  role: Role;
  all_merchants: 0 | 1;
  enabled: 0 | 1;
  totp_secret_enc: string | null;
  totp_enabled: 0 | 1;
  totp_last_step: number | null;
  password_changed_at: number;
  createtime: number;
  updatetime: number;
}

export type NewAccountRow = Omit<AccountRow, 'id' | 'updatetime' | 'totp_secret_enc' | 'totp_enabled' | 'totp_last_step'>;

/** Staff accounts and the merchants a limited account acts for. */
export function createAccountRepository() {
  return {
    async insert(tx: WriteTx, row: NewAccountRow): Promise<number> {
      const inserted = await tx.get<{ id: number }>(
        `INSERT INTO accounts (login, display_name, password_hash, role, all_merchants, enabled, password_changed_at, createtime, updatetime)
         VALUES (@login, @display_name, @password_hash, @role, @all_merchants, @enabled, @password_changed_at, @createtime, @createtime) RETURNING id`,
        row,
      );
      return inserted!.id;
    },
    findById(tx: ReadTx, id: number): Promise<AccountRow | undefined> {
      return tx.get('SELECT * FROM accounts WHERE id = ?', [id]);
    },
    /** The row, locked until the unit of work ends (PostgreSQL). */
    findByIdForUpdate(tx: WriteTx, id: number): Promise<AccountRow | undefined> {
      return tx.get(`SELECT * FROM accounts WHERE id = ?${tx.dialect === 'postgres' ? ' FOR UPDATE' : ''}`, [id]);
    },
    findByLogin(tx: ReadTx, login: string): Promise<AccountRow | undefined> {
      return tx.get('SELECT * FROM accounts WHERE login = ?', [login]);
    },
    list(tx: ReadTx): Promise<AccountRow[]> {
      return tx.all('SELECT * FROM accounts ORDER BY id');
    },
    async count(tx: ReadTx): Promise<number> {
      return (await tx.get<{ n: number }>('SELECT count(*) AS n FROM accounts'))!.n;
    },
    async merchantsOf(tx: ReadTx, accountId: number): Promise<number[]> {
      return (await tx.all<{ merchant_id: number }>('SELECT merchant_id FROM account_merchants WHERE account_id = ? ORDER BY merchant_id', [accountId])).map(
        (r) => r.merchant_id,
      );
    },
    async setMerchants(tx: WriteTx, accountId: number, merchantIds: readonly number[] | null, now: number): Promise<void> {
      await tx.run('DELETE FROM account_merchants WHERE account_id = ?', [accountId]);
      for (const m of merchantIds ?? []) await tx.run('INSERT INTO account_merchants (account_id, merchant_id) VALUES (?, ?)', [accountId, m]);
      await tx.run('UPDATE accounts SET all_merchants = ?, updatetime = ? WHERE id = ?', [merchantIds === null ? 1 : 0, now, accountId]);
    },
    async update(tx: WriteTx, id: number, changes: Partial<Pick<AccountRow, 'display_name' | 'enabled' | 'role' | 'password_hash' | 'password_changed_at'>>, now: number): Promise<boolean> {
      const names = Object.keys(changes);
      if (names.length === 0) return true;
      const changed = await tx.run(`UPDATE accounts SET ${names.map((n) => `${n} = @${n}`).join(', ')}, updatetime = @now WHERE id = @id`, { ...changes, id, now });
      return changed === 1;
    },
    async setTotp(tx: WriteTx, id: number, secretEnc: string | null, enabled: boolean, now: number): Promise<void> {
      await tx.run('UPDATE accounts SET totp_secret_enc = ?, totp_enabled = ?, totp_last_step = NULL, updatetime = ? WHERE id = ?', [secretEnc, enabled ? 1 : 0, now, id]);
    },
    /** Records the time step of an accepted code; false when that step (or a later one) was used already. */
    async useTotpStep(tx: WriteTx, id: number, step: number): Promise<boolean> {
      const changed = await tx.run('UPDATE accounts SET totp_last_step = ? WHERE id = ? AND (totp_last_step IS NULL OR totp_last_step < ?)', [step, id, step]);
      return changed === 1;
    },
    /** Enabled accounts of these roles other than `exceptId` that serve the merchant (null: any), with two-factor sign-in on. */
    async countApprovers(tx: ReadTx, roles: readonly Role[], exceptId: number | null, merchantId: number | null): Promise<number> {
      const row = await tx.get<{ n: number }>(
        `SELECT count(*) AS n FROM accounts a
         WHERE a.enabled = 1 AND a.totp_enabled = 1 AND a.role IN (${roles.map((_, i) => `@r${i}`).join(', ')})
           AND a.id <> @except
           AND (@merchant = 0 OR a.all_merchants = 1 OR EXISTS (SELECT 1 FROM account_merchants m WHERE m.account_id = a.id AND m.merchant_id = @merchant))`,
        { ...Object.fromEntries(roles.map((r, i) => [`r${i}`, r])), except: exceptId ?? 0, merchant: merchantId ?? 0 },
      );
      return row!.n;
    },
  };
}
export type AccountRepository = ReturnType<typeof createAccountRepository>;
