/**
 * The approvals inbox: the list (pending first), a request's drawer with every
 * change line; approving sends the fresh code, rejecting needs a note; the
 * buttons follow the service's can_decide and mine; the requester withdraws a
 * pending request and sees an approved new API secret once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import ApprovalsPage from '../../../src-renderer/views/approvals/index.vue';
import { ErrorCode } from '../../../src-shared/errors';
import type { ApprovalView } from '../../../src-shared/schemas/accounts';
import { fakeBridge, ServiceError, type FakeHandlers } from '../support/fake-bridge';
import { approval, MERCHANT, sessionOf } from '../support/fixtures';
import { mountPage, unmountAll, waitForElement } from '../support/mount-page';
import { chooseIn, clickOn, confirmDialog, typeIn } from '../support/interact';

afterEach(unmountAll);

const FINANCE = sessionOf('finance', { approvals_waiting: 1 });

function handlers(list: ApprovalView[], extra: FakeHandlers = {}): FakeHandlers {
  return {
    listMerchants: () => [MERCHANT],
    listApprovals: (req) => ({ list: req.state ? list.filter((a) => a.state === req.state) : list, total: list.length, page: req.page ?? 1, limit: req.limit ?? 20 }),
    // A copy, as every answer over a transport is a new object.
    getApproval: (req) => {
      const found = list.find((a) => a.id === req.id);
      return found ? structuredClone(found) : new ServiceError(ErrorCode.NOT_FOUND, `id: approval request ${req.id} not found`);
    },
    getSession: () => ({ ...FINANCE, approvals_waiting: 0 }),
    ...extra,
  };
}

function drawerText(): string {
  return document.querySelector('[data-test="approval-drawer"]')?.textContent ?? '';
}

describe('approvals inbox', () => {
  it('lists what waits; approving sends the fresh code, then shows the outcome and refreshes the badge', async () => {
    const waiting = approval({ id: 7 });
    const fake = fakeBridge(
      handlers([waiting], {
        approveRequest: (req) => ({
          ...waiting,
          state: 'approved',
          can_decide: false,
          decided_by: { id: 1, login: 'finance', display_name: 'Finance' },
          decided_at: 1767229200,
          decision_note: req.note ?? null,
          outcome: 'sell order S2026010108000000000000001 created',
        }),
      }),
    );
    await mountPage(ApprovalsPage, { bridge: fake.bridge, session: FINANCE });
    expect(fake.callsOf('listApprovals')).toEqual([{ page: 1, limit: 20, state: 'pending' }]);
    const row = document.querySelector('[data-approval-id="7"]')!;
    expect(row.textContent).toContain('Withdrawal');
    expect(row.textContent).toContain('Olivia Operator');
    expect(row.getAttribute('data-can-decide')).toBe('true');

    await clickOn('approval-open');
    await waitForElement('[data-test="approval-approve-form"]');
    expect(document.querySelector('[data-test="approval-title"]')!.textContent).toBe(waiting.title);
    expect([...document.querySelectorAll('[data-test="approval-drawer"] [data-test="approval-change"]')].map((r) => r.textContent)).toEqual([
      'Amount paid out—→5000.00',
      'Service fee—→30.00',
      'Available balance10000.00→4945.00',
    ]);
    expect(drawerText()).toContain('Olivia Operator (olivia)');
    expect(drawerText()).toContain('2026-01-02 08:00:00');

    // Without a code nothing is sent.
    await clickOn('approval-approve');
    expect(fake.callsOf('approveRequest')).toEqual([]);
    expect(drawerText()).toContain('Enter the 6 digits your authenticator app shows');

    await typeIn('approval-totp', '123456');
    await clickOn('approval-approve');
    expect(fake.callsOf('approveRequest')).toEqual([{ id: 7, totp_code: '123456' }]);
    expect(document.querySelector('[data-test="approval-state"]')!.textContent).toBe('Approved');
    expect(document.querySelector('[data-test="approval-outcome"]')!.textContent).toBe('sell order S2026010108000000000000001 created');
    expect(document.querySelector('[data-test="approval-approve-form"]')).toBeNull();
    expect(fake.callsOf('getSession')).toHaveLength(1);
    expect(fake.callsOf('listApprovals')).toHaveLength(2);
  });

  it('a refused code is shown under the code field, which is emptied for the next code', async () => {
    const fake = fakeBridge(
      handlers([approval({ id: 8 })], { approveRequest: () => new ServiceError(ErrorCode.VALIDATION, 'totp_code: wrong or already used; enter the code the app shows now') }),
    );
    await mountPage(ApprovalsPage, { bridge: fake.bridge, session: FINANCE, path: '/approvals?id=8' });
    await waitForElement('[data-test="approval-approve-form"]');
    await typeIn('approval-totp', '111111');
    await clickOn('approval-approve');
    expect(drawerText()).toContain('wrong or already used; enter the code the app shows now');
    expect(document.querySelector<HTMLInputElement>('[data-test="approval-totp"] input')!.value).toBe('');
  });

  it('rejecting needs a note', async () => {
    const waiting = approval({ id: 9, kind: 'balance_adjustment', title: 'Balance adjustment of -200.00 CNY for Demo Merchant' });
    const fake = fakeBridge(handlers([waiting], { rejectRequest: (req) => ({ ...waiting, state: 'rejected', can_decide: false, decision_note: req.note }) }));
    await mountPage(ApprovalsPage, { bridge: fake.bridge, session: FINANCE, path: '/approvals?id=9' });
    await waitForElement('[data-test="approval-reject-form"]');

    await clickOn('approval-reject');
    expect(fake.callsOf('rejectRequest')).toEqual([]);
    expect(drawerText()).toContain('Give a reason (at most 256 characters)');

    await typeIn('approval-reject-note', 'no ticket for this adjustment');
    await clickOn('approval-reject');
    expect(fake.callsOf('rejectRequest')).toEqual([{ id: 9, note: 'no ticket for this adjustment' }]);
    expect(document.querySelector('[data-test="approval-state"]')!.textContent).toBe('Rejected');
    expect(drawerText()).toContain('no ticket for this adjustment');
  });

  it('can_decide false hides approve and reject; the requester may withdraw a pending request', async () => {
    const own = approval({ id: 10, can_decide: false, mine: true, requested_by: { id: 1, login: 'operator', display_name: 'Operator' } });
    const fake = fakeBridge(handlers([own], { cancelRequest: () => ({ ...own, state: 'cancelled' }) }));
    await mountPage(ApprovalsPage, { bridge: fake.bridge, session: sessionOf('operator'), path: '/approvals?id=10' });
    await waitForElement('[data-test="approval-cancel"]');
    expect(document.querySelector('[data-test="approval-approve"]')).toBeNull();
    expect(document.querySelector('[data-test="approval-reject"]')).toBeNull();
    expect(document.querySelector('[data-test="approval-totp"]')).toBeNull();
    expect(drawerText()).toContain('You asked for this: another person with the permission must decide it.');

    await clickOn('approval-cancel');
    await confirmDialog('Withdraw request');
    expect(fake.callsOf('cancelRequest')).toEqual([{ id: 10 }]);
    expect(document.querySelector('[data-test="approval-state"]')!.textContent).toBe('Withdrawn');
    expect(document.querySelector('[data-test="approval-cancel"]')).toBeNull();
  });

  it('someone else’s request the account may not decide shows neither decision nor withdrawal', async () => {
    const other = approval({ id: 11, can_decide: false, mine: false });
    const fake = fakeBridge(handlers([other]));
    await mountPage(ApprovalsPage, { bridge: fake.bridge, session: sessionOf('viewer'), path: '/approvals?id=11' });
    await waitForElement('[data-test="approval-title"]');
    for (const id of ['approval-approve', 'approval-reject', 'approval-cancel', 'approval-reveal']) expect(document.querySelector(`[data-test="${id}"]`), id).toBeNull();
  });

  it('the requester of an approved new API secret sees it once', async () => {
    const rotation = approval({
      id: 12,
      kind: 'secret_rotation',
      state: 'approved',
      mine: true,
      can_decide: false,
      title: 'New API secret for Demo Merchant (mk_demo_0001)',
      title_params: { merchant: 'Demo Merchant', api_key: 'mk_demo_0001' },
      changes: [{ key: 'api_secret', label: 'api_secret', before: 'current', after: 'new' }],
      outcome: 'API secret replaced; the requester can see the new one once',
      can_reveal_secret: true,
    });
    // Once shown, the service says it is gone.
    const fake = fakeBridge(
      handlers([rotation], {
        revealRotatedSecret: () => {
          rotation.can_reveal_secret = false;
          return { ...MERCHANT, api_secret: 'sk_new_secret_value' };
        },
      }),
    );
    await mountPage(ApprovalsPage, { bridge: fake.bridge, session: sessionOf('developer'), path: '/approvals?id=12' });
    await waitForElement('[data-test="approval-reveal"]');
    await clickOn('approval-reveal');
    expect(fake.callsOf('revealRotatedSecret')).toEqual([{ approval_id: 12 }]);
    expect((await waitForElement('[data-test="api-secret"]')).textContent).toBe('sk_new_secret_value');
    await expect.poll(() => document.querySelector('[data-test="approval-reveal"]')).toBeNull();
  });

  it('filters by state and merchant', async () => {
    const fake = fakeBridge(handlers([approval({ id: 13 })]));
    const wrapper = await mountPage(ApprovalsPage, { bridge: fake.bridge, session: FINANCE });
    await chooseIn(wrapper, 'approvals-filter-state', null);
    await chooseIn(wrapper, 'approvals-filter-merchant', 1);
    expect(fake.callsOf('listApprovals')).toEqual([
      { page: 1, limit: 20, state: 'pending' },
      { page: 1, limit: 20 },
      { page: 1, limit: 20, merchant_id: 1 },
    ]);
  });
});
