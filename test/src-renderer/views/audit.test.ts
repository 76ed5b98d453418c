/**
 * The audit page: filters (account, action, merchant, Beijing days) go to
 * listAuditLog as the service takes them; pages follow the keyset cursor
 * (before_id), the pager offering one page beyond what is known; the CSV
 * export walks every page with the order export's rules (BOM, neutralised
 * cells, Beijing times) — formatted by src-shared/csv/audit-csv.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import AuditPage from '../../../src-renderer/views/audit/index.vue';
import { emptyAuditFilters, toAuditRequest } from '../../../src-renderer/views/audit/modules/audit-filters';
import { CSV_BOM } from '../../../src-shared/csv/csv';
import { formatAuditCsv } from '../../../src-shared/csv/audit-csv';
import type { ConsoleRequest } from '../../../src-shared/console-api/contract';
import type { AuditEntryView } from '../../../src-shared/schemas/accounts';
import { fakeBridge } from '../support/fake-bridge';
import { MERCHANT, sessionOf } from '../support/fixtures';
import { mountPage, settle, typeInto, unmountAll, waitFor } from '../support/mount-page';
import { downloads } from '../support/downloads';
import { chooseIn } from '../support/interact';

vi.mock('../../../src-renderer/utils/download', () => import('../support/downloads'));

afterEach(() => {
  unmountAll();
  downloads.length = 0;
});

function entry(id: number, overrides: Partial<AuditEntryView> = {}): AuditEntryView {
  return {
    id,
    // One minute apart, the newest last: 2026-01-01 08:00:00 Beijing for id 0.
    at: 1767225600 + id * 60,
    actor_kind: 'account',
    account_login: id % 2 === 0 ? 'fiona' : 'olivia',
    role: id % 2 === 0 ? 'finance' : 'operator',
    address: '10.0.0.7',
    user_agent: 'Mozilla/5.0',
    action: id % 2 === 0 ? 'approval.approve' : 'approval.request',
    target: `approval #${id}`,
    merchant_id: 1,
    before: id % 2 === 0 ? { state: 'pending' } : null,
    after: id % 2 === 0 ? { state: 'approved' } : { amount: '5000.00' },
    hash: `${id}`.padStart(64, 'a'),
    ...overrides,
  };
}

/** The trail of `count` entries, newest first, paged by before_id like the service. */
function trail(count: number, extra: (id: number) => Partial<AuditEntryView> = () => ({})) {
  const all = Array.from({ length: count }, (_, i) => entry(count - i, extra(count - i)));
  return {
    all,
    listAuditLog: (req: ConsoleRequest<'listAuditLog'>) => {
      const limit = req.limit ?? 50;
      const older = all.filter((e) => (req.before_id === undefined || e.id < req.before_id) && (req.account_login === undefined || e.account_login === req.account_login));
      const list = older.slice(0, limit);
      return { list, next_before_id: older.length > limit ? list[list.length - 1]!.id : null };
    },
  };
}

const AUDITOR = sessionOf('finance');

