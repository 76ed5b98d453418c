/**
 * The staff forms' rules (sign-in, first-owner setup, password links, the
 * account and accounts pages, approval decisions), each decided by the
 * field schema the service validates with (src-shared/schemas/accounts.ts).
 */
import { approvalRejectInput, loginField, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, passwordField, setupInput, signInInput, totpCodeField } from '../../src-shared/schemas/accounts';
import { yuanThreshold } from '../../src-shared/schemas/fields';
import type { FieldCheck } from './field-check';
import { sameAs, schemaCheck } from './schema-check';

export const PASSWORD_PARAMS = { min: PASSWORD_MIN_LENGTH, max: PASSWORD_MAX_LENGTH };

export function loginCheck<M>(pick: (m: M) => string): FieldCheck<M> {
  return schemaCheck(loginField, pick, 'staffRules.login');
}

export function passwordCheck<M>(pick: (m: M) => string): FieldCheck<M> {
  return schemaCheck(passwordField, pick, 'staffRules.password', PASSWORD_PARAMS);
}

/** A new password given twice (components/new-password-fields.vue): the service's rule, and the confirmation repeating it. */
export function newPasswordChecks<M extends { confirm: string }>(pick: (m: M) => string): { password: FieldCheck<M>; confirm: FieldCheck<M> } {
  return { password: passwordCheck(pick), confirm: sameAs((m) => m.confirm, pick) };
}

export function displayNameCheck<M>(pick: (m: M) => string): FieldCheck<M> {
  return schemaCheck(setupInput.shape.display_name, pick, 'staffRules.displayName');
}

export function totpCheck<M>(pick: (m: M) => string): FieldCheck<M> {
  return schemaCheck(totpCodeField, pick, 'staffRules.totpCode');
}

/** Sign-in takes any name and password (it never says which was wrong): only "given". */
export function signInLoginCheck<M>(pick: (m: M) => string): FieldCheck<M> {
  return schemaCheck(signInInput.shape.login, pick, 'staffRules.loginRequired');
}

export function signInPasswordCheck<M>(pick: (m: M) => string): FieldCheck<M> {
  return schemaCheck(signInInput.shape.password, pick, 'staffRules.passwordRequired');
}

/** A rejection's note (required), as rejectRequest takes it. */
export function rejectNoteCheck<M>(pick: (m: M) => string): FieldCheck<M> {
  return schemaCheck(approvalRejectInput.shape.note, pick, 'staffRules.note');
}

/** A withdrawal threshold in yuan ("0" allowed). */
export function thresholdCheck<M>(pick: (m: M) => string): FieldCheck<M> {
  return schemaCheck(yuanThreshold, pick, 'staffRules.threshold');
}
