/**
 * Staff accounts (docs/accounts.md): created by an owner or admin (or the
 * CLI), with a role and, for roles that allow it, a list of merchants; a
 * password of at least 12 characters (scrypt, auth/password-hash.ts);
 * two-factor codes (TOTP) enrolled by the account itself, required for
 * every role that can approve. A role changes only through a second
 * person's approval (approval-service.ts). Every change is audited in the
 * same unit of work. Sign-in itself: sign-in-service.ts.
 */
import { MERCHANT_LIMITABLE_ROLES, roleNeedsTotp, type Role } from '../../src-shared/auth/permissions';
import { AppError, ErrorCode } from '../../src-shared/errors';
import type { AccountCreateInput, AccountUpdateInput, AccountView } from '../../src-shared/schemas/accounts';
import { totpStepOf } from '../auth/totp';
import type { SecretBox } from '../crypto/secret-box';
import type { AccountRepository, AccountRow } from '../repositories/account-repository';
import type { MerchantRepository } from '../repositories/merchant-repository';
import type { ReadTx, WriteTx } from '../store/store';
import type { AuditActor, AuditService } from './audit-service';
import type { Clock } from './context';

/** The account that stands for the person at the desktop app on its own store. */
export const DESKTOP_OWNER_LOGIN = 'desktop';

/** A password hash nothing verifies against (an account that signs in no other way yet). */
export const NO_PASSWORD = '!';

export interface AccountServiceDeps {
  clock: Clock;
  secretBox: SecretBox;
  accounts: AccountRepository;
  merchants: MerchantRepository;
  audit: AuditService;
  /** Ends every session of an account (sign-in-service), e.g. when it is disabled or its password reset. */
  endSessionsOf(tx: WriteTx, accountId: number): Promise<number>;
}