describe('audit page', () => {
  it('turns the filters into the request: login, action, merchant, Beijing days', async () => {
    expect(toAuditRequest({ ...emptyAuditFilters(), account_login: '  fiona ', action: 'balance.adjust', merchant_id: 1, range: ['2026-01-01', '2026-01-02'] })).toEqual({
      account_login: 'fiona',
      action: 'balance.adjust',
      merchant_id: 1,
      start_time: 1767196800,
      end_time: 1767369599,
    });
    expect(toAuditRequest(emptyAuditFilters())).toEqual({});

    const server = trail(3);
    const fake = fakeBridge({ listMerchants: () => [MERCHANT], listAuditLog: server.listAuditLog });
    const wrapper = await mountPage(AuditPage, { bridge: fake.bridge, session: AUDITOR });
    await settle();
    expect(fake.callsOf('listAuditLog')).toEqual([{ limit: 50 }]);
    const rows = [...document.querySelectorAll('[data-test="audit-table"] tbody tr')];
    expect(rows.map((r) => r.getAttribute('data-audit-id'))).toEqual(['3', '2', '1']);
    // Beijing time, the actor, the action's label and code, the changes.
    const cells = [...rows[1]!.querySelectorAll('td')].map((td) => td.textContent!.trim());
    expect(cells[0]).toBe('2026-01-01 08:02:00');
    expect(cells[1]).toBe('fiona');
    expect(cells[3]).toBe('Approvedapproval.approve');
    expect(cells[7]).toBe('Before: {"state":"pending"}After: {"state":"approved"}');

    await typeInto(wrapper, 'audit-filter-account', 'fiona');
    await wrapper.find('[data-test="audit-filter-search"]').trigger('click');
    await settle();
    await chooseIn(wrapper, 'audit-filter-action', 'approval.approve');
    await settle();
    await chooseIn(wrapper, 'audit-filter-merchant', 1);
    await settle();
    expect(fake.callsOf('listAuditLog').slice(1)).toEqual([
      { limit: 50, account_login: 'fiona' },
      { limit: 50, account_login: 'fiona', action: 'approval.approve' },
      { limit: 50, account_login: 'fiona', action: 'approval.approve', merchant_id: 1 },
    ]);
    expect([...document.querySelectorAll('[data-test="audit-table"] tbody tr')].map((r) => r.getAttribute('data-audit-id'))).toEqual(['2']);

    await wrapper.find('[data-test="audit-filter-reset"]').trigger('click');
    await settle();
    expect(fake.callsOf('listAuditLog').at(-1)).toEqual({ limit: 50 });
  });

  it('pages back in time with the keyset cursor, one page beyond what is known', async () => {
    const server = trail(120);
    const fake = fakeBridge({ listMerchants: () => [MERCHANT], listAuditLog: server.listAuditLog });
    await mountPage(AuditPage, { bridge: fake.bridge, session: AUDITOR });
    await settle();
    const pageItems = () => [...document.querySelectorAll<HTMLElement>('[data-test="audit-table"] .n-pagination-item')].map((n) => n.textContent!.trim()).filter((s) => /^\d+$/.test(s));
    expect(pageItems()).toEqual(['1', '2']);

    [...document.querySelectorAll<HTMLElement>('[data-test="audit-table"] .n-pagination-item')].find((n) => n.textContent!.trim() === '2')!.click();
    await settle();
    // Page 2 starts where page 1 ended (ids 120..71 on page 1).
    expect(fake.callsOf('listAuditLog').at(-1)).toEqual({ limit: 50, before_id: 71 });
    expect(document.querySelector('[data-test="audit-table"] tbody tr')!.getAttribute('data-audit-id')).toBe('70');
    expect(pageItems()).toEqual(['1', '2', '3']);

    [...document.querySelectorAll<HTMLElement>('[data-test="audit-table"] .n-pagination-item')].find((n) => n.textContent!.trim() === '3')!.click();
    await settle();
    expect(fake.callsOf('listAuditLog').at(-1)).toEqual({ limit: 50, before_id: 21 });
    expect(document.querySelectorAll('[data-test="audit-table"] tbody tr')).toHaveLength(20);
    // The end: no page beyond.
    expect(pageItems()).toEqual(['1', '2', '3']);
  });

  it('exports every page of the filtered trail as CSV with the order export’s rules', async () => {
    // One entry's target looks like a formula: a spreadsheet must not run it.
    const server = trail(450, (id) => (id === 301 ? { target: '=HYPERLINK("http://evil")', account_login: 'fiona' } : {}));
    const fake = fakeBridge({ listMerchants: () => [MERCHANT], listAuditLog: server.listAuditLog });
    const wrapper = await mountPage(AuditPage, { bridge: fake.bridge, session: AUDITOR });
    await settle();
    await typeInto(wrapper, 'audit-filter-account', 'fiona');
    await wrapper.find('[data-test="audit-filter-search"]').trigger('click');
    await settle();

    await wrapper.find('[data-test="audit-export"]').trigger('click');
    await waitFor(() => downloads.length > 0);
    // The largest pages the service allows, following next_before_id, with the applied filters.
    expect(fake.callsOf('listAuditLog').slice(2)).toEqual([
      { account_login: 'fiona', limit: 200 },
      { account_login: 'fiona', limit: 200, before_id: 54 },
    ]);
    const { filename, text } = downloads[0]!;
    expect(filename).toMatch(/^audit-\d{8}\.csv$/);
    expect(text.startsWith(CSV_BOM)).toBe(true);
    const lines = text.slice(1).split('\r\n');
    expect(lines[0]).toBe('id,at,actor_kind,account_login,role,address,user_agent,action,target,merchant_id,before,after,hash');
    expect(lines.filter((l) => l.startsWith('id,'))).toHaveLength(1);
    // 225 even ids (fiona) + the odd one made fiona's.
    expect(lines.filter((l) => l !== '')).toHaveLength(1 + 226);
    expect(lines[1]).toBe(`450,2026-01-01 15:30:00,account,fiona,finance,10.0.0.7,Mozilla/5.0,approval.approve,approval #450,1,"{""state"":""pending""}","{""state"":""approved""}",${'450'.padStart(64, 'a')}`);
    expect(text).toContain(`,"'=HYPERLINK(""http://evil"")",`);
    expect(document.body.textContent).toContain('Exported 226 audit entries');
  });

  it('formats entries without an account, values or merchant', () => {
    const csv = formatAuditCsv([entry(1, { actor_kind: 'cli', account_login: 'cli', role: null, address: null, user_agent: null, merchant_id: null, before: null, after: null })]);
    expect(csv).toBe(`id,at,actor_kind,account_login,role,address,user_agent,action,target,merchant_id,before,after,hash\r\n1,2026-01-01 08:01:00,cli,cli,,,,approval.request,approval #1,,,,${'1'.padStart(64, 'a')}\r\n`);
  });
});
