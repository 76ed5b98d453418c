/**
 * Who makes a console call, as both transports establish it before the
 * handler runs: a signed-in account (browser console, or the desktop app
 * signed in to a team server), or the person at the desktop app on its own
 * store (the owner: the operating-system account is the boundary).
 */
import { ROLE_PERMISSIONS, roleCan, type Permission, type Role } from '../../src-shared/auth/permissions';

export interface AccountCaller {
  kind: 'account';
  accountId: number;
  login: string;
  role: Role;
  /** null: every merchant (platform staff). */
  merchantIds: readonly number[] | null;
  sessionId: string;
  address: string | null;
  userAgent: string | null;
}

export interface DesktopCaller {
  kind: 'desktop';
  role: 'owner';
  merchantIds: null;
  /** The account that stands for the desktop user (created on first start), for approvals and the audit trail. */
  accountId: number;
  login: string;
}

export type Caller = AccountCaller | DesktopCaller;

export function callerCan(caller: Caller, permission: Permission): boolean {
  return roleCan(caller.role, permission);
}

export function permissionsOf(caller: Caller): readonly Permission[] {
  return ROLE_PERMISSIONS[caller.role];
}

/** Whether the caller may act for this merchant. */
export function callerServes(caller: Caller, merchantId: number): boolean {
  return caller.merchantIds === null || caller.merchantIds.includes(merchantId);
}

/** Platform staff: every merchant. */
export function isPlatformCaller(caller: Caller): boolean {
  return caller.merchantIds === null;
}
