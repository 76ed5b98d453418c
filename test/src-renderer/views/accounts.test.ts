/**
 * The accounts page: the list; a new account with the service's rules
 * (login, password twice, merchants for a limited role); disable; a password
 * reset's one-time link shown once; a two-factor reset; a role change that
 * waits for approval. Nobody is offered to disable their own account or ask
 * for their own role.
 */
import { afterEach, describe, expect, it } from 'vitest';
import AccountsPage from '../../../src-renderer/views/accounts/index.vue';
import type { AccountView } from '../../../src-shared/schemas/accounts';
import { fakeBridge, type FakeHandlers } from '../support/fake-bridge';
import { account, approval, MERCHANT, sessionOf } from '../support/fixtures';
import { mountPage, settle, unmountAll, waitForElement } from '../support/mount-page';
import { chooseIn, confirmDialog, typeIn } from '../support/interact';

afterEach(unmountAll);

const OWNER = sessionOf('owner', {}, { id: 1, login: 'olga', display_name: 'Olga Owner' });
const ACCOUNTS: AccountView[] = [
  account({ id: 1, login: 'olga', role: 'owner', display_name: 'Olga Owner' }),
  account({ id: 2, login: 'fiona', role: 'finance', display_name: 'Fiona Finance' }),
  account({ id: 3, login: 'oscar', role: 'operator', display_name: 'Oscar Operator', merchant_ids: [1] }),
];

function handlers(extra: FakeHandlers = {}): FakeHandlers {
  return { listMerchants: () => [MERCHANT], listAccounts: () => ACCOUNTS, getSession: () => OWNER, ...extra };
}

function rowOf(login: string): Element {
  const row = document.querySelector(`[data-account-login="${login}"]`);
  if (!row) throw new Error(`no row of ${login}`);
  return row;
}

async function clickIn(row: Element, dataTest: string): Promise<void> {
  const button = row.querySelector<HTMLElement>(`[data-test="${dataTest}"]`);
  if (!button) throw new Error(`no [data-test="${dataTest}"] in the row`);
  button.click();
  await settle();
}

function feedback(): string[] {
  return [...document.querySelectorAll('[data-test="account-create"] .n-form-item-feedback__line')].map((n) => n.textContent!.trim()).filter(Boolean);
}

