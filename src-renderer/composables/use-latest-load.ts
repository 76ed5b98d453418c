/**
 * One thing loaded by key (the order of the order drawer, the request of the
 * approval drawer): loading, the error's text, and only the newest call's
 * answer kept, so a slow answer for the previous key never replaces the
 * current one (as useRemoteTable does for lists).
 */
import { ref, shallowRef } from 'vue';
import { errorText } from './use-api-error';

export function useLatestLoad<K, T>(fetch: (key: K) => Promise<T>) {
  const data = shallowRef<T | null>(null);
  const loading = ref(false);
  const error = ref<string | null>(null);
  let latest = 0;

  async function load(key: K): Promise<void> {
    const ticket = ++latest;
    loading.value = true;
    error.value = null;
    try {
      const answer = await fetch(key);
      if (ticket === latest) data.value = answer;
    } catch (err) {
      if (ticket === latest) error.value = errorText(err);
    } finally {
      if (ticket === latest) loading.value = false;
    }
  }

  return { data, loading, error, load };
}
