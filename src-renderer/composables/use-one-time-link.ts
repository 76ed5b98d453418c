/**
 * A bare page reached by a one-time link (first-owner setup `#/setup?token=…`,
 * password links `#/set-password?token=…`): the link's token, and a refusal
 * that names no field of the form shown in the page — a used or expired link
 * answers 2006, which the toast skips on purpose.
 */
import { computed, ref } from 'vue';
import { useRoute } from 'vue-router';
import { errorText, type ServerFieldErrors } from './use-api-error';

export function useOneTimeLink(fieldErrors: Pick<ServerFieldErrors<string>, 'apply'>) {
  const route = useRoute();
  const token = computed(() => (typeof route.query.token === 'string' ? route.query.token : ''));
  const failure = ref<string | null>(null);

  /** useFormSubmit's onError: an error of a field under the field, any other in the page. */
  function showRefusal(err: unknown): boolean {
    if (!fieldErrors.apply(err)) failure.value = errorText(err);
    return true;
  }

  return { token, failure, showRefusal };
}
