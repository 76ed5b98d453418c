/**
 * Staff accounts, sessions, two-person approval and the audit trail, as the
 * console API carries them (docs/accounts.md).
 */
import { z } from 'zod';
import { PERMISSIONS, ROLES } from '../auth/permissions';
import { boundedText, positiveId } from './fields';

/** Sign-in names: lowercase letters, digits, dot, dash, underscore; 3-64 characters. */
export const LOGIN_PATTERN = /^[a-z0-9][a-z0-9._-]{2,63}$/;
export const loginField = z
  .string()
  .trim()
  .transform((v) => v.toLowerCase())
  .pipe(z.string().regex(LOGIN_PATTERN, { error: 'must be 3-64 characters: letters, digits, . _ - (starting with a letter or digit)' }));

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;
export const passwordField = z
  .string()
  .min(PASSWORD_MIN_LENGTH, { error: `must be at least ${PASSWORD_MIN_LENGTH} characters` })
  .max(PASSWORD_MAX_LENGTH, { error: `must be at most ${PASSWORD_MAX_LENGTH} characters` });

/** A six-digit TOTP code (RFC 6238, 30 s steps). */
export const totpCodeField = z
  .string()
  .trim()
  .regex(/^[0-9]{6}$/, { error: 'must be the 6 digits your authenticator app shows' });

export const roleField = z.enum(ROLES);
export const permissionField = z.enum(PERMISSIONS);

/** null or absent: every merchant (platform staff); a list: only those merchants. */
export const merchantIdsField = z.array(positiveId).max(1000).nullable();

export const accountView = z.object({
  id: z.int(),
  login: z.string(),
  display_name: z.string(),
  role: roleField,
  /** null: every merchant (platform staff). */
  merchant_ids: z.array(z.int()).nullable(),
  enabled: z.boolean(),
  totp_enabled: z.boolean(),
  /** The role can approve, so two-factor sign-in is required. */
  totp_required: z.boolean(),
  createtime: z.int(),
  updatetime: z.int(),
});
export type AccountView = z.infer<typeof accountView>;

/** Who is signed in and what they may do (the UI hides the rest). */
export const sessionView = z.object({
  account: accountView,
  permissions: z.array(permissionField),
  /** The person at the desktop app on its own store (no sign-in). */
  desktop: z.boolean(),
  /** full; enrol: two-factor sign-in must be enrolled before anything else; password: the code is awaited. */
  stage: z.enum(['password', 'enrol', 'full']),
  /** Approval requests this account may decide, now (the inbox badge). */
  approvals_waiting: z.int(),
});
export type SessionView = z.infer<typeof sessionView>;

export const accountCreateInput = z.strictObject({
  login: loginField,
  display_name: boundedText(64),
  password: passwordField,
  role: roleField,
  merchant_ids: merchantIdsField.optional(),
});
export type AccountCreateInput = z.output<typeof accountCreateInput>;

/** Name, enabled flag and merchants; the role changes only through an approval (requestRoleChange). */
export const accountUpdateInput = z.strictObject({
  id: positiveId,
  display_name: boundedText(64).optional(),
  enabled: z.boolean().optional(),
  merchant_ids: merchantIdsField.optional(),
});
export type AccountUpdateInput = z.output<typeof accountUpdateInput>;

export const roleChangeInput = z.strictObject({ id: positiveId, role: roleField });

export const passwordChangeInput = z.strictObject({ current_password: z.string().max(PASSWORD_MAX_LENGTH), new_password: passwordField });

/** A one-time link (password reset) for an account; the link itself is shown only in this answer. */
export const oneTimeLinkView = z.object({ url: z.string(), expires_at: z.int() });

export const totpEnrolmentView = z.object({
  /** Base32, for typing into an app that cannot scan. */
  secret: z.string(),
  otpauth_uri: z.string(),
  /** The otpauth URI as a QR code (data:image/png;base64,…). */
  qr_data_url: z.string(),
});

// ------------------------------------------------------------------ approvals

