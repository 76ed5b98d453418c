/**
 * The operator's balance adjustment form: every adjustment carries an
 * idempotency_key, the same one across retries of that adjustment (an
 * answer lost on the way must not book it twice), a new one once booked;
 * an adjustment that waits for a second person's approval shows the request.
 */
import { afterEach, describe, expect, it } from 'vitest';
import BalanceAdjust from '../../../../src-renderer/views/settings/modules/balance-adjust.vue';
import { consoleApiContract, type ConsoleRequest } from '../../../../src-shared/console-api/contract';
import { fakeBridge, ServiceError } from '../../support/fake-bridge';
import { approval, MERCHANT, OWNER_SESSION } from '../../support/fixtures';

const sessionOfOwner = () => OWNER_SESSION;
import { mountPage, settle, unmountAll } from '../../support/mount-page';
import { typeIn } from '../../support/interact';

afterEach(unmountAll);

const BALANCES = { available: 100_000, frozen: 0, deposit: 0 };

async function submit(): Promise<void> {
  const form = document.querySelector('.n-modal form');
  if (!form) throw new Error('no adjustment form');
  form.dispatchEvent(new Event('submit', { cancelable: true }));
  await settle();
}

describe('balance adjustment form', () => {
  it('sends one idempotency_key per adjustment: kept across a failed attempt, renewed after success', async () => {
    let attempt = 0;
    const fake = fakeBridge({
      getBalances: () => BALANCES,
      adjustBalance: (req) => {
        attempt++;
        // The first answer never arrives (the service may well have booked it).
        if (attempt === 1) throw new Error('socket hang up');
        if (attempt === 2) return new ServiceError(502, 'bad gateway');
        return { done: { merchant_id: req.merchant_id, transaction_id: 40 + attempt, amount: 10_050, reason: req.reason, balances: { ...BALANCES, available: 110_050 } }, approval: null };
      },
    });
    await mountPage(BalanceAdjust, { bridge: fake.bridge, props: { merchant: { ...MERCHANT } } });
    await typeIn('adjust-amount', '100.5');
    await typeIn('adjust-reason', 'top-up by bank transfer');

    await submit();
    expect(document.body.textContent).toContain('socket hang up');
    await submit();
    expect(document.body.textContent).toContain('bad gateway');
    await submit();
    expect(document.body.textContent).toContain('Balance adjusted');

    // The next adjustment is another one.
    await typeIn('adjust-amount', '-20');
    await typeIn('adjust-reason', 'fee correction');
    await submit();

    const calls = fake.callsOf('adjustBalance');
    expect(calls).toHaveLength(4);
    const first = calls[0]!;
    expect(first).toEqual({ merchant_id: MERCHANT.id, amount: '100.50', reason: 'top-up by bank transfer', idempotency_key: expect.stringMatching(/^form-[0-9a-f]{32}$/) });
    expect(calls[1]).toEqual(first);
    expect(calls[2]).toEqual(first);
    const next = calls[3] as ConsoleRequest<'adjustBalance'>;
    expect(next).toMatchObject({ amount: '-20.00', reason: 'fee correction' });
    expect(next.idempotency_key).toMatch(/^form-[0-9a-f]{32}$/);
    expect(next.idempotency_key).not.toBe(first.idempotency_key);
    for (const call of calls) expect(consoleApiContract.adjustBalance.request.safeParse(call).success).toBe(true);
  });

  it('a form opened again is another adjustment with its own key', async () => {
    const fake = fakeBridge({
      getBalances: () => BALANCES,
      adjustBalance: () => new ServiceError(502, 'bad gateway'),
    });
    for (let i = 0; i < 2; i++) {
      await mountPage(BalanceAdjust, { bridge: fake.bridge, props: { merchant: { ...MERCHANT } } });
      await typeIn('adjust-amount', '5');
      await typeIn('adjust-reason', 'same text');
      await submit();
      unmountAll();
    }
    const keys = fake.callsOf('adjustBalance').map((c) => c.idempotency_key);
    expect(keys).toHaveLength(2);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it('an adjustment held for approval shows what will change and links to the request; the next one gets a new key', async () => {
    const request = approval({
      id: 17,
      kind: 'balance_adjustment',
      title: 'Balance adjustment of +100.50 CNY for Demo Merchant',
      title_params: { amount: '100.50', merchant: 'Demo Merchant' },
      changes: [{ key: 'available_balance', label: 'available balance', before: '1000.00', after: '1100.50' }],
      can_decide: false,
      mine: true,
    });
    const fake = fakeBridge({ getBalances: () => BALANCES, adjustBalance: () => ({ done: null, approval: request }), getSession: () => sessionOfOwner() });
    await mountPage(BalanceAdjust, { bridge: fake.bridge, props: { merchant: { ...MERCHANT } } });
    await typeIn('adjust-amount', '100.5');
    await typeIn('adjust-reason', 'top-up by bank transfer');
    await submit();

    const pending = document.querySelector('[data-test="approval-pending"]');
    expect(pending).not.toBeNull();
    expect(pending!.textContent).toContain('Sent for approval');
    // The console's own words for the kind, with the service's amount and merchant.
    expect(pending!.textContent).toContain('Balance adjustment of 100.50 CNY for Demo Merchant');
    expect(pending!.textContent).toContain('1000.00');
    expect(pending!.textContent).toContain('1100.50');
    expect(document.querySelector('[data-test="approval-pending-link"]')!.getAttribute('href')).toContain('/approvals?id=17');
    expect(document.body.textContent).not.toContain('Balance adjusted');

    (document.querySelector('[data-test="adjust-another"]') as HTMLButtonElement).click();
    await settle();
    await typeIn('adjust-amount', '5');
    await typeIn('adjust-reason', 'another');
    await submit();
    const keys = fake.callsOf('adjustBalance').map((c) => c.idempotency_key);
    expect(keys).toHaveLength(2);
    expect(keys[0]).not.toBe(keys[1]);
  });
});
