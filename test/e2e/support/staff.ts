/**
 * Staff steps in the browser console (docs/accounts.md), as a person takes
 * them: the first owner from the setup link, two-factor enrolment from the
 * secret the page shows, sign-in with name, password and a code, sign-out.
 * Codes are real TOTP codes (otpauth); each time step is used once per
 * account, so the helper remembers the last step it used.
 */
import type { Page } from 'playwright-core';
import { totpCodeAt, TOTP_PERIOD_SECONDS } from '../../../src-main/auth/totp';

export interface StaffAccount {
  login: string;
  password: string;
  /** Set once two-factor sign-in is enrolled. */
  totpSecret: string | null;
  lastStep: number;
}

export function staff(login: string, password: string): StaffAccount {
  return { login, password, totpSecret: null, lastStep: 0 };
}

/** A code of a time step this account has not used yet (now, or the next step, which the service also accepts); waits when both are spent. */
export async function freshCode(account: StaffAccount): Promise<string> {
  if (!account.totpSecret) throw new Error(`${account.login} has no two-factor sign-in`);
  for (;;) {
    const step = Math.floor(Date.now() / 1000 / TOTP_PERIOD_SECONDS);
    for (const candidate of [step, step + 1]) {
      if (candidate > account.lastStep) {
        account.lastStep = candidate;
        return totpCodeAt(account.totpSecret, account.login, candidate * TOTP_PERIOD_SECONDS);
      }
    }
    await new Promise((r) => setTimeout(r, (step + 1) * TOTP_PERIOD_SECONDS * 1000 - Date.now() + 250));
  }
}

/** On the enrolment screen: reads the secret the page shows (as a person typing it into an app would) and confirms a code. */
export async function enrolTotp(page: Page, account: StaffAccount): Promise<void> {
  await page.locator('[data-test="totp-qr"]').waitFor();
  account.totpSecret = (await page.locator('[data-test="totp-secret"]').innerText()).replace(/\s+/g, '');
  await page.locator('[data-test="totp-code"] input').fill(await freshCode(account));
  await page.locator('[data-test="totp-confirm"]').click();
}

/** Opens the first-owner setup link, creates the owner and enrols its two-factor sign-in; ends on the console. */
export async function setUpOwner(page: Page, setupUrl: string, owner: StaffAccount, displayName: string): Promise<void> {
  await page.goto(setupUrl);
  await page.locator('[data-test="setup-login"] input').fill(owner.login);
  await page.locator('[data-test="setup-display-name"] input').fill(displayName);
  await page.locator('[data-test="setup-password"] input').fill(owner.password);
  await page.locator('[data-test="setup-confirm"] input').fill(owner.password);
  await page.locator('[data-test="setup-submit"]').click();
  await enrolTotp(page, owner);
  await page.locator('[data-test="side-menu"]').waitFor();
}

/** Signs in on the sign-in page: name and password, then a code when two-factor is on (or enrolment when the role needs it). */
export async function signIn(page: Page, consoleUrl: string, account: StaffAccount): Promise<'code' | 'enrolled' | 'password'> {
  await page.goto(`${consoleUrl}#/sign-in`);
  await page.locator('[data-test="sign-in-login"] input').fill(account.login);
  await page.locator('[data-test="sign-in-password"] input').fill(account.password);
  await page.locator('[data-test="sign-in-submit"]').click();
  const next = await Promise.race([
    page.locator('[data-test="sign-in-code"]').waitFor().then(() => 'code' as const),
    page.locator('[data-test="totp-enrolment"]').waitFor().then(() => 'enrol' as const),
    page.locator('[data-test="side-menu"]').waitFor().then(() => 'in' as const),
  ]);
  if (next === 'code') {
    await page.locator('[data-test="sign-in-code"] input').fill(await freshCode(account));
    await page.locator('[data-test="sign-in-verify"]').click();
  } else if (next === 'enrol') {
    await enrolTotp(page, account);
  }
  await page.locator('[data-test="side-menu"]').waitFor();
  return next === 'code' ? 'code' : next === 'enrol' ? 'enrolled' : 'password';
}

/** Signs out from the header (it asks first). */
export async function signOut(page: Page): Promise<void> {
  await page.locator('[data-test="sign-out"]').click();
  // The dialog's confirming button is its last one, whatever the language.
  await page.locator('.n-dialog__action .n-button').last().click();
  await page.locator('[data-test="signed-out"]').waitFor();
}
