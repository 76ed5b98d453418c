/**
 * The UI hides what the account's role may not do, from the contract's own
 * permission and scope of each call (session store's canCall): menu entries,
 * pages, buttons and tabs. The service's check is what counts; these tests
 * pin what is shown.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defineComponent } from 'vue';
import AppRoot from '../../../src-renderer/layout/app-root.vue';
import SettingsPage from '../../../src-renderer/views/settings/index.vue';
import { useSessionStore } from '../../../src-renderer/stores/session-store';
import { CONSOLE_METHODS } from '../../../src-shared/console-api/methods';
import { consoleApiContract } from '../../../src-shared/console-api/contract';
import { ROLE_PERMISSIONS, ROLES } from '../../../src-shared/auth/permissions';
import { fakeBridge } from '../support/fake-bridge';
import { browserHandle, fakeSignIn } from '../support/fake-sign-in';
import { MERCHANT, sessionOf } from '../support/fixtures';
import { mountPage, settle, unmountAll, waitForElement } from '../support/mount-page';
import { shellHandlers, useFakeRegionCache } from '../support/shell';

useFakeRegionCache();
afterEach(unmountAll);

/** The session store as a page sees it, for a session. */
async function storeFor(session: ReturnType<typeof sessionOf>) {
  let store!: ReturnType<typeof useSessionStore>;
  const Probe = defineComponent({
    setup() {
      store = useSessionStore();
      return () => null;
    },
  });
  await mountPage(Probe, { bridge: fakeBridge({}).bridge, session });
  return store;
}

function menuEntries(): string[] {
  return [...document.querySelectorAll('[data-test^="menu-"]')].map((a) => a.getAttribute('data-test')!.slice('menu-'.length));
}

describe('permission-based hiding', () => {
  it.each(ROLES)('canCall follows the contract for a platform %s', async (role) => {
    const store = await storeFor(sessionOf(role));
    for (const method of CONSOLE_METHODS) {
      const needs = consoleApiContract[method].permission;
      expect(store.canCall(method), method).toBe(needs === null || ROLE_PERMISSIONS[role].includes(needs));
    }
  });

  it('an account limited to some merchants may not make platform calls, whatever its role allows', async () => {
    const store = await storeFor(sessionOf('operator', {}, { merchant_ids: [1] }));
    expect(store.can('channels.read')).toBe(true);
    expect(store.canCall('listChannels')).toBe(false);
    expect(store.canCall('listPayChannels')).toBe(true);
    expect(store.canCall('requestWithdrawal')).toBe(true);
  });

  it('a session that has not finished signing in may call nothing through the UI', async () => {
    const store = await storeFor(sessionOf('finance', { stage: 'enrol' }));
    expect(store.canCall('getServiceInfo')).toBe(false);
  });

  it('a viewer sees no order forms, no team pages but approvals; limited to some merchants, no operator mode either', async () => {
    const fake = fakeBridge(shellHandlers(sessionOf('viewer', {}, { merchant_ids: [1] })));
    await mountPage(AppRoot, { handle: browserHandle(fake.bridge, fakeSignIn({})), path: '/account', session: null });
    await waitForElement('[data-test="account"]');
    expect(menuEntries()).toEqual(['dashboard', 'orders', 'channels', 'regions', 'approvals', 'settings']);
    expect(document.querySelector('[data-test="operator-mode"]')).toBeNull();
    expect(document.querySelector('[data-test="account-role"]')!.textContent).toBe('Viewer');
  });

  it('a page the role may not use says so instead of calling the service', async () => {
    const fake = fakeBridge(shellHandlers(sessionOf('viewer')));
    await mountPage(AppRoot, { handle: browserHandle(fake.bridge, fakeSignIn({})), path: '/accounts', session: null });
    await waitForElement('[data-test="not-allowed"]');
    expect(document.body.textContent).toContain('Your role may not use this page');
    expect(fake.callsOf('listAccounts')).toEqual([]);
  });

  it('finance gets the audit page, the approvals badge and the withdrawal form, not the buy form or accounts', async () => {
    const fake = fakeBridge(shellHandlers(sessionOf('finance', { approvals_waiting: 3 })));
    await mountPage(AppRoot, { handle: browserHandle(fake.bridge, fakeSignIn({})), path: '/account', session: null });
    await waitForElement('[data-test="account"]');
    expect(menuEntries()).toEqual(['dashboard', 'orders', 'sell-order', 'channels', 'regions', 'approvals', 'audit', 'settings']);
    expect(document.querySelector('[data-test="approvals-badge"]')!.getAttribute('data-count')).toBe('3');
  });

  it('a viewer’s merchants tab has no create, edit, secret, threshold or adjust buttons, and no listener tab', async () => {
    const fake = fakeBridge({ listMerchants: () => [MERCHANT], getServiceInfo: () => ({ version: '1', data_dir: '/d', listener_url: null, listener_error: null }) });
    await mountPage(SettingsPage, { bridge: fake.bridge, session: sessionOf('viewer') });
    await settle();
    expect(document.querySelector('[data-test="merchants-table"]')).not.toBeNull();
    for (const id of ['create-merchant', 'edit-merchant', 'rotate-secret', 'adjust-balance', 'merchant-limits-open', 'merchant-developer-open']) {
      expect(document.querySelector(`[data-test="${id}"]`), id).toBeNull();
    }
    expect(document.body.textContent).not.toContain('Listener');
  });

  it('finance may adjust balances but not edit merchants; a developer gets developer settings and the secret', async () => {
    const fake = fakeBridge({ listMerchants: () => [MERCHANT], getSettings: () => new Promise(() => {}) });
    await mountPage(SettingsPage, { bridge: fake.bridge, session: sessionOf('finance') });
    await settle();
    expect(document.querySelector('[data-test="adjust-balance"]')).not.toBeNull();
    expect(document.querySelector('[data-test="create-merchant"]')).toBeNull();
    expect(document.querySelector('[data-test="edit-merchant"]')).toBeNull();
    expect(document.querySelector('[data-test="rotate-secret"]')).toBeNull();
    unmountAll();

    await mountPage(SettingsPage, { bridge: fake.bridge, session: sessionOf('developer') });
    await settle();
    expect(document.querySelector('[data-test="merchant-developer-open"]')).not.toBeNull();
    expect(document.querySelector('[data-test="rotate-secret"]')).not.toBeNull();
    expect(document.querySelector('[data-test="adjust-balance"]')).toBeNull();
    expect(document.querySelector('[data-test="merchant-limits-open"]')).toBeNull();
  });
});
