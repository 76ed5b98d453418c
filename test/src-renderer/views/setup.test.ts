/**
 * The first-owner setup page (`#/setup?token=…`, printed by `serve` on a
 * store without accounts): the service's rules for the login and the
 * password, the password twice, the token from the link sent along; the new
 * owner is signed in at once and sets up two-factor sign-in next.
 */
import { afterEach, describe, expect, it } from 'vitest';
import AppRoot from '../../../src-renderer/layout/app-root.vue';
import { ErrorCode } from '../../../src-shared/errors';
import type { SessionView } from '../../../src-shared/schemas/accounts';
import { fakeBridge, ServiceError } from '../support/fake-bridge';
import { browserHandle, fakeSignIn } from '../support/fake-sign-in';
import { sessionOf } from '../support/fixtures';
import { feedbackTexts, mountPage, submitForm, typeInto, unmountAll, waitForElement } from '../support/mount-page';
import { shellHandlers, useFakeRegionCache } from '../support/shell';

useFakeRegionCache();
afterEach(unmountAll);

const NO_SESSION = new ServiceError(ErrorCode.AUTH_CONSOLE_SESSION, 'console session: not signed in');
const QR = 'data:image/png;base64,iVBORw0KGgo=';

describe('first-owner setup', () => {
  it('checks the fields as the service does, sends the token of the link, then shows the two-factor enrolment', async () => {
    let session: SessionView | null = null;
    const fake = fakeBridge(
      shellHandlers(() => session ?? NO_SESSION, {
        beginTotpEnrolment: () => ({ secret: 'JBSWY3DPEHPK3PXP', otpauth_uri: 'otpauth://totp/merchant-console:olga?secret=JBSWY3DPEHPK3PXP', qr_data_url: QR }),
      }),
    );
    const signIn = fakeSignIn({
      setup: (req) => {
        session = sessionOf('owner', { stage: 'enrol' }, { login: req.login, display_name: req.display_name, totp_enabled: false });
        return { stage: 'enrol' };
      },
    });
    const wrapper = await mountPage(AppRoot, { handle: browserHandle(fake.bridge, signIn), path: '/setup?token=setup-token-1', session: null });
    await waitForElement('[data-test="setup-form"]');

    await typeInto(wrapper, 'setup-login', 'Olga Owner');
    await typeInto(wrapper, 'setup-display-name', '');
    await typeInto(wrapper, 'setup-password', 'short');
    await typeInto(wrapper, 'setup-confirm', 'different');
    await submitForm(wrapper);
    expect(feedbackTexts(wrapper)).toEqual([
      'A login name is 3-64 lowercase letters, digits, . _ -, starting with a letter or digit',
      'Enter a display name (at most 64 characters, no control characters)',
      'A password is 12-256 characters',
      'The two passwords differ',
    ]);
    expect(signIn.calls).toEqual([]);

    await typeInto(wrapper, 'setup-login', 'olga');
    await typeInto(wrapper, 'setup-display-name', 'Olga Owner');
    await typeInto(wrapper, 'setup-password', 'a long enough password');
    await typeInto(wrapper, 'setup-confirm', 'a long enough password');
    await submitForm(wrapper);
    expect(signIn.callsOf('setup')).toEqual([{ token: 'setup-token-1', login: 'olga', display_name: 'Olga Owner', password: 'a long enough password' }]);

    // Signed in as the owner, who can approve: two-factor sign-in comes first.
    await waitForElement('[data-test="enrol-screen"]');
    const qr = await waitForElement<HTMLImageElement>('[data-test="totp-qr"]');
    expect(qr.getAttribute('src')).toBe(QR);
    expect(document.querySelector('[data-test="side-menu"]')).toBeNull();
  });

  it('says so when the link has no token', async () => {
    const fake = fakeBridge(shellHandlers(() => NO_SESSION));
    const wrapper = await mountPage(AppRoot, { handle: browserHandle(fake.bridge, fakeSignIn({})), path: '/setup', session: null });
    await waitForElement('[data-test="setup-no-token"]');
    expect(wrapper.find('[data-test="setup-form"]').exists()).toBe(false);
  });

  it('shows the service’s refusal (a used link)', async () => {
    const fake = fakeBridge(shellHandlers(() => NO_SESSION));
    const signIn = fakeSignIn({ setup: () => new ServiceError(ErrorCode.CONFLICT, 'setup: the first owner exists already; sign in instead') });
    const wrapper = await mountPage(AppRoot, { handle: browserHandle(fake.bridge, signIn), path: '/setup?token=t', session: null });
    await waitForElement('[data-test="setup-form"]');
    await typeInto(wrapper, 'setup-login', 'olga');
    await typeInto(wrapper, 'setup-display-name', 'Olga');
    await typeInto(wrapper, 'setup-password', 'a long enough password');
    await typeInto(wrapper, 'setup-confirm', 'a long enough password');
    await submitForm(wrapper);
    expect(wrapper.find('[data-test="setup-error"]').text()).toBe('setup: the first owner exists already; sign in instead');
    expect(wrapper.find('[data-test="setup-form"]').exists()).toBe(true);
  });
});
