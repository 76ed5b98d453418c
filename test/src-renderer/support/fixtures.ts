/** Realistic contract-shaped data for component tests. */
import type { ConsoleResponse } from '../../../src-shared/console-api/contract';
import { ROLE_PERMISSIONS, roleNeedsTotp, type Role } from '../../../src-shared/auth/permissions';
import type { AccountView, ApprovalView, SessionView } from '../../../src-shared/schemas/accounts';

type Channel = ConsoleResponse<'listPayChannels'>['list'][number];

export function channel(overrides: Partial<Channel> & Pick<Channel, 'id' | 'category'>): Channel {
  const pay_methods = overrides.pay_methods ?? ['wxpay', 'alipay', 'bank'];
  return {
    name: `Sandbox ${overrides.category}`,
    pay_method: pay_methods.join(','),
    category_text: overrides.category[0]!.toUpperCase() + overrides.category.slice(1),
    pay_method_text: pay_methods.map((m) => m[0]!.toUpperCase() + m.slice(1)).join(','),
    createtime: 1767225600,
    updatetime: 1767225600,
    pay_methods,
    min_amount: '1.00',
    max_amount: '50000.00',
    fees: { service_rate: '0.006', passage_rate: '0.002', deposit_rate: 50, base_rate: 30 },
    ...overrides,
  };
}

export const MERCHANT = {
  id: 1,
  name: 'Demo Merchant',
  api_key: 'mk_demo_0001',
  sign_type: 'hmac-sha256' as const,
  callback_url: null,
  enabled: true,
  console_withdrawal_threshold: 0,
  api_withdrawal_threshold: null,
  createtime: 1767225600,
  updatetime: 1767225600,
};

export function account(overrides: Partial<AccountView> & Pick<AccountView, 'id' | 'login' | 'role'>): AccountView {
  return {
    display_name: overrides.login[0]!.toUpperCase() + overrides.login.slice(1),
    merchant_ids: null,
    enabled: true,
    totp_enabled: roleNeedsTotp(overrides.role),
    totp_required: roleNeedsTotp(overrides.role),
    createtime: 1767225600,
    updatetime: 1767225600,
    ...overrides,
  };
}

/** A full session of an account of `role` (its permissions from the one table), as getSession answers. */
export function sessionOf(role: Role, overrides: Partial<SessionView> = {}, accountOverrides: Partial<AccountView> = {}): SessionView {
  return {
    account: account({ id: 1, login: role, role, ...accountOverrides }),
    permissions: [...ROLE_PERMISSIONS[role]],
    desktop: false,
    stage: 'full',
    approvals_waiting: 0,
    ...overrides,
  };
}

export const OWNER_SESSION = sessionOf('owner');

export function approval(overrides: Partial<ApprovalView> & Pick<ApprovalView, 'id'>): ApprovalView {
  return {
    kind: 'withdrawal',
    state: 'pending',
    merchant_id: 1,
    merchant_name: 'Demo Merchant',
    requested_by: { id: 2, login: 'olivia', display_name: 'Olivia Operator' },
    requested_via: 'console',
    title: 'Withdrawal of 5000.00 CNY for Demo Merchant (sell order on Sandbox beta)',
    title_params: { amount: '5000.00', merchant: 'Demo Merchant', channel: 'Sandbox beta' },
    changes: [
      { key: 'amount_paid_out', label: 'amount paid out', before: null, after: '5000.00' },
      { key: 'service_fee', label: 'service fee', before: null, after: '30.00' },
      { key: 'available_balance', label: 'available balance', before: '10000.00', after: '4945.00' },
    ],
    createtime: 1767225600,
    expires_at: 1767312000,
    decided_by: null,
    decided_at: null,
    decision_note: null,
    outcome: null,
    can_decide: true,
    mine: false,
    can_reveal_secret: false,
    ...overrides,
  };
}
