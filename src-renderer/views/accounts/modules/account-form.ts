/**
 * The accounts page's forms: a new account (login, display name, first
 * password twice, role, merchants) and an account's name and merchants. The
 * rules are the service's schemas (forms/account-rules.ts); owners and
 * admins are always platform staff, the other roles may be limited to some
 * merchants (src-shared/auth/permissions.ts).
 */
import { MERCHANT_LIMITABLE_ROLES, type Role } from '../../../../src-shared/auth/permissions';
import type { AccountView } from '../../../../src-shared/schemas/accounts';
import { displayNameCheck, loginCheck, newPasswordChecks } from '../../../forms/account-rules';
import { problem, type FormChecks } from '../../../forms/field-check';

export type MerchantScope = 'all' | 'some';

export interface ScopeModel {
  role: Role;
  scope: MerchantScope;
  merchant_ids: number[];
}

export interface AccountCreateModel extends ScopeModel {
  login: string;
  display_name: string;
  password: string;
  confirm: string;
}

export interface AccountEditModel extends ScopeModel {
  display_name: string;
}

export function limitable(role: Role): boolean {
  return MERCHANT_LIMITABLE_ROLES.includes(role);
}

export function emptyAccountCreate(): AccountCreateModel {
  return { login: '', display_name: '', password: '', confirm: '', role: 'operator', scope: 'all', merchant_ids: [] };
}

export function accountEditModel(account: AccountView): AccountEditModel {
  return {
    display_name: account.display_name,
    role: account.role,
    scope: account.merchant_ids === null ? 'all' : 'some',
    merchant_ids: [...(account.merchant_ids ?? [])],
  };
}

/** null: every merchant (platform staff), as the service takes it. */
export function merchantIdsOf(m: ScopeModel): number[] | null {
  return !limitable(m.role) || m.scope === 'all' ? null : [...m.merchant_ids];
}

function merchantsCheck<M extends ScopeModel>(m: M) {
  return merchantIdsOf(m)?.length === 0 ? problem('staffRules.merchantsRequired') : null;
}

export const accountCreateChecks: FormChecks<AccountCreateModel> = {
  login: loginCheck((m) => m.login),
  display_name: displayNameCheck((m) => m.display_name),
  ...newPasswordChecks((m: AccountCreateModel) => m.password),
  merchant_ids: merchantsCheck,
};

export const accountEditChecks: FormChecks<AccountEditModel> = {
  display_name: displayNameCheck((m) => m.display_name),
  merchant_ids: merchantsCheck,
};
