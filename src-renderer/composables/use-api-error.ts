/**
 * Showing service errors: the server's own message in a toast, or inline
 * under the form field it names (ConsoleApiError.field, e.g. `cny_amount` or
 * `alpha_personal_data.cert_no`).
 */
import { reactive } from 'vue';
import { useMessage } from 'naive-ui';
import { ConsoleApiError } from '../../src-shared/console-api/client';
import { ErrorCode } from '../../src-shared/errors';

export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/** `cny_amount: must be greater than 0` → `must be greater than 0`. */
export function ruleText(err: ConsoleApiError): string {
  const field = err.field;
  return field ? err.message.slice(field.length + 2) : err.message;
}

export function useErrorToast() {
  const message = useMessage();
  return (err: unknown): void => {
    // The session screen takes over on an expired session; a toast would only add noise.
    if (err instanceof ConsoleApiError && err.code === ErrorCode.AUTH_CONSOLE_SESSION) return;
    message.error(errorText(err), { duration: 6000, closable: true });
  };
}

/**
 * Server-side field errors for one form. `apply(err)` returns true when the
 * error named one of `fields` (shown inline), false when it should be shown
 * some other way.
 */
export function useServerFieldErrors<F extends string>(fields: readonly F[]) {
  const errors = reactive<Partial<Record<F, string>>>({}) as Partial<Record<F, string>>;
  function apply(err: unknown): boolean {
    if (!(err instanceof ConsoleApiError) || err.code !== ErrorCode.VALIDATION) return false;
    const field = err.field as F | undefined;
    if (!field || !fields.includes(field)) return false;
    errors[field] = ruleText(err);
    return true;
  }
  function clear(field?: F): void {
    if (field) delete errors[field];
    else for (const key of Object.keys(errors)) delete errors[key as F];
  }
  /** Props for an NFormItem: an inline server error overrides the local feedback. */
  function itemProps(field: F): { feedback?: string; validationStatus?: 'error' } {
    const text = errors[field];
    return text ? { feedback: text, validationStatus: 'error' } : {};
  }
  return { errors, apply, clear, itemProps };
}
