/** What the console knows about the service it talks to: version, data dir, listener URL, reachability. */
import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import { useConsoleApiHandle } from '../api/console-api';
import { toError } from '../composables/use-api-error';
import type { ConsoleResponse } from '../../src-shared/console-api/contract';

export type ServiceInfo = ConsoleResponse<'getServiceInfo'>;

export const useServiceStore = defineStore('service', () => {
  const handle = useConsoleApiHandle();
  const info = shallowRef<ServiceInfo | null>(null);
  const error = shallowRef<Error | null>(null);
  const loading = ref(false);

  async function load(): Promise<void> {
    loading.value = true;
    try {
      info.value = await handle.api.getServiceInfo({});
      error.value = null;
    } catch (err) {
      error.value = toError(err);
    } finally {
      loading.value = false;
    }
  }

  return { info, error, loading, desktop: handle.desktop, load };
});
