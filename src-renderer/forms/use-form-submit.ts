/**
 * Submitting a form, or running an action button: one run at a time, the
 * form's local rules before any call, then the call; a service error that
 * names one of the form's fields goes under that field, anything else is a
 * toast with the service's message. Every form and action of the console
 * goes through here so they all behave alike.
 */
import { ref, type Ref } from 'vue';
import type { FormInst } from 'naive-ui';
import { useErrorToast, type ServerFieldErrors } from '../composables/use-api-error';

/** What a submit needs of a form: its rules' check (an NForm, or a FormModal around one). */
export type CheckableForm = Pick<FormInst, 'validate'>;

export interface FormSubmitOptions {
  /** The NForm (or FormModal) whose rules must pass first; none for a plain action button. */
  form?: Ref<CheckableForm | null>;
  /** The form's inline service errors (useServerFieldErrors): cleared on submit, filled from a field error. */
  fieldErrors?: Pick<ServerFieldErrors<string>, 'apply' | 'clear'>;
  /** The local rules failed (the fields already say which); e.g. a "fix the marked fields" hint. */
  onInvalid?: () => void;
  /** An error the form shows its own way; returns true when it did, so no toast follows. */
  onError?: (err: unknown) => boolean;
}

export function useFormSubmit<Args extends unknown[]>(action: (...args: Args) => Promise<void>, options: FormSubmitOptions = {}) {
  const showError = useErrorToast();
  const submitting = ref(false);

  async function submit(...args: Args): Promise<void> {
    // A second Enter or click while the call runs would send the request twice.
    if (submitting.value) return;
    options.fieldErrors?.clear();
    if (options.form) {
      try {
        await options.form.value?.validate();
      } catch {
        options.onInvalid?.();
        return;
      }
    }
    submitting.value = true;
    try {
      await action(...args);
    } catch (err) {
      if (!options.onError?.(err) && !options.fieldErrors?.apply(err)) showError(err);
    } finally {
      submitting.value = false;
    }
  }

  return { submitting, submit };
}
