/**
 * The console API as the UI uses it: typed from the contract, one transport
 * chosen at start-up — the desktop preload's IPC bridge when present, the
 * same-origin HTTP bridge otherwise. Provided to the app (and to tests) by
 * injection, so components and stores never pick a transport themselves.
 * A browser tab also gets the calls made before a session exists (sign-in,
 * first-owner setup, password links, sign-out); the desktop window has no
 * sign-in (its own store's owner is the person at the computer), but has the
 * desktop shell's calls (app lock, team server: api/desktop-shell.ts).
 */
import { inject, ref, type InjectionKey, type Ref } from 'vue';
import type { ConsoleApi } from '../../src-shared/console-api/contract';
import { createConsoleApi, createHttpConsoleBridge, createHttpSignInApi, type ConsoleBridge } from '../../src-shared/console-api/client';
import { desktopConsoleBridge } from '../../src-shared/console-api/desktop-bridge';
import { CONSOLE_METHODS, type ConsoleMethod } from '../../src-shared/console-api/methods';
import type { SignInApi } from '../../src-shared/console-api/sign-in-contract';
import { ErrorCode } from '../../src-shared/errors';
import { createDesktopShellApi, desktopShellBridge, type DesktopShellApi, type DesktopShellBridge } from './desktop-shell';

export interface ConsoleApiHandle {
  api: ConsoleApi;
  /** true in the Electron window (IPC), false in a browser tab (HTTP). */
  desktop: boolean;
  /** Browser only: sign-in, the TOTP step, first-owner setup, password links, sign-out; null in the desktop window. */
  signIn: SignInApi | null;
  /**
   * The desktop shell's calls the window may make (all of them in the app's own window; where it is and
   * the way back on a team server's page, which otherwise is a browser console); null in a browser.
   */
  shell: Partial<DesktopShellApi> | null;
  /** Set once any call answers "console session missing/expired" (browser only). */
  sessionExpired: Ref<boolean>;
  /** Set once this tab signed out (or out everywhere). */
  signedOut: Ref<boolean>;
}

/** The browser transport's options; tests give a fetch of their own. */
export interface HttpTransportOptions {
  baseUrl?: string;
  fetchImpl?: typeof fetch;
}

export const CONSOLE_API_KEY: InjectionKey<ConsoleApiHandle> = Symbol('console-api');

/** Watches every envelope for the session error, so no call site has to. */
function watchSession(bridge: ConsoleBridge, onExpired: () => void): ConsoleBridge {
  const watched = {} as Record<ConsoleMethod, (request: unknown) => Promise<{ code: number }>>;
  for (const method of CONSOLE_METHODS) {
    const call = bridge[method] as (request: unknown) => Promise<{ code: number }>;
    watched[method] = async (request) => {
      const envelope = await call(request);
      if (envelope.code === ErrorCode.AUTH_CONSOLE_SESSION) onExpired();
      return envelope;
    };
  }
  return watched as unknown as ConsoleBridge;
}

/**
 * A handle over any transport: `signIn` null is the desktop window (no sign-in), else a browser tab.
 * Tests build browser handles over a fake bridge and fake sign-in calls with this.
 */
export function handleOver(bridge: ConsoleBridge, signIn: SignInApi | null, shell: DesktopShellBridge | null = null): ConsoleApiHandle {
  const sessionExpired = ref(false);
  return {
    api: createConsoleApi(watchSession(bridge, () => (sessionExpired.value = true))),
    desktop: signIn === null,
    signIn,
    shell: shell ? createDesktopShellApi(shell) : null,
    sessionExpired,
    signedOut: ref(false),
  };
}

/**
 * `bridge` given (the desktop preload's, or a test's): that transport, no sign-in; none: the same-origin
 * HTTP one (a browser tab, or a team server's page in the desktop window). `shell`: the desktop shell's
 * bridge where the preload gives one.
 */
export function createConsoleApiHandle(
  bridge: ConsoleBridge | undefined = desktopConsoleBridge(),
  http: HttpTransportOptions = {},
  shell: DesktopShellBridge | undefined = desktopShellBridge(),
): ConsoleApiHandle {
  if (bridge !== undefined) return handleOver(bridge, null, shell ?? null);
  const baseUrl = http.baseUrl ?? '';
  const fetchImpl: typeof fetch = http.fetchImpl ?? ((...args) => fetch(...args));
  return handleOver(createHttpConsoleBridge(baseUrl, fetchImpl), createHttpSignInApi(baseUrl, fetchImpl), shell ?? null);
}

export function useConsoleApiHandle(): ConsoleApiHandle {
  const handle = inject(CONSOLE_API_KEY);
  if (!handle) throw new Error('console API not provided (app.provide(CONSOLE_API_KEY, …))');
  return handle;
}

export function useConsoleApi(): ConsoleApi {
  return useConsoleApiHandle().api;
}
