/**
 * Who is signed in and what they may do: getSession at start, the sign-in
 * stage, the role's permissions, the approvals inbox count. `canCall(method)`
 * reads the permission and scope each method declares in the contract, so the
 * UI hides exactly what the service would refuse (the service's check is what
 * counts; this only hides). In the desktop window the session is the store's
 * owner (`desktop: true`) and there is no sign-in.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import { useConsoleApiHandle } from '../api/console-api';
import { toError } from '../composables/use-api-error';
import { consoleApiContract } from '../../src-shared/console-api/contract';
import { ConsoleApiError } from '../../src-shared/console-api/client';
import type { ConsoleMethod } from '../../src-shared/console-api/methods';
import type { SignInRequest } from '../../src-shared/console-api/sign-in-contract';
import type { Permission } from '../../src-shared/auth/permissions';
import type { SessionView, SignInView } from '../../src-shared/schemas/accounts';
import { ErrorCode } from '../../src-shared/errors';

/** idle: not asked yet; none: no session (browser: sign in); active: `session` holds it; error: the service did not answer. */
export type SessionStatus = 'idle' | 'loading' | 'none' | 'active' | 'error';
export type SignInStage = SignInView['stage'];

/** How often the inbox badge is refreshed while the console is open. */
export const APPROVALS_POLL_MS = 60_000;

export const useSessionStore = defineStore('session', () => {
  const handle = useConsoleApiHandle();
  const session = shallowRef<SessionView | null>(null);
  const status = ref<SessionStatus>('idle');
  const error = shallowRef<Error | null>(null);

  const stage = computed<SignInStage | null>(() => session.value?.stage ?? null);
  const account = computed(() => session.value?.account ?? null);
  const permissions = computed(() => new Set<Permission>(session.value?.permissions ?? []));
  /** Platform staff act for every merchant; the others only for theirs (and never on 'platform' calls). */
  const platform = computed(() => session.value !== null && session.value.account.merchant_ids === null);
  const approvalsWaiting = computed(() => session.value?.approvals_waiting ?? 0);
  /** Sign-in exists only in a browser tab. */
  const canSignOut = computed(() => handle.signIn !== null && session.value !== null);

  function can(permission: Permission): boolean {
    return permissions.value.has(permission);
  }

  /** What the contract says this method needs: the permission and, for 'platform' calls, platform staff. */
  function canCall(method: ConsoleMethod): boolean {
    if (session.value === null || session.value.stage !== 'full') return false;
    const entry = consoleApiContract[method];
    if (entry.permission !== null && !can(entry.permission)) return false;
    return entry.scope !== 'platform' || platform.value;
  }

  /** Asks the service who this is; no session (browser) → status 'none', not the "session expired" screen. */
  async function load(): Promise<void> {
    status.value = 'loading';
    try {
      session.value = await handle.api.getSession({});
      error.value = null;
      status.value = 'active';
    } catch (err) {
      session.value = null;
      if (err instanceof ConsoleApiError && err.code === ErrorCode.AUTH_CONSOLE_SESSION) {
        handle.sessionExpired.value = false;
        status.value = 'none';
      } else {
        error.value = toError(err);
        status.value = 'error';
      }
    }
  }

  /** The inbox count and permissions again, quietly: a failure keeps what is shown. */
  async function refresh(): Promise<void> {
    if (status.value !== 'active') return;
    try {
      session.value = await handle.api.getSession({});
    } catch {
      // An expired session switches the window by itself (the handle's watch); anything else waits for the next round.
    }
  }

  let timer: ReturnType<typeof setInterval> | null = null;
  function startPolling(ms = APPROVALS_POLL_MS): void {
    stopPolling();
    timer = setInterval(() => void refresh(), ms);
  }
  function stopPolling(): void {
    if (timer !== null) clearInterval(timer);
    timer = null;
  }

  /** Set by answers that carry the session (changePassword, confirmTotpEnrolment) and by tests. */
  function set(view: SessionView | null): void {
    session.value = view;
    status.value = view ? 'active' : 'none';
  }

  function requireSignIn() {
    if (!handle.signIn) throw new Error('no sign-in in the desktop window');
    return handle.signIn;
  }

  /** Starts a new sign-in: the signed-out or expired screen is left behind. */
  function clearEnded(): void {
    handle.sessionExpired.value = false;
    handle.signedOut.value = false;
  }

  /** Name and password; answers the stage ('password': the code is next). A session in any stage is then loaded. */
  async function signIn(request: SignInRequest<'signIn'>): Promise<SignInStage> {
    const { stage: next } = await requireSignIn().signIn(request);
    clearEnded();
    await load();
    return next;
  }

  async function signInTotp(code: string): Promise<SignInStage> {
    const { stage: next } = await requireSignIn().signInTotp({ code });
    clearEnded();
    await load();
    return next;
  }

  /** The first owner from the setup link; signed in at once (usually to enrol two-factor sign-in next). */
  async function setup(request: SignInRequest<'setup'>): Promise<SignInStage> {
    const { stage: next } = await requireSignIn().setup(request);
    clearEnded();
    await load();
    return next;
  }

  async function setPassword(request: SignInRequest<'setPassword'>): Promise<void> {
    await requireSignIn().setPassword(request);
  }

  function ended(): void {
    session.value = null;
    status.value = 'none';
    handle.signedOut.value = true;
  }

  /** Ends this tab's session (throws when the service refused: the console stays open). */
  async function signOut(): Promise<void> {
    await requireSignIn().signOut({});
    ended();
  }

  /** Ends every session of this account, this one included. */
  async function signOutEverywhere(): Promise<number> {
    const { ended_sessions } = await handle.api.signOutEverywhere({});
    ended();
    return ended_sessions;
  }

  /** After the "session expired" / "signed out" screen: back to the sign-in page. */
  function restart(): void {
    clearEnded();
    session.value = null;
    status.value = 'none';
  }

  return {
    session,
    status,
    error,
    stage,
    account,
    permissions,
    platform,
    approvalsWaiting,
    desktop: handle.desktop,
    canSignOut,
    sessionExpired: computed(() => handle.sessionExpired.value),
    signedOut: computed(() => handle.signedOut.value),
    can,
    canCall,
    load,
    refresh,
    startPolling,
    stopPolling,
    set,
    signIn,
    signInTotp,
    setup,
    setPassword,
    signOut,
    signOutEverywhere,
    restart,
  };
});
