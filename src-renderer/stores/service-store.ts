/** What the console knows about the service it talks to: version, data dir, listener URL, reachability. */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
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

  /** Browser only (see canSignOut): ends the session; the shell then shows the signed-out screen. Throws when it did not. */
  async function signOut(): Promise<void> {
    if (!handle.signOut) throw new Error('no console session to end in the desktop window');
    await handle.signOut();
  }

  return {
    info,
    error,
    loading,
    desktop: handle.desktop,
    sessionExpired: computed(() => handle.sessionExpired.value),
    /** A browser session exists to end (not in the desktop window). */
    canSignOut: handle.signOut !== null,
    signedOut: computed(() => handle.signedOut.value),
    load,
    signOut,
  };
});
