/**
 * The browser console without a session: every route leads to the sign-in
 * page (remembering where the person was going); name and password, then the
 * code when the account has two-factor sign-in, then the console at the route
 * asked for. The service's failure message (the same whatever was wrong) and
 * its throttling wait are shown as they come; a session that ends while in
 * use leads back to the sign-in page.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { VueWrapper } from '@vue/test-utils';
import AppRoot from '../../../src-renderer/layout/app-root.vue';
import { ErrorCode } from '../../../src-shared/errors';
import type { SessionView } from '../../../src-shared/schemas/accounts';
import { fakeBridge, ServiceError } from '../support/fake-bridge';
import { browserHandle, fakeSignIn } from '../support/fake-sign-in';
import { sessionOf } from '../support/fixtures';
import { mountPage, submitForm, typeInto, unmountAll, waitFor, waitForElement } from '../support/mount-page';
import { shellHandlers, useFakeRegionCache } from '../support/shell';

useFakeRegionCache();
afterEach(unmountAll);

const FAILED = 'sign-in failed: the name, password or code is wrong, or the account is disabled';
const NO_SESSION = new ServiceError(ErrorCode.AUTH_CONSOLE_SESSION, 'console session: not signed in');

function currentPath(wrapper: VueWrapper): string {
  return (wrapper.vm as unknown as { $router: { currentRoute: { value: { fullPath: string } } } }).$router.currentRoute.value.fullPath;
}

/** A service with one finance account (two-factor on): password "correct horse battery", code 123456. */
function financeService() {
  let stage: SessionView['stage'] | null = null;
  const fake = fakeBridge(shellHandlers(() => (stage === null ? NO_SESSION : sessionOf('finance', { stage }))));
  const signIn = fakeSignIn({
    signIn: (req) => {
      if (req.login !== 'fiona' || req.password !== 'correct horse battery') return new ServiceError(ErrorCode.SIGN_IN_FAILED, FAILED);
      stage = 'password';
      return { stage: 'password' };
    },
    signInTotp: (req) => {
      if (req.code !== '123456') return new ServiceError(ErrorCode.SIGN_IN_FAILED, FAILED);
      stage = 'full';
      return { stage: 'full' };
    },
    signOut: () => {
      stage = null;
      return null;
    },
  });
  return { fake, signIn, handle: browserHandle(fake.bridge, signIn), setStage: (s: SessionView['stage'] | null) => (stage = s) };
}

