/**
 * The console API as the UI uses it: typed from the contract, one transport
 * chosen at start-up — the desktop preload's IPC bridge when present, the
 * same-origin HTTP bridge otherwise. Provided to the app (and to tests) by
 * injection, so components and stores never pick a transport themselves.
 */
import { inject, ref, type InjectionKey, type Ref } from 'vue';
import type { ConsoleApi } from '../../src-shared/console-api/contract';
import { createConsoleApi, createHttpConsoleBridge, signOutOfHttpConsole, type ConsoleBridge } from '../../src-shared/console-api/client';
import { desktopConsoleBridge } from '../../src-shared/console-api/desktop-bridge';
import { CONSOLE_METHODS, type ConsoleMethod } from '../../src-shared/console-api/methods';
import { ErrorCode } from '../../src-shared/errors';

export interface ConsoleApiHandle {
  api: ConsoleApi;
  /** true in the Electron window (IPC), false in a browser tab (HTTP). */
  desktop: boolean;
  /** Set once any call answers "console session missing/expired" (browser only). */
  sessionExpired: Ref<boolean>;
  /**
   * Browser only: ends the console session (POST /console/logout) and sets `signedOut`; null in the
   * desktop window, which has no session to end.
   */
  signOut: (() => Promise<void>) | null;
  /** Set once signOut succeeded. */
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

/** `bridge` given (the desktop preload's, or a test's): that transport; none: the same-origin HTTP one. */
export function createConsoleApiHandle(bridge: ConsoleBridge | undefined = desktopConsoleBridge(), http: HttpTransportOptions = {}): ConsoleApiHandle {
  const sessionExpired = ref(false);
  const signedOut = ref(false);
  const baseUrl = http.baseUrl ?? '';
  const fetchImpl: typeof fetch = http.fetchImpl ?? ((...args) => fetch(...args));
  const transport = bridge ?? createHttpConsoleBridge(baseUrl, fetchImpl);
  return {
    api: createConsoleApi(watchSession(transport, () => (sessionExpired.value = true))),
    desktop: bridge !== undefined,
    sessionExpired,
    signOut:
      bridge !== undefined
        ? null
        : async () => {
            await signOutOfHttpConsole(baseUrl, fetchImpl);
            signedOut.value = true;
          },
    signedOut,
  };
}

export function useConsoleApiHandle(): ConsoleApiHandle {
  const handle = inject(CONSOLE_API_KEY);
  if (!handle) throw new Error('console API not provided (app.provide(CONSOLE_API_KEY, …))');
  return handle;
}

export function useConsoleApi(): ConsoleApi {
  return useConsoleApiHandle().api;
}
