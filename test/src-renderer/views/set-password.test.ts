/**
 * A password from a one-time link (`#/set-password?token=…`): the length
 * rule of the service, the password twice, the token sent along; afterwards
 * the way is the sign-in page. No session is needed or asked for.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { VueWrapper } from '@vue/test-utils';
import AppRoot from '../../../src-renderer/layout/app-root.vue';
import { ErrorCode } from '../../../src-shared/errors';
import { fakeBridge, ServiceError } from '../support/fake-bridge';
import { browserHandle, fakeSignIn } from '../support/fake-sign-in';
import { feedbackTexts, mountPage, submitForm, typeInto, unmountAll, waitForElement } from '../support/mount-page';
import { shellHandlers, useFakeRegionCache } from '../support/shell';

useFakeRegionCache();
afterEach(unmountAll);

const NO_SESSION = new ServiceError(ErrorCode.AUTH_CONSOLE_SESSION, 'console session: not signed in');

function currentPath(wrapper: VueWrapper): string {
  return (wrapper.vm as unknown as { $router: { currentRoute: { value: { fullPath: string } } } }).$router.currentRoute.value.fullPath;
}

describe('set-password link', () => {
  it('sets the password with the link’s token, then leads to the sign-in page', async () => {
    const fake = fakeBridge(shellHandlers(() => NO_SESSION));
    const signIn = fakeSignIn({ setPassword: () => ({ password_set: true }) });
    const wrapper = await mountPage(AppRoot, { handle: browserHandle(fake.bridge, signIn), path: '/set-password?token=pw-token-9', session: null });
    await waitForElement('[data-test="set-password-form"]');
    expect(currentPath(wrapper)).toBe('/set-password?token=pw-token-9');

    await typeInto(wrapper, 'set-password-password', 'too short');
    await typeInto(wrapper, 'set-password-confirm', 'too short');
    await submitForm(wrapper);
    expect(feedbackTexts(wrapper)).toEqual(['A password is 12-256 characters']);

    await typeInto(wrapper, 'set-password-password', 'my new long password');
    await typeInto(wrapper, 'set-password-confirm', 'my new long passwort');
    await submitForm(wrapper);
    expect(feedbackTexts(wrapper)).toEqual(['The two passwords differ']);
    expect(signIn.calls).toEqual([]);

    await typeInto(wrapper, 'set-password-confirm', 'my new long password');
    await submitForm(wrapper);
    expect(signIn.callsOf('setPassword')).toEqual([{ token: 'pw-token-9', password: 'my new long password' }]);
    expect(wrapper.find('[data-test="set-password-done"]').text()).toContain('Password set');

    await wrapper.find('[data-test="set-password-sign-in"]').trigger('click');
    await waitForElement('[data-test="sign-in-form"]');
    expect(currentPath(wrapper)).toBe('/sign-in');
  });

  it('shows the service’s answer for a used or expired link', async () => {
    const fake = fakeBridge(shellHandlers(() => NO_SESSION));
    const signIn = fakeSignIn({ setPassword: () => new ServiceError(ErrorCode.AUTH_CONSOLE_SESSION, 'token: this link was used or has expired; ask for a new one') });
    const wrapper = await mountPage(AppRoot, { handle: browserHandle(fake.bridge, signIn), path: '/set-password?token=old', session: null });
    await waitForElement('[data-test="set-password-form"]');
    await typeInto(wrapper, 'set-password-password', 'my new long password');
    await typeInto(wrapper, 'set-password-confirm', 'my new long password');
    await submitForm(wrapper);
    expect(wrapper.find('[data-test="set-password-error"]').text()).toBe('token: this link was used or has expired; ask for a new one');
    expect(wrapper.find('[data-test="set-password-done"]').exists()).toBe(false);
  });
});
