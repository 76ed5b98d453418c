/**
 * The merchants tab under the staff rules: a new API secret waits for a
 * second person (the request is shown; the secret is revealed later on the
 * approvals page), or — where nobody else could approve (the desktop owner
 * alone) — is shown at once; withdrawal thresholds are sent in yuan (empty:
 * API withdrawals never held); a developer edits the callback URL and sign
 * type only.
 */
import { afterEach, describe, expect, it } from 'vitest';
import MerchantsPanel from '../../../../src-renderer/views/settings/modules/merchants-panel.vue';
import { fakeBridge } from '../../support/fake-bridge';
import { approval, MERCHANT, OWNER_SESSION, sessionOf } from '../../support/fixtures';
import { mountPage, settle, unmountAll, waitForElement } from '../../support/mount-page';
import { clickOn, confirmDialog, typeIn } from '../../support/interact';

afterEach(unmountAll);

describe('merchants tab', () => {
  it('a new API secret is requested for approval and shown as waiting', async () => {
    const request = approval({ id: 21, kind: 'secret_rotation', title: 'New API secret for Demo Merchant (mk_demo_0001)', title_params: { merchant: 'Demo Merchant', api_key: 'mk_demo_0001' }, mine: true, can_decide: false });
    const fake = fakeBridge({ listMerchants: () => [MERCHANT], rotateMerchantSecret: () => ({ done: null, approval: request }), getSession: () => OWNER_SESSION });
    await mountPage(MerchantsPanel, { bridge: fake.bridge });
    await settle();
    await clickOn('rotate-secret');
    await confirmDialog('Rotate secret');
    expect(fake.callsOf('rotateMerchantSecret')).toEqual([{ merchant_id: 1 }]);
    const pending = await waitForElement('[data-test="rotate-pending"] [data-test="approval-pending"]');
    expect(pending.textContent).toContain('New API secret for Demo Merchant (mk_demo_0001)');
    expect(document.querySelector('[data-test="secret-once"]')).toBeNull();
  });

  it('where nobody else could approve, the new secret is shown at once', async () => {
    const fake = fakeBridge({ listMerchants: () => [MERCHANT], rotateMerchantSecret: () => ({ done: { ...MERCHANT, api_secret: 'sk_rotated' }, approval: null }) });
    await mountPage(MerchantsPanel, { bridge: fake.bridge });
    await settle();
    await clickOn('rotate-secret');
    await confirmDialog('Rotate secret');
    expect((await waitForElement('[data-test="api-secret"]')).textContent).toBe('sk_rotated');
  });

  it('shows and edits the withdrawal thresholds in yuan', async () => {
    const fake = fakeBridge({
      listMerchants: () => [{ ...MERCHANT, console_withdrawal_threshold: 500_000, api_withdrawal_threshold: null }],
      updateMerchantLimits: () => ({ ...MERCHANT, console_withdrawal_threshold: 0, api_withdrawal_threshold: 1_000_000 }),
    });
    await mountPage(MerchantsPanel, { bridge: fake.bridge });
    await settle();
    expect(document.querySelector('[data-test="merchant-thresholds"]')!.textContent).toBe('console 5,000.00 · API never');

    await clickOn('merchant-limits-open');
    expect(document.querySelector<HTMLInputElement>('[data-test="limits-console"] input')!.value).toBe('5000.00');
    await typeIn('limits-console', '0');
    await typeIn('limits-api', '10000');
    await clickOn('limits-save');
    expect(fake.callsOf('updateMerchantLimits')).toEqual([{ id: 1, console_withdrawal_threshold: '0', api_withdrawal_threshold: '10000' }]);
    expect(document.querySelector('[data-test="merchant-limits"]')).toBeNull();
    expect(document.querySelector('[data-test="merchant-thresholds"]')!.textContent).toBe('console 0.00 · API 10,000.00');
  });

  it('a developer edits the callback URL and sign type through the developer settings', async () => {
    const fake = fakeBridge({
      listMerchants: () => [MERCHANT],
      updateMerchantDeveloperSettings: (req) => ({ ...MERCHANT, callback_url: req.callback_url ?? null, sign_type: req.sign_type ?? MERCHANT.sign_type }),
    });
    await mountPage(MerchantsPanel, { bridge: fake.bridge, session: sessionOf('developer') });
    await settle();
    await clickOn('merchant-developer-open');
    await typeIn('developer-callback-url', 'ftp://nope');
    await clickOn('developer-save');
    expect(fake.callsOf('updateMerchantDeveloperSettings')).toEqual([]);
    expect(document.querySelector('[data-test="merchant-developer"]')!.textContent).toContain('The callback URL must start with http:// or https://');

    await typeIn('developer-callback-url', 'https://shop.example.com/notify');
    await clickOn('developer-save');
    expect(fake.callsOf('updateMerchantDeveloperSettings')).toEqual([{ merchant_id: 1, callback_url: 'https://shop.example.com/notify', sign_type: 'hmac-sha256' }]);
  });

  it('settlement accounts are enabled or disabled with the merchant named in the call', async () => {
    const method = { id: 3, merchant_id: 1, kind: 'bank' as const, source: 'operator' as const, bank: 'ICBC', sub_bank: '', card_number: '622202*********3445', real_name: '李四', enabled: true, createtime: 1767225600 };
    const fake = fakeBridge({
      listMerchants: () => [MERCHANT],
      listPaymentMethods: () => [method],
      setPaymentMethodEnabled: (req) => ({ ...method, enabled: req.enabled }),
    });
    await mountPage(MerchantsPanel, { bridge: fake.bridge, session: sessionOf('finance') });
    await settle();
    await clickOn('payment-methods-open');
    await waitForElement('[data-test="payment-methods"] [data-test="payment-method-enabled"]');
    expect(document.querySelector('[data-test="payment-methods"]')!.textContent).toContain('622202*********3445');
    await clickOn('payment-method-enabled');
    expect(fake.callsOf('setPaymentMethodEnabled')).toEqual([{ merchant_id: 1, id: 3, enabled: false }]);
    unmountAll();

    // A viewer sees them, without the switch.
    await mountPage(MerchantsPanel, { bridge: fake.bridge, session: sessionOf('viewer') });
    await settle();
    await clickOn('payment-methods-open');
    await waitForElement('[data-test="payment-methods"] tbody tr');
    expect(document.querySelector('[data-test="payment-method-enabled"]')).toBeNull();
  });
});
