/**
 * Form rules as pure checks (value, whole form) → null or a message key.
 * Pure so they are tested without a DOM; `toFormRules` turns them into Naive
 * UI form rules with translated messages.
 */
import type { FormItemRule, FormRules } from 'naive-ui';
import type { MessageKey, MessageParams, Translate } from '../i18n';

export interface CheckProblem {
  key: MessageKey;
  params?: MessageParams;
}

export type FieldCheck<M> = (model: M) => CheckProblem | null;
export type FormChecks<M> = Partial<Record<keyof M & string, FieldCheck<M>>>;

export function problem(key: MessageKey, params?: MessageParams): CheckProblem {
  return params ? { key, params } : { key };
}

/** Every failing field of a model, in declaration order of the checks. */
export function checkAll<M>(checks: FormChecks<M>, model: M): Partial<Record<keyof M & string, CheckProblem>> {
  const out: Partial<Record<keyof M & string, CheckProblem>> = {};
  for (const [field, check] of Object.entries(checks) as [keyof M & string, FieldCheck<M> | undefined][]) {
    const p = check?.(model);
    if (p) out[field] = p;
  }
  return out;
}

export type Trigger = 'input' | 'blur' | 'change';

/**
 * Naive UI rules that run the checks against the live model (`getModel`) —
 * cross-field rules (end date vs. begin date) see the other fields' values.
 */
export function toFormRules<M>(
  checks: FormChecks<M>,
  getModel: () => M,
  t: Translate,
  triggers: Partial<Record<keyof M & string, Trigger[]>> = {},
  /** Fields marked as required (the mark only; emptiness is one of the checks). */
  required: readonly (keyof M & string)[] = [],
): FormRules {
  const rules: FormRules = {};
  for (const [field, check] of Object.entries(checks) as [keyof M & string, FieldCheck<M> | undefined][]) {
    if (!check) continue;
    const rule: FormItemRule = {
      // With a validator, async-validator runs only the validator; `required` just draws the mark.
      required: required.includes(field),
      trigger: triggers[field] ?? ['blur', 'change'],
      validator: () => {
        const p = check(getModel());
        return p ? new Error(t(p.key, p.params)) : true;
      },
    };
    rules[field] = rule;
  }
  return rules;
}