describe('browser sign-in', () => {
  it('password, then the code, then the console at the route asked for', async () => {
    const { fake, signIn, handle } = financeService();
    const wrapper = await mountPage(AppRoot, { handle, path: '/account', session: null });
    await waitForElement('[data-test="sign-in-form"]');
    expect(currentPath(wrapper)).toBe('/sign-in?redirect=/account');
    // No session: nothing but who-am-I was asked of the service.
    expect(fake.calls.map((c) => c.method)).toEqual(['getSession']);
    expect(document.querySelector('[data-test="session-expired"]')).toBeNull();

    await typeInto(wrapper, 'sign-in-login', 'fiona');
    await typeInto(wrapper, 'sign-in-password', 'wrong password!');
    await submitForm(wrapper);
    expect(wrapper.find('[data-test="sign-in-error"]').text()).toBe(FAILED);
    expect(wrapper.find('[data-test="sign-in-code"]').exists()).toBe(false);

    await typeInto(wrapper, 'sign-in-password', 'correct horse battery');
    await submitForm(wrapper);
    await waitFor(() => wrapper.find('[data-test="sign-in-code"]').exists());
    expect(signIn.callsOf('signIn').at(-1)).toEqual({ login: 'fiona', password: 'correct horse battery' });
    expect(wrapper.find('[data-test="sign-in-error"]').exists()).toBe(false);
    expect(wrapper.text()).toContain('Enter the 6-digit code your authenticator app shows.');

    // A local rule first: six digits.
    await typeInto(wrapper, 'sign-in-code', '123');
    await submitForm(wrapper);
    expect(signIn.callsOf('signInTotp')).toEqual([]);
    expect(wrapper.text()).toContain('Enter the 6 digits your authenticator app shows');

    await typeInto(wrapper, 'sign-in-code', '654321');
    await submitForm(wrapper);
    expect(wrapper.find('[data-test="sign-in-error"]').text()).toBe(FAILED);
    // A code is good once: the field is emptied for the next one.
    expect((wrapper.find('[data-test="sign-in-code"] input').element as HTMLInputElement).value).toBe('');

    await typeInto(wrapper, 'sign-in-code', '123456');
    await submitForm(wrapper);
    await waitForElement('[data-test="account"]');
    expect(signIn.callsOf('signInTotp')).toEqual([{ code: '654321' }, { code: '123456' }]);
    expect(currentPath(wrapper)).toBe('/account');
    expect(document.querySelector('[data-test="side-menu"]')).not.toBeNull();
    expect(document.querySelector('[data-test="account-login"]')!.textContent).toBe('finance');
    expect(document.querySelector('[data-test="account-role"]')!.textContent).toBe('Finance');
  });

  it('shows the throttling answer with its wait', async () => {
    const fake = fakeBridge(shellHandlers(() => NO_SESSION));
    const signIn = fakeSignIn({ signIn: () => new ServiceError(ErrorCode.SIGN_IN_THROTTLED, 'sign-in: too many failed attempts; try again in 60 s') });
    const wrapper = await mountPage(AppRoot, { handle: browserHandle(fake.bridge, signIn), path: '/', session: null });
    await waitForElement('[data-test="sign-in-form"]');
    expect(currentPath(wrapper)).toBe('/sign-in?redirect=/dashboard');
    await typeInto(wrapper, 'sign-in-login', 'fiona');
    await typeInto(wrapper, 'sign-in-password', 'x');
    await submitForm(wrapper);
    expect(wrapper.find('[data-test="sign-in-error"]').text()).toBe('sign-in: too many failed attempts; try again in 60 s');
  });

  it('asks for both fields before calling the service', async () => {
    const fake = fakeBridge(shellHandlers(() => NO_SESSION));
    const signIn = fakeSignIn({});
    const wrapper = await mountPage(AppRoot, { handle: browserHandle(fake.bridge, signIn), path: '/sign-in', session: null });
    await waitForElement('[data-test="sign-in-form"]');
    await submitForm(wrapper);
    expect(signIn.calls).toEqual([]);
    expect(wrapper.text()).toContain('Enter your login name');
    expect(wrapper.text()).toContain('Enter your password');
  });

  it('a reload between the steps asks for the code again; “another account” ends the half session', async () => {
    const { handle, signIn, setStage } = financeService();
    setStage('password');
    const wrapper = await mountPage(AppRoot, { handle, path: '/orders', session: null });
    await waitFor(() => wrapper.find('[data-test="sign-in-code"]').exists());
    expect(currentPath(wrapper)).toBe('/sign-in?redirect=/orders');

    await wrapper.find('[data-test="sign-in-restart"]').trigger('click');
    await waitFor(() => wrapper.find('[data-test="sign-in-form"]').exists());
    expect(signIn.calls.map((c) => c.call)).toEqual(['signOut']);
    expect(document.querySelector('[data-test="signed-out"]')).toBeNull();
  });

  it('a session that ends while in use shows the expired screen, whose way back is the sign-in page', async () => {
    let expired = false;
    const fake = fakeBridge(
      shellHandlers(sessionOf('operator'), {
        getSession: () => (expired ? NO_SESSION : sessionOf('operator')),
        listMerchants: () => (expired ? NO_SESSION : []),
      }),
    );
    const handle = browserHandle(fake.bridge, fakeSignIn({}));
    const wrapper = await mountPage(AppRoot, { handle, path: '/account', session: null });
    await waitForElement('[data-test="account"]');

    expired = true;
    await wrapper.find('[data-test="menu-settings"]').trigger('click');
    await waitForElement('[data-test="session-expired"]');
    expect(document.body.textContent).toContain('Session expired');
    expect(document.body.textContent).not.toContain('console-token');

    (document.querySelector('[data-test="sign-in-again"]') as HTMLButtonElement).click();
    await waitForElement('[data-test="sign-in-form"]');
    expect(currentPath(wrapper)).toBe('/sign-in?redirect=/settings');
  });

  it('the desktop window never signs in: the console opens as the store’s owner, without sign-out', async () => {
    const fake = fakeBridge(shellHandlers(sessionOf('owner', { desktop: true })));
    const wrapper = await mountPage(AppRoot, { bridge: fake.bridge, path: '/sign-in?redirect=/account', session: null });
    await waitForElement('[data-test="account-desktop"]');
    expect(currentPath(wrapper)).toBe('/account');
    expect(document.querySelector('[data-test="sign-out"]')).toBeNull();
  });
});
