/**
 * The desktop window's own settings (docs/desktop.md): which store it works
 * on — this computer's, or a team server's console — and the optional app
 * lock (the owner's password on this computer). Empty in a browser tab.
 * Connecting to a team server or switching back restarts the app.
 */
import { defineStore } from 'pinia';
import { computed, shallowRef } from 'vue';
import type { DesktopModeView } from '../../src-shared/console-api/desktop-shell-contract';
import { useConsoleApiHandle } from '../api/console-api';
import type { DesktopShellApi } from '../api/desktop-shell';

export const useDesktopStore = defineStore('desktop', () => {
  const shell = useConsoleApiHandle().shell;
  const mode = shallowRef<DesktopModeView | null>(null);

  /** The window runs inside the desktop app (its shell answers). */
  const available = computed(() => shell !== null);
  /** A team server's page inside the desktop app: only the way back is offered. */
  const team = computed(() => mode.value?.mode === 'team');
  /** The app's own window on this computer's store: the app lock and the team server can be managed. */
  const local = computed(() => shell !== null && mode.value?.mode === 'local' && typeof shell.setAppLock === 'function');
  const lockEnabled = computed(() => mode.value?.app_lock.enabled === true);

  function call<M extends keyof DesktopShellApi>(method: M): DesktopShellApi[M] {
    const fn = shell?.[method];
    if (!fn) throw new Error(`the desktop shell offers no ${method} here`);
    return fn;
  }

  /** Asks where the window is; quietly nothing outside the desktop app. */
  async function load(): Promise<void> {
    if (!shell?.getDesktopMode) return;
    try {
      mode.value = await shell.getDesktopMode({});
    } catch {
      // An older shell, or none answering: the window works without these settings.
    }
  }

  async function run(next: Promise<DesktopModeView>): Promise<DesktopModeView> {
    mode.value = await next;
    return mode.value;
  }

  return {
    mode,
    available,
    team,
    local,
    lockEnabled,
    load,
    unlock: (password: string) => run(call('unlockApp')({ password })),
    lock: () => run(call('lockApp')({})),
    setLock: (password: string) => run(call('setAppLock')({ password })),
    removeLock: (password: string) => run(call('removeAppLock')({ password })),
    /** The app restarts on the server (its console page then signs in there). */
    connect: (url: string) => run(call('connectToTeamServer')({ url })),
    /** The app restarts on this computer's store. */
    switchToLocal: () => run(call('switchToLocal')({})),
  };
});
