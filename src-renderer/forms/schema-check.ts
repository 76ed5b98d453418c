/**
 * Field checks decided by the service's own zod field schemas
 * (src-shared/schemas): a form refuses exactly what the service would refuse,
 * and says so in the UI's language (the schemas' messages are the API's
 * English, so the message is the form's own key).
 */
import type { z } from 'zod';
import { problem, type CheckProblem, type FieldCheck } from './field-check';
import type { MessageKey, MessageParams } from '../i18n';

/** `schema` must accept `pick(model)`; else `key` (with `params`) is the problem. */
export function schemaCheck<M>(schema: z.ZodType, pick: (model: M) => unknown, key: MessageKey, params?: MessageParams): FieldCheck<M> {
  const failed: CheckProblem = problem(key, params);
  return (model) => (schema.safeParse(pick(model)).success ? null : failed);
}

/** The confirmation must repeat the password (a typo in a hidden field would lock the person out). */
export function sameAs<M>(pick: (model: M) => string, other: (model: M) => string): FieldCheck<M> {
  return (model) => (pick(model) === other(model) ? null : problem('staffRules.passwordMismatch'));
}
