/**
 * Two-factor enrolment: the QR code (the service's data: image) and the
 * secret for typing, confirmed with a code from the app. While the sign-in
 * stage is 'enrol' the window shows nothing else; the account page offers it
 * to an account without two-factor sign-in.
 */
import { afterEach, describe, expect, it } from 'vitest';
import AppRoot from '../../../src-renderer/layout/app-root.vue';
import AccountPage from '../../../src-renderer/views/account/index.vue';
import { ErrorCode } from '../../../src-shared/errors';
import type { SessionView } from '../../../src-shared/schemas/accounts';
import { fakeBridge, ServiceError } from '../support/fake-bridge';
import { browserHandle, fakeSignIn } from '../support/fake-sign-in';
import { sessionOf } from '../support/fixtures';
import { feedbackTexts, mountPage, settle, submitForm, typeInto, unmountAll, waitFor, waitForElement } from '../support/mount-page';
import { shellHandlers, useFakeRegionCache } from '../support/shell';

useFakeRegionCache();
afterEach(unmountAll);

const QR = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const ENROLMENT = { secret: 'JBSWY3DPEHPK3PXP', otpauth_uri: 'otpauth://totp/merchant-console:fiona?secret=JBSWY3DPEHPK3PXP', qr_data_url: QR };

describe('two-factor enrolment', () => {
  it('while the stage is enrol: only the enrolment; a wrong code is refused under the field; the right one opens the console', async () => {
    let session: SessionView = sessionOf('finance', { stage: 'enrol' }, { totp_enabled: false });
    const fake = fakeBridge(
      shellHandlers(() => session, {
        beginTotpEnrolment: () => ENROLMENT,
        confirmTotpEnrolment: (req) => {
          if (req.code !== '246810') return new ServiceError(ErrorCode.VALIDATION, "code: is not the code the app shows now (check the phone's clock)");
          session = sessionOf('finance');
          return session;
        },
      }),
    );
    const wrapper = await mountPage(AppRoot, { handle: browserHandle(fake.bridge, fakeSignIn({})), path: '/account', session: null });
    await waitForElement('[data-test="enrol-screen"]');
    await waitForElement('[data-test="totp-qr"]');
    expect(document.querySelector('[data-test="totp-qr"]')!.getAttribute('src')).toBe(QR);
    expect(document.querySelector('[data-test="totp-secret"]')!.textContent).toBe('JBSWY3DPEHPK3PXP');
    expect(document.body.textContent).toContain('Your role can approve requests: set up two-factor sign-in before you continue.');
    // Nothing of the console (its calls would be refused until enrolled).
    expect(document.querySelector('[data-test="side-menu"]')).toBeNull();
    expect(fake.calls.map((c) => c.method).sort()).toEqual(['beginTotpEnrolment', 'getSession']);

    await typeInto(wrapper, 'totp-code', '12');
    await submitForm(wrapper);
    expect(feedbackTexts(wrapper)).toEqual(['Enter the 6 digits your authenticator app shows']);
    expect(fake.callsOf('confirmTotpEnrolment')).toEqual([]);

    await typeInto(wrapper, 'totp-code', '111111');
    await submitForm(wrapper);
    expect(feedbackTexts(wrapper)).toEqual(["is not the code the app shows now (check the phone's clock)"]);

    await typeInto(wrapper, 'totp-code', '246810');
    await submitForm(wrapper);
    expect(fake.callsOf('confirmTotpEnrolment')).toEqual([{ code: '111111' }, { code: '246810' }]);
    await waitForElement('[data-test="account"]');
    expect(document.querySelector('[data-test="enrol-screen"]')).toBeNull();
    expect(document.querySelector('[data-test="account-totp-status"]')!.textContent!.trim()).toBe('On');
  });

  it('“start again” asks for a new secret', async () => {
    let n = 0;
    const fake = fakeBridge(
      shellHandlers(sessionOf('owner', { stage: 'enrol' }, { totp_enabled: false }), {
        beginTotpEnrolment: () => ({ ...ENROLMENT, secret: `SECRET${++n}` }),
      }),
    );
    const wrapper = await mountPage(AppRoot, { handle: browserHandle(fake.bridge, fakeSignIn({})), path: '/', session: null });
    await waitFor(() => document.querySelector('[data-test="totp-secret"]')?.textContent === 'SECRET1');
    await wrapper.find('[data-test="totp-restart"]').trigger('click');
    await waitFor(() => document.querySelector('[data-test="totp-secret"]')?.textContent === 'SECRET2');
  });

  it('the account page offers it to an account without two-factor sign-in, and shows it on afterwards', async () => {
    const before = sessionOf('operator', {}, { totp_enabled: false, totp_required: false });
    const fake = fakeBridge({
      listMerchants: () => [],
      beginTotpEnrolment: () => ENROLMENT,
      confirmTotpEnrolment: () => sessionOf('operator', {}, { totp_enabled: true, totp_required: false }),
    });
    const wrapper = await mountPage(AccountPage, { handle: browserHandle(fake.bridge, fakeSignIn({})), session: before });
    expect(wrapper.find('[data-test="account-totp-status"]').text()).toBe('Off');
    await wrapper.find('[data-test="account-totp-enrol"]').trigger('click');
    await waitForElement('[data-test="totp-qr"]');
    const input = document.querySelector<HTMLInputElement>('[data-test="account-totp-modal"] [data-test="totp-code"] input')!;
    input.value = '135790';
    input.dispatchEvent(new Event('input'));
    await settle();
    document.querySelector('[data-test="account-totp-modal"] form')!.dispatchEvent(new Event('submit', { cancelable: true }));
    await settle();
    expect(fake.callsOf('confirmTotpEnrolment')).toEqual([{ code: '135790' }]);
    await waitFor(() => document.querySelector('[data-test="account-totp-modal"]') === null);
    expect(wrapper.find('[data-test="account-totp-status"]').text()).toBe('On');
    expect(wrapper.find('[data-test="account-totp-enrol"]').exists()).toBe(false);
  });
});
