/**
 * The wiring every dialog form shares (components/form-modal.vue): its checks
 * as Naive UI rules run against the live model, the service's errors that
 * name one of `serverFields` shown under that field, and the submit through
 * useFormSubmit (one run at a time, rules first). Bind `form` as the
 * FormModal's (or NForm's) ref, `rules` and `server.itemProps` in the template.
 */
import { ref } from 'vue';
import { useServerFieldErrors } from '../composables/use-api-error';
import { useT } from '../i18n';
import { toFormRules, type FormChecks, type Trigger } from './field-check';
import { useFormSubmit, type CheckableForm, type FormSubmitOptions } from './use-form-submit';

export interface CheckedFormOptions<M, F extends string> {
  /** The form's (reactive) model. */
  model: M;
  checks: FormChecks<M>;
  /** The fields a service error may name. */
  serverFields: readonly F[];
  triggers?: Partial<Record<keyof M & string, Trigger[]>>;
  /** Fields marked as required. */
  required?: readonly (keyof M & string)[];
  onError?: FormSubmitOptions['onError'];
}

export function useCheckedForm<M, F extends string>(options: CheckedFormOptions<M, F>, action: () => Promise<void>) {
  const t = useT();
  const form = ref<CheckableForm | null>(null);
  const server = useServerFieldErrors(options.serverFields);
  const rules = toFormRules(options.checks, () => options.model, t, options.triggers, options.required);
  const { submitting, submit } = useFormSubmit(action, { form, fieldErrors: server, onError: options.onError });
  return { form, server, rules, submitting, submit };
}
