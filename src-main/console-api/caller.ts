/**
 * Who makes a console call, as both transports establish it before the
 * handler runs: a signed-in account (browser console, or the desktop app
 * signed in to a team server), or the person at the desktop app on its own
 * store (the owner: the operating-system account is the boundary).
 */
import { ROLE_PERMISSIONS, roleCan, type Permission, type Role } from '../../src-shared/auth/permissions';
import type { ApprovalParty } from '../services/approval-service';
import type { AuditActor } from '../services/audit-service';

export interface AccountCaller {
  kind: 'account';
  accountId: number;
  login: string;
  role: Role;
  /** null: every merchant (platform staff). */
  merchantIds: readonly number[] | null;
  sessionId: string;
  /** password: the TOTP code is awaited; enrol: two-factor sign-in must be enrolled first; full. */
  stage: 'password' | 'enrol' | 'full';
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

/** Who the audit trail names for a caller's actions. */
export function auditActorOf(caller: Caller): AuditActor {
  return caller.kind === 'account'
    ? { kind: 'account', accountId: caller.accountId, login: caller.login, role: caller.role, address: caller.address, userAgent: caller.userAgent }
    : { kind: 'desktop', accountId: caller.accountId, login: caller.login, role: caller.role };
}

/** The caller as the approval service sees it. */
export function approvalPartyOf(caller: Caller): ApprovalParty {
  return {
    accountId: caller.accountId,
    role: caller.role,
    via: caller.kind === 'desktop' ? 'desktop' : 'console',
    merchantIds: caller.merchantIds,
    platform: caller.merchantIds === null,
    audit: auditActorOf(caller),
  };
}

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
