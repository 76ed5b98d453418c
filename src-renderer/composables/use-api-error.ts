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

/** Whatever was thrown, as an Error: stores and tables keep the last one to show its message. */
export function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
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

/** NFormItem props for an inline service error: it overrides the local feedback while it stands. */
export interface ServerErrorItemProps {
  feedback?: string;
  validationStatus?: 'error';
}

/**
 * The service's field errors of one form, shown inline. Sub-forms get this
 * object as a prop: they read `itemProps` and `clear` a field when it is edited.
 */
export interface ServerFieldErrors<F extends string> {
  errors: Partial<Record<F, string>>;
  /** True when the error named one of the form's fields (now shown inline), false when it needs showing some other way. */
  apply(err: unknown): boolean;
  clear(field?: F): void;
  itemProps(field: F): ServerErrorItemProps;
}

export function useServerFieldErrors<F extends string>(fields: readonly F[]): ServerFieldErrors<F> {
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
  function itemProps(field: F): ServerErrorItemProps {
    const text = errors[field];
    return text ? { feedback: text, validationStatus: 'error' } : {};
  }
  return { errors, apply, clear, itemProps };
}