export const APPROVAL_KINDS = ['balance_adjustment', 'withdrawal', 'secret_rotation', 'channel_credentials', 'account_role'] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];
export const APPROVAL_STATES = ['pending', 'approved', 'rejected', 'expired', 'cancelled', 'failed'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

/** What a change line is about: the console shows it in its own language by this key. */
export const APPROVAL_CHANGE_KEYS = [
  'amount_paid_out',
  'service_fee',
  'passage_fee',
  'deposit',
  'taken_from_available',
  'available_balance',
  'adjustment',
  'reason',
  'role',
  'api_secret',
  'credential_keys',
] as const;
export type ApprovalChangeKey = (typeof APPROVAL_CHANGE_KEYS)[number];

/**
 * One line of what a request changes: a value before and after (amounts in
 * yuan), with the line's key and an English label (the CLI, logs). For
 * `role` the values are role names; for `api_secret` they are `current` and
 * `new` (the secret itself is never shown here).
 */
export const approvalChangeLine = z.object({
  key: z.enum(APPROVAL_CHANGE_KEYS),
  label: z.string(),
  before: z.string().nullable(),
  after: z.string().nullable(),
});
export type ApprovalChangeLine = z.infer<typeof approvalChangeLine>;

export const accountRef = z.object({ id: z.int(), login: z.string(), display_name: z.string() });

export const approvalView = z.object({
  id: z.int(),
  kind: z.enum(APPROVAL_KINDS),
  state: z.enum(APPROVAL_STATES),
  merchant_id: z.int().nullable(),
  merchant_name: z.string().nullable(),
  /** null: the merchant API asked (a held API withdrawal). */
  requested_by: accountRef.nullable(),
  requested_via: z.enum(['console', 'api', 'desktop']),
  /** What will change, exactly (amounts with fees, before and after); `title` in English, `title_params` for the console's own words per kind. */
  title: z.string(),
  title_params: z.record(z.string(), z.string()),
  changes: z.array(approvalChangeLine),
  createtime: z.int(),
  expires_at: z.int(),
  decided_by: accountRef.nullable(),
  decided_at: z.int().nullable(),
  decision_note: z.string().nullable(),
  /** What the approval did (e.g. the order number), once approved. */
  outcome: z.string().nullable(),
  /** This caller may approve or reject it now (not their own, pending, allowed). */
  can_decide: z.boolean(),
  /** This caller asked for it (and may cancel it while pending). */
  mine: z.boolean(),
  /** An approved API-secret rotation this caller asked for whose new secret was not shown yet (revealRotatedSecret, once). */
  can_reveal_secret: z.boolean(),
});
export type ApprovalView = z.infer<typeof approvalView>;

/** What an action that may need a second person's approval answers: done now, or waiting. */
export function doneOrPending<T extends z.ZodType>(done: T) {
  return z.object({ done: done.nullable(), approval: approvalView.nullable() });
}

export const approvalListInput = z.strictObject({
  state: z.enum(APPROVAL_STATES).optional(),
  merchant_id: positiveId.optional(),
  page: z.int().min(1).max(100_000).default(1),
  limit: z.int().min(1).max(100).default(20),
});

export const approvalListView = z.object({ list: z.array(approvalView), total: z.int(), page: z.int(), limit: z.int() });

export const approvalDecisionInput = z.strictObject({
  id: positiveId,
  /** A fresh code from the approver's authenticator (approving only). */
  totp_code: totpCodeField,
  note: z.string().trim().max(256).optional(),
});
export const approvalRejectInput = z.strictObject({ id: positiveId, note: z.string().trim().min(1).max(256) });

// ------------------------------------------------------------------ audit

/** merchant: a signed merchant-API request (a held withdrawal), named by its api_key. */
export const AUDIT_ACTOR_KINDS = ['account', 'cli', 'desktop', 'system', 'anonymous', 'merchant'] as const;

export const auditEntryView = z.object({
  id: z.int(),
  at: z.int(),
  actor_kind: z.enum(AUDIT_ACTOR_KINDS),
  account_login: z.string().nullable(),
  role: z.string().nullable(),
  address: z.string().nullable(),
  user_agent: z.string().nullable(),
  action: z.string(),
  target: z.string(),
  merchant_id: z.int().nullable(),
  /** JSON values, secrets redacted. */
  before: z.unknown().nullable(),
  after: z.unknown().nullable(),
  hash: z.string(),
});
export type AuditEntryView = z.infer<typeof auditEntryView>;

export const auditFilters = {
  account_login: z.string().trim().min(1).max(64).optional(),
  action: z.string().trim().min(1).max(64).optional(),
  merchant_id: positiveId.optional(),
  start_time: z.int().min(0).optional(),
  end_time: z.int().min(0).optional(),
};

export const AUDIT_PAGE_MAX = 200;
export const auditPageInput = z.strictObject({ ...auditFilters, before_id: positiveId.optional(), limit: z.int().min(1).max(AUDIT_PAGE_MAX).default(50) });
export const auditPageView = z.object({ list: z.array(auditEntryView), next_before_id: z.int().nullable() });

// ------------------------------------------------------------------ sign-in (before a session exists)

/** Any text: a sign-in never says whether the name exists (the one failure answer). */
export const signInInput = z.strictObject({
  login: z.string().trim().min(1, { error: 'is required' }).max(64),
  password: z.string().min(1, { error: 'is required' }).max(PASSWORD_MAX_LENGTH),
});
export const signInTotpInput = z.strictObject({ code: totpCodeField });
/** The first owner, from the one-time setup link `serve` prints on a store without accounts. */
export const setupInput = z.strictObject({
  token: z.string().min(1).max(200),
  login: loginField,
  display_name: boundedText(64),
  password: passwordField,
});
/** A password from a one-time link (a reset, or a new account's first password). */
export const passwordLinkInput = z.strictObject({ token: z.string().min(1).max(200), password: passwordField });
/** Where signing in stands: full; password (enter the code next); enrol (set up two-factor sign-in next). */
export const signInView = z.object({ stage: z.enum(['password', 'enrol', 'full']) });
export type SignInView = z.infer<typeof signInView>;