describe('accounts page', () => {
  it('lists the accounts with role, merchants and two-factor state; not its own disable or role change', async () => {
    const fake = fakeBridge(handlers());
    await mountPage(AccountsPage, { bridge: fake.bridge, session: OWNER });
    await settle();
    expect(rowOf('fiona').textContent).toContain('Finance');
    expect(rowOf('fiona').textContent).toContain('All merchants');
    expect(rowOf('oscar').textContent).toContain('#1 Demo Merchant');
    expect(rowOf('oscar').textContent).toContain('Off');
    expect(rowOf('olga').querySelector('[data-test="account-toggle"]')).toBeNull();
    expect(rowOf('olga').querySelector('[data-test="account-role-open"]')).toBeNull();
    expect(rowOf('fiona').querySelector('[data-test="account-toggle"]')).not.toBeNull();
    expect(rowOf('fiona').querySelector('[data-test="account-reset-totp"]')).not.toBeNull();
    expect(rowOf('oscar').querySelector('[data-test="account-reset-totp"]')).toBeNull();
  });

  it('creates an account with the service’s rules; a limited role names its merchants', async () => {
    const fake = fakeBridge(handlers({ createAccount: (req) => account({ id: 4, login: req.login, role: req.role, merchant_ids: req.merchant_ids ?? null }) }));
    const wrapper = await mountPage(AccountsPage, { bridge: fake.bridge, session: OWNER });
    await settle();
    (document.querySelector('[data-test="account-create-open"]') as HTMLElement).click();
    await waitForElement('[data-test="account-form"]');

    await typeIn('account-form-login', 'x');
    await typeIn('account-form-password', 'short');
    await typeIn('account-form-confirm', 'other');
    (document.querySelector('[data-test="account-form"] [data-scope="some"] input') as HTMLInputElement).click();
    await settle();
    document.querySelector('[data-test="account-form"]')!.dispatchEvent(new Event('submit', { cancelable: true }));
    await settle();
    expect(feedback()).toEqual([
      'A login name is 3-64 lowercase letters, digits, . _ -, starting with a letter or digit',
      'Enter a display name (at most 64 characters, no control characters)',
      'A password is 12-256 characters',
      'The two passwords differ',
      'Choose at least one merchant',
    ]);
    expect(fake.callsOf('createAccount')).toEqual([]);

    await typeIn('account-form-login', 'nina');
    await typeIn('account-form-display-name', 'Nina Operator');
    await typeIn('account-form-password', 'first password 123');
    await typeIn('account-form-confirm', 'first password 123');
    await chooseIn(wrapper, 'account-form-merchants', [1]);
    await settle();
    document.querySelector('[data-test="account-form"]')!.dispatchEvent(new Event('submit', { cancelable: true }));
    await settle();
    expect(fake.callsOf('createAccount')).toEqual([{ login: 'nina', display_name: 'Nina Operator', password: 'first password 123', role: 'operator', merchant_ids: [1] }]);
    expect(document.querySelector('[data-test="account-create"]')).toBeNull();
    expect(fake.callsOf('listAccounts')).toHaveLength(2);
  });

  it('an admin is always platform staff: no merchants are asked for or sent', async () => {
    const fake = fakeBridge(handlers({ createAccount: (req) => account({ id: 5, login: req.login, role: req.role }) }));
    const wrapper = await mountPage(AccountsPage, { bridge: fake.bridge, session: OWNER });
    await settle();
    (document.querySelector('[data-test="account-create-open"]') as HTMLElement).click();
    await waitForElement('[data-test="account-form"]');
    await chooseIn(wrapper, 'account-form-role', 'admin');
    await settle();
    expect(document.querySelector('[data-test="account-form-scope"]')).toBeNull();
    expect(document.querySelector('[data-test="account-create"]')!.textContent).toContain('Owners and admins are always platform staff');
    await typeIn('account-form-login', 'adam');
    await typeIn('account-form-display-name', 'Adam Admin');
    await typeIn('account-form-password', 'first password 123');
    await typeIn('account-form-confirm', 'first password 123');
    document.querySelector('[data-test="account-form"]')!.dispatchEvent(new Event('submit', { cancelable: true }));
    await settle();
    expect(fake.callsOf('createAccount')).toEqual([{ login: 'adam', display_name: 'Adam Admin', password: 'first password 123', role: 'admin', merchant_ids: null }]);
  });

  it('shows a password reset’s one-time link once, with a copy button', async () => {
    const url = 'https://console.example.com/console/#/set-password?token=once-only';
    const fake = fakeBridge(handlers({ resetAccountPassword: () => ({ url, expires_at: 1767312000 }) }));
    await mountPage(AccountsPage, { bridge: fake.bridge, session: OWNER });
    await settle();
    await clickIn(rowOf('oscar'), 'account-reset-password');
    await confirmDialog('Reset password');
    expect(fake.callsOf('resetAccountPassword')).toEqual([{ id: 3 }]);
    const link = await waitForElement<HTMLElement>('[data-test="account-link"]');
    expect(document.querySelector<HTMLInputElement>('[data-test="account-link-url"] input')!.value).toBe(url);
    expect(document.querySelector('[data-test="account-link-copy"]')).not.toBeNull();
    expect(link.textContent).toContain('Give this link to oscar safely. It works once, until 2026-01-02 08:00:00.');
    (document.querySelector('[data-test="account-link-ack"]') as HTMLElement).click();
    await settle();
    expect(document.querySelector('[data-test="account-link"]')).toBeNull();
    expect(document.body.textContent).not.toContain('once-only');
  });

  it('disables an account after asking, and resets two-factor sign-in', async () => {
    const fake = fakeBridge(handlers({ updateAccount: (req) => ({ ...ACCOUNTS[1]!, enabled: req.enabled ?? true }), resetAccountTotp: () => ({ ...ACCOUNTS[1]!, totp_enabled: false }) }));
    await mountPage(AccountsPage, { bridge: fake.bridge, session: OWNER });
    await settle();
    await clickIn(rowOf('fiona'), 'account-toggle');
    expect(document.body.textContent).toContain('fiona will not be able to sign in. Disable the account?');
    await confirmDialog('Disable');
    expect(fake.callsOf('updateAccount')).toEqual([{ id: 2, enabled: false }]);

    await clickIn(rowOf('fiona'), 'account-reset-totp');
    await confirmDialog('Reset two-factor');
    expect(fake.callsOf('resetAccountTotp')).toEqual([{ id: 2 }]);
  });

  it('a role change is sent for approval and shown as waiting', async () => {
    const request = approval({
      id: 40,
      kind: 'account_role',
      merchant_id: null,
      merchant_name: null,
      title: 'Role of oscar: operator → finance',
      title_params: { account: 'Oscar', login: 'oscar', from_role: 'operator', to_role: 'finance' },
      changes: [{ key: 'role', label: 'role', before: 'operator', after: 'finance' }],
      mine: true,
      can_decide: false,
    });
    const fake = fakeBridge(handlers({ requestRoleChange: () => ({ done: null, approval: request }) }));
    const wrapper = await mountPage(AccountsPage, { bridge: fake.bridge, session: OWNER });
    await settle();
    await clickIn(rowOf('oscar'), 'account-role-open');
    await waitForElement('[data-test="account-role"]');
    expect(document.querySelector('[data-test="account-role"]')!.textContent).toContain('A role change takes effect once another person with the permission approves it.');
    await chooseIn(wrapper, 'account-role-select', 'finance');
    await settle();
    (document.querySelector('[data-test="account-role-submit"]') as HTMLElement).click();
    await settle();
    expect(fake.callsOf('requestRoleChange')).toEqual([{ id: 3, role: 'finance' }]);
    const pending = await waitForElement('[data-test="account-role"] [data-test="approval-pending"]');
    expect(pending.textContent).toContain('Sent for approval');
    // The console's words, role names translated.
    expect(pending.textContent).toContain('Role of Oscar (oscar): Operator → Finance');
  });
});
