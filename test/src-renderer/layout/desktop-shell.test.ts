/**
 * The desktop app's own settings in the console (docs/desktop.md): while the
 * app lock holds, every console call answers 2006 and the window asks for the
 * owner's password (not a sign-in); Settings → Desktop sets, changes and
 * removes the lock, locks now, and connects to a team server; a team server's
 * page inside the app offers the way back to this computer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import AppRoot from '../../../src-renderer/layout/app-root.vue';
import { handleOver } from '../../../src-renderer/api/console-api';
import type { DesktopShellBridge } from '../../../src-renderer/api/desktop-shell';
import type { DesktopModeView } from '../../../src-shared/console-api/desktop-shell-contract';
import type { DesktopShellMethod } from '../../../src-shared/console-api/methods';
import { ErrorCode } from '../../../src-shared/errors';
import { fakeBridge, ServiceError } from '../support/fake-bridge';
import { fakeSignIn } from '../support/fake-sign-in';
import { sessionOf } from '../support/fixtures';
import { mountPage, settle, unmountAll, waitForElement } from '../support/mount-page';
import { clickOn, typeIn } from '../support/interact';
import { shellHandlers, useFakeRegionCache } from '../support/shell';

useFakeRegionCache();
afterEach(unmountAll);

const LOCKED = new ServiceError(ErrorCode.AUTH_CONSOLE_SESSION, "the app is locked: unlock it with the owner's password");
const DESKTOP_OWNER = sessionOf('owner', { desktop: true }, { login: 'desktop', display_name: 'Desktop owner' });

/** The shell of the app's own window: the lock (password "owner password 1") and the team server. */
function fakeShell(start: { enabled: boolean; locked: boolean }, methods?: DesktopShellMethod[]) {
  const state = { mode: 'local' as 'local' | 'team', team_server_url: null as string | null, app_lock: { ...start } };
  const calls: { method: DesktopShellMethod; request: unknown }[] = [];
  const view = (): DesktopModeView => ({ mode: state.mode, team_server_url: state.team_server_url, app_lock: { ...state.app_lock } });
  const ok = (data: unknown) => ({ code: 1, msg: 'ok', data });
  const handlers: Record<DesktopShellMethod, (r: Record<string, string>) => unknown> = {
    getDesktopMode: () => ok(view()),
    unlockApp: (r) => {
      if (r.password !== 'owner password 1') return { code: ErrorCode.SIGN_IN_FAILED, msg: 'password: is not the app lock password', data: null };
      state.app_lock.locked = false;
      return ok(view());
    },
    lockApp: () => {
      if (state.app_lock.enabled) state.app_lock.locked = true;
      return ok(view());
    },
    setAppLock: () => {
      state.app_lock.enabled = true;
      return ok(view());
    },
    removeAppLock: () => {
      state.app_lock = { enabled: false, locked: false };
      return ok(view());
    },
    connectToTeamServer: (r) => {
      state.team_server_url = r.url!;
      return ok({ ...view(), mode: 'team' });
    },
    switchToLocal: () => ok({ ...view(), mode: 'local' }),
  };
  const bridge: DesktopShellBridge = {};
  for (const method of methods ?? (Object.keys(handlers) as DesktopShellMethod[])) {
    bridge[method] = async (request) => {
      calls.push({ method, request });
      return handlers[method](request as Record<string, string>) as never;
    };
  }
  return { bridge, calls, state, callsOf: (m: DesktopShellMethod) => calls.filter((c) => c.method === m).map((c) => c.request) };
}

