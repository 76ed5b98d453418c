/**
 * Roles and what they may do: the one permission table (docs/accounts.md).
 * Every console-API method names the permission it needs in the contract
 * (src-shared/console-api/contract.ts); both transports check it, and the
 * merchant scope, before the handler runs. The UI hides what an account may
 * not do from the same table; the service's check is what counts.
 */

export const ROLES = ['owner', 'admin', 'finance', 'operator', 'developer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const PERMISSIONS = [
  /** See orders, balances, the ledger, channels of a merchant, the dashboard; export CSV. */
  'orders.read',
  /** Create buy orders in the console. */
  'orders.create',
  /** Request a withdrawal (a sell order; held for approval above the merchant's threshold). */
  'orders.withdraw',
  /** Cancel a pending order or a confirmed sell. */
  'orders.cancel',
  /** Sandbox outcomes (pay, complete, fail) and callback resends. */
  'sandbox.simulate',
  'callbacks.resend',
  /** Merchants: see them (never their secrets). */
  'merchants.read',
  /** Merchants: create, rename, enable or disable, withdrawal thresholds. */
  'merchants.manage',
  /** A merchant's callback URL and sign type (developer settings). */
  'merchants.developer',
  /** Request a new API secret (needs approval). */
  'merchants.rotate_secret',
  /** Channels and links: see them (credentials masked). */
  'channels.read',
  /** Channels and links: create, change (not credentials), link, unlink. */
  'channels.manage',
  /** Request new channel credentials (needs approval). */
  'channels.credentials',
  /** Settlement accounts (payees of sells). */
  'payment_methods.manage',
  /** Request a balance adjustment (needs approval). */
  'balances.adjust',
  /** See approval requests (own, or all for approvers). */
  'approvals.read',
  /** Approve or reject someone else's request (with a fresh TOTP code). */
  'approvals.decide',
  /** Accounts: see, create, disable, reset; request role changes (needs approval). */
  'accounts.manage',
  /** The audit trail. */
  'audit.read',
  /** Listener settings. */
  'settings.manage',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const READ_ONLY: readonly Permission[] = ['orders.read', 'merchants.read', 'channels.read', 'approvals.read'];

/** role → permissions. The owner can do everything; nobody approves their own request (approval service). */
export const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  owner: PERMISSIONS,
  admin: [
    ...READ_ONLY,
    'orders.create',
    'orders.withdraw',
    'orders.cancel',
    'sandbox.simulate',
    'callbacks.resend',
    'merchants.manage',
    'merchants.developer',
    'merchants.rotate_secret',
    'channels.manage',
    'channels.credentials',
    'payment_methods.manage',
    'balances.adjust',
    'accounts.manage',
    'audit.read',
    'settings.manage',
  ],
  finance: [...READ_ONLY, 'orders.withdraw', 'balances.adjust', 'payment_methods.manage', 'approvals.decide', 'audit.read'],
  operator: [...READ_ONLY, 'orders.create', 'orders.withdraw', 'orders.cancel', 'callbacks.resend'],
  developer: [...READ_ONLY, 'merchants.developer', 'merchants.rotate_secret', 'callbacks.resend', 'sandbox.simulate'],
  viewer: READ_ONLY,
};

export function roleCan(role: Role, permission: Permission): boolean {
  return ROLE_PERMISSIONS[role].includes(permission);
}

/** Roles that may be limited to some merchants; owner and admin are always platform-wide. */
export const MERCHANT_LIMITABLE_ROLES: readonly Role[] = ['finance', 'operator', 'developer', 'viewer'];

/** Whether an account of this role must use two-factor sign-in (it can approve). */
export function roleNeedsTotp(role: Role): boolean {
  return roleCan(role, 'approvals.decide');
}