export function createAccountService(deps: AccountServiceDeps) {
  const { clock, accounts, audit } = deps;

  async function view(tx: ReadTx, row: AccountRow): Promise<AccountView> {
    return {
      id: row.id,
      login: row.login,
      display_name: row.display_name,
      role: row.role,
      merchant_ids: row.all_merchants === 1 ? null : await accounts.merchantsOf(tx, row.id),
      enabled: row.enabled === 1,
      totp_enabled: row.totp_enabled === 1,
      totp_required: roleNeedsTotp(row.role),
      createtime: row.createtime,
      updatetime: row.updatetime,
    };
  }

  async function require(tx: ReadTx, id: number): Promise<AccountRow> {
    const row = await accounts.findById(tx, id);
    if (!row) throw new AppError(ErrorCode.NOT_FOUND, `id: account ${id} not found`);
    return row;
  }

  async function checkMerchants(tx: ReadTx, role: Role, merchantIds: readonly number[] | null): Promise<void> {
    if (merchantIds === null) return;
    if (!MERCHANT_LIMITABLE_ROLES.includes(role)) throw new AppError(ErrorCode.VALIDATION, `merchant_ids: a ${role} acts for every merchant; only ${MERCHANT_LIMITABLE_ROLES.join(', ')} can be limited`);
    if (merchantIds.length === 0) throw new AppError(ErrorCode.VALIDATION, 'merchant_ids: give at least one merchant, or null for every merchant');
    for (const m of merchantIds) {
      if (!(await deps.merchants.findById(tx, m))) throw new AppError(ErrorCode.VALIDATION, `merchant_ids: merchant ${m} not found`);
    }
  }

  /** An owner must remain: the last enabled one cannot be disabled or lose the role. */
  async function keepAnOwner(tx: ReadTx, row: AccountRow): Promise<void> {
    if (row.role !== 'owner' || row.enabled !== 1) return;
    const owners = (await accounts.list(tx)).filter((a) => a.role === 'owner' && a.enabled === 1);
    if (owners.length <= 1) throw new AppError(ErrorCode.CONFLICT, `id: ${row.login} is the last enabled owner; make another owner first`);
  }

  return {
    view,
    require,
    findByLogin: (tx: ReadTx, login: string) => accounts.findByLogin(tx, login),

    async list(tx: ReadTx): Promise<AccountView[]> {
      const rows = await accounts.list(tx);
      const out: AccountView[] = [];
      for (const row of rows) out.push(await view(tx, row));
      return out;
    },

    /**
     * A new account. `passwordHash` is made beforehand, outside the unit of
     * work (hashPassword), or NO_PASSWORD: the account gets its first
     * password through a one-time link (the CLI).
     */
    async create(tx: WriteTx, actor: AuditActor, input: Omit<AccountCreateInput, 'password'>, passwordHash: string): Promise<AccountView> {
      if (input.login === DESKTOP_OWNER_LOGIN) throw new AppError(ErrorCode.VALIDATION, `login: "${DESKTOP_OWNER_LOGIN}" is reserved for the desktop app's owner`);
      if (await accounts.findByLogin(tx, input.login)) throw new AppError(ErrorCode.CONFLICT, `login: ${input.login} is taken`);
      const merchantIds = input.merchant_ids ?? null;
      await checkMerchants(tx, input.role, merchantIds);
      const now = clock.now();
      const id = await accounts.insert(tx, {
        login: input.login,
        display_name: input.display_name,
        password_hash: passwordHash,
        role: input.role,
        all_merchants: merchantIds === null ? 1 : 0,
        enabled: 1,
        password_changed_at: now,
        createtime: now,
      });
      if (merchantIds !== null) await accounts.setMerchants(tx, id, merchantIds, now);
      const created = await view(tx, await require(tx, id));
      await audit.record(tx, actor, { action: 'account.create', target: `account ${input.login}`, after: created });
      return created;
    },

    async update(tx: WriteTx, actor: AuditActor, input: AccountUpdateInput): Promise<AccountView> {
      const row = await require(tx, input.id);
      const before = await view(tx, row);
      if (input.enabled === false) await keepAnOwner(tx, row);
      if (input.merchant_ids !== undefined) await checkMerchants(tx, row.role, input.merchant_ids);
      const now = clock.now();
      await accounts.update(tx, row.id, {
        ...(input.display_name !== undefined ? { display_name: input.display_name } : {}),
        ...(input.enabled !== undefined ? { enabled: input.enabled ? 1 : 0 } : {}),
      }, now);
      if (input.merchant_ids !== undefined) await accounts.setMerchants(tx, row.id, input.merchant_ids, now);
      // A disabled account is signed out everywhere at once.
      if (input.enabled === false) await deps.endSessionsOf(tx, row.id);
      const after = await view(tx, await require(tx, row.id));
      await audit.record(tx, actor, { action: input.enabled === false ? 'account.disable' : 'account.update', target: `account ${row.login}`, before, after });
      return after;
    },

    /** The account a role change is asked for, checked now (done on approval). */
    async roleChangeTarget(tx: ReadTx, id: number, role: Role): Promise<AccountRow> {
      const row = await require(tx, id);
      if (row.role === role) throw new AppError(ErrorCode.CONFLICT, `role: ${row.login} is a ${role} already`);
      if (role !== 'owner' && row.role === 'owner') await keepAnOwner(tx, row);
      if (row.all_merchants === 0 && !MERCHANT_LIMITABLE_ROLES.includes(role)) {
        throw new AppError(ErrorCode.VALIDATION, `role: ${row.login} acts for some merchants only; a ${role} acts for every merchant (change the merchants first)`);
      }
      return row;
    },

    /** The approval executor of a role change. */
    async setRole(tx: WriteTx, id: number, role: Role): Promise<AccountView> {
      const row = await require(tx, id);
      if (role !== 'owner' && row.role === 'owner') await keepAnOwner(tx, row);
      await accounts.update(tx, id, { role }, clock.now());
      // Sessions carry what the role allowed when they began: sign in again under the new role.
      await deps.endSessionsOf(tx, id);
      return view(tx, await require(tx, id));
    },

    /**
     * A password change by the account itself. The current password was
     * checked and the new one hashed beforehand (outside the unit of work);
     * `checkedHash` is the hash the current password was checked against:
     * when it changed meanwhile, nothing is changed.
     */
    async changePassword(tx: WriteTx, actor: AuditActor, accountId: number, checkedHash: string, nextHash: string): Promise<void> {
      const row = await require(tx, accountId);
      if (row.password_hash !== checkedHash) throw new AppError(ErrorCode.CONFLICT, 'current_password: the password was changed meanwhile; sign in again');
      await accounts.update(tx, accountId, { password_hash: nextHash, password_changed_at: clock.now() }, clock.now());
      await audit.record(tx, actor, { action: 'account.password_change', target: `account ${row.login}` });
    },

    /** Sets a password (hashed beforehand) without the old one: a one-time link, the desktop's app lock. Other sessions end. */
    async setPassword(tx: WriteTx, actor: AuditActor, accountId: number, nextHash: string): Promise<void> {
      const row = await require(tx, accountId);
      await accounts.update(tx, accountId, { password_hash: nextHash, password_changed_at: clock.now() }, clock.now());
      await deps.endSessionsOf(tx, accountId);
      await audit.record(tx, actor, { action: 'account.password_set', target: `account ${row.login}` });
    },

    /**
     * Keeps a new TOTP secret (sealed) until a code from the app confirms it.
     * The secret and its QR code are made beforehand (newTotpEnrolment,
     * outside the unit of work).
     */
    async beginTotp(tx: WriteTx, actor: AuditActor, accountId: number, secret: string): Promise<void> {
      const row = await require(tx, accountId);
      if (row.totp_enabled === 1) throw new AppError(ErrorCode.CONFLICT, 'two-factor sign-in is on already; an owner or admin can reset it');
      await accounts.setTotp(tx, accountId, deps.secretBox.seal(secret), false, clock.now());
      await audit.record(tx, actor, { action: 'account.totp_begin', target: `account ${row.login}` });
    },

    async confirmTotp(tx: WriteTx, actor: AuditActor, accountId: number, code: string): Promise<void> {
      const row = await require(tx, accountId);
      if (row.totp_enabled === 1) throw new AppError(ErrorCode.CONFLICT, 'two-factor sign-in is on already');
      if (!row.totp_secret_enc) throw new AppError(ErrorCode.CONFLICT, 'code: start the enrolment first');
      const step = totpStepOf(deps.secretBox.open(row.totp_secret_enc), row.login, code, clock.now());
      if (step === null) throw new AppError(ErrorCode.VALIDATION, 'code: is not the code the app shows now (check the phone\'s clock)');
      await accounts.setTotp(tx, accountId, row.totp_secret_enc, true, clock.now());
      await accounts.useTotpStep(tx, accountId, step);
      await audit.record(tx, actor, { action: 'account.totp_enable', target: `account ${row.login}` });
    },

    /**
     * Checks a fresh code of an enrolled account and marks its time step
     * used (a code never works twice). Throws SIGN_IN_FAILED-free errors:
     * a VALIDATION naming `totp_code` (approvals) — sign-in answers alike.
     */
    async verifyTotp(tx: WriteTx, accountId: number, code: string): Promise<void> {
      const row = await require(tx, accountId);
      if (row.totp_enabled !== 1 || !row.totp_secret_enc) {
        throw new AppError(ErrorCode.PERMISSION_DENIED, 'totp_code: this account has no two-factor sign-in; enrol it first (Account → Two-factor)');
      }
      const step = totpStepOf(deps.secretBox.open(row.totp_secret_enc), row.login, code, clock.now());
      if (step === null || !(await accounts.useTotpStep(tx, accountId, step))) {
        throw new AppError(ErrorCode.VALIDATION, 'totp_code: wrong or already used; enter the code the app shows now');
      }
    },

    async resetTotp(tx: WriteTx, actor: AuditActor, id: number): Promise<AccountView> {
      const row = await require(tx, id);
      await accounts.setTotp(tx, id, null, false, clock.now());
      await deps.endSessionsOf(tx, id);
      const after = await view(tx, await require(tx, id));
      await audit.record(tx, actor, { action: 'account.totp_reset', target: `account ${row.login}` });
      return after;
    },

    /**
     * The desktop app's own store: the person at the computer is the owner,
     * as an account of its own (for approvals and the audit trail), made on
     * first start. It has no password until the app lock sets one.
     */
    async ensureDesktopOwner(tx: WriteTx): Promise<AccountRow> {
      const existing = await accounts.findByLogin(tx, DESKTOP_OWNER_LOGIN);
      if (existing) return existing;
      const now = clock.now();
      const id = await accounts.insert(tx, {
        login: DESKTOP_OWNER_LOGIN,
        display_name: 'Desktop owner',
        password_hash: NO_PASSWORD,
        role: 'owner',
        all_merchants: 1,
        enabled: 1,
        password_changed_at: now,
        createtime: now,
      });
      const row = await require(tx, id);
      await audit.record(tx, { kind: 'desktop', accountId: id, login: DESKTOP_OWNER_LOGIN, role: 'owner' }, { action: 'account.create', target: `account ${DESKTOP_OWNER_LOGIN}`, after: await view(tx, row) });
      return row;
    },
  };
}
export type AccountService = ReturnType<typeof createAccountService>;