describe('desktop app lock and team server', () => {
  it('a locked app asks for the owner’s password, not a sign-in, then opens the console', async () => {
    const shell = fakeShell({ enabled: true, locked: true });
    const fake = fakeBridge(shellHandlers(() => (shell.state.app_lock.locked ? LOCKED : DESKTOP_OWNER)));
    await mountPage(AppRoot, { handle: handleOver(fake.bridge, null, shell.bridge), path: '/account', session: null });
    await waitForElement('[data-test="app-lock"]');
    expect(document.querySelector('[data-test="sign-in-form"]')).toBeNull();
    expect(document.querySelector('[data-test="session-expired"]')).toBeNull();

    await typeIn('app-lock-password', 'wrong password');
    await clickOn('app-lock-submit');
    expect(document.querySelector('[data-test="app-lock-error"]')!.textContent).toBe('password: is not the app lock password');

    await typeIn('app-lock-password', 'owner password 1');
    await clickOn('app-lock-submit');
    await waitForElement('[data-test="account-desktop"]');
    expect(shell.callsOf('unlockApp')).toEqual([{ password: 'wrong password' }, { password: 'owner password 1' }]);
  });

  it('Settings → Desktop sets the lock and locks now (the unlock screen)', async () => {
    const shell = fakeShell({ enabled: false, locked: false });
    const fake = fakeBridge(shellHandlers(() => (shell.state.app_lock.locked ? LOCKED : DESKTOP_OWNER), { getSettings: () => new Promise(() => {}) }));
    await mountPage(AppRoot, { handle: handleOver(fake.bridge, null, shell.bridge), path: '/settings', session: null });
    await waitForElement('[data-test="settings"]');
    const desktopTab = [...document.querySelectorAll<HTMLElement>('.n-tabs-tab')].find((e) => e.textContent?.trim() === 'Desktop');
    expect(desktopTab).toBeDefined();
    desktopTab!.click();
    await waitForElement('[data-test="desktop-panel"]');
    expect(document.querySelector('[data-test="app-lock-status"]')!.textContent!.trim()).toBe('Off');

    await typeIn('app-lock-new-password', 'short');
    await typeIn('app-lock-confirm', 'short');
    await clickOn('app-lock-set');
    expect(shell.callsOf('setAppLock')).toEqual([]);
    await typeIn('app-lock-new-password', 'owner password 1');
    await typeIn('app-lock-confirm', 'owner password 1');
    await clickOn('app-lock-set');
    expect(shell.callsOf('setAppLock')).toEqual([{ password: 'owner password 1' }]);
    expect(document.querySelector('[data-test="app-lock-status"]')!.textContent!.trim()).toBe('On');

    await clickOn('lock-app');
    expect(shell.callsOf('lockApp')).toEqual([{}]);
    await waitForElement('[data-test="app-lock"]');
  });

  it('Settings → Desktop connects to a team server (https only), after asking', async () => {
    const shell = fakeShell({ enabled: false, locked: false });
    const fake = fakeBridge(shellHandlers(DESKTOP_OWNER, { getSettings: () => new Promise(() => {}) }));
    await mountPage(AppRoot, { handle: handleOver(fake.bridge, null, shell.bridge), path: '/settings', session: null });
    await waitForElement('[data-test="settings"]');
    [...document.querySelectorAll<HTMLElement>('.n-tabs-tab')].find((e) => e.textContent?.trim() === 'Desktop')!.click();
    await waitForElement('[data-test="desktop-panel"]');
    await typeIn('team-server-url', 'http://console.example.com');
    await clickOn('team-server-connect');
    expect(document.body.textContent).toContain('Enter an https:// address');
    await typeIn('team-server-url', 'https://console.example.com/');
    await clickOn('team-server-connect');
    [...document.querySelectorAll<HTMLButtonElement>('.n-dialog button')].find((b) => b.textContent?.trim() === 'Connect and restart')!.click();
    await settle();
    expect(shell.callsOf('connectToTeamServer')).toEqual([{ url: 'https://console.example.com/' }]);

  });

  it('a team server’s page in the app: its own sign-in, and the way back to this computer', async () => {
    const shell = fakeShell({ enabled: false, locked: false }, ['getDesktopMode', 'switchToLocal']);
    shell.state.mode = 'team';
    shell.state.team_server_url = 'https://console.example.com';
    const fake = fakeBridge(shellHandlers(() => new ServiceError(ErrorCode.AUTH_CONSOLE_SESSION, 'console session: not signed in')));
    await mountPage(AppRoot, { handle: handleOver(fake.bridge, fakeSignIn({}).api, shell.bridge), path: '/', session: null });
    await waitForElement('[data-test="sign-in-form"]');
    await waitForElement('[data-test="switch-to-local"]');
    await clickOn('switch-to-local');
    expect(shell.callsOf('switchToLocal')).toEqual([{}]);
  });

  it('a browser has none of it', async () => {
    const fake = fakeBridge(shellHandlers(sessionOf('owner')));
    await mountPage(AppRoot, { handle: handleOver(fake.bridge, fakeSignIn({}).api), path: '/settings', session: null });
    await waitForElement('[data-test="settings"]');
    expect([...document.querySelectorAll('.n-tabs-tab')].map((e) => e.textContent?.trim())).not.toContain('Desktop');
    expect(document.querySelector('[data-test="switch-to-local"]')).toBeNull();
  });
});
