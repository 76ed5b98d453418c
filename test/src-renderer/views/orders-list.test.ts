import { afterEach, describe, expect, it, vi } from 'vitest';
import OrdersPage from '../../../src-renderer/views/orders/index.vue';
import { emptyOrderFilters, toFilterRequest } from '../../../src-renderer/views/orders/modules/order-filters';
import type { ConsoleResponse } from '../../../src-shared/console-api/contract';
import { fakeBridge } from '../support/fake-bridge';
import { MERCHANT } from '../support/fixtures';
import { mountPage, settle, unmountAll } from '../support/mount-page';
import { useViewerTimeZone, VIEWER_TIME_ZONES } from '../../support/time-zone';

type Row = ConsoleResponse<'listOrders'>['list'][number];

function row(orderNo: string, createtime: number, updatetime: number): Row {
  return {
    order_no: orderNo,
    order_type: 1,
    cny_amount: '100.00',
    merchant_actual_amount: 9940,
    service_rate: '0.006',
    service_amount: 60,
    status: 'paid',
    createtime,
    updatetime,
    order_id: '1',
    pay_method: 'alipay',
    channel_id: 2,
    channel_name: 'Sandbox beta',
    channel_category: 'beta',
    customer_name: null,
  };
}

afterEach(() => {
  unmountAll();
  vi.useRealTimers();
});

describe.each(VIEWER_TIME_ZONES)('orders list for a viewer in %s', (zone) => {
  useViewerTimeZone(zone);

  it.each([
    // A picked day is Beijing 00:00:00–23:59:59, whatever the viewer's zone.
    [['2026-01-01', '2026-01-01'], 1767196800, 1767283199],
    [['2025-12-31', '2026-01-01'], 1767110400, 1767283199],
    [['2026-03-08', '2026-03-08'], 1772899200, 1772985599],
  ] as const)('filters picked days %j as Unix %i to %i', (range, start, end) => {
    expect(toFilterRequest({ ...emptyOrderFilters(), range: [...range] })).toEqual({ start_time: start, end_time: end });
  });

  it('shows Beijing times in the table and sends Beijing days from the date picker', async () => {
    // The picker opens on the current month: 15 January 2026 is that day in every zone.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 0, 15, 12) });
    const fake = fakeBridge({
      listMerchants: () => [MERCHANT],
      // Last second of 2025 and first of 2026 in Beijing; in New York both are still 2025-12-31.
      listOrders: () => ({ list: [row('B2026010100000000000000001', 1767196800, 1767225600), row('B2025123123595900000000001', 1767196799, 1767196799)], total: 2, page: 1, limit: 20 }),
    });
    await mountPage(OrdersPage, { bridge: fake.bridge, merchantId: 1 });
    await settle();
    const cells = (orderNo: string) => [...document.querySelectorAll(`[data-order-no="${orderNo}"] td`)].map((td) => td.textContent!.trim());
    expect(cells('B2026010100000000000000001').slice(-2)).toEqual(['2026-01-01 00:00:00', '2026-01-01 08:00:00']);
    expect(cells('B2025123123595900000000001').slice(-2)).toEqual(['2025-12-31 23:59:59', '2025-12-31 23:59:59']);
    expect(document.querySelector('[data-test="filter-range-zone"]')!.textContent).toBe('Beijing time (UTC+8)');
    expect(document.querySelector('[data-test="orders-time-zone"]')!.textContent).toBe('All times are Beijing time (UTC+8)');

    // Pick 1 and 2 January 2026 in the date picker's panel, as a person does; then Confirm.
    document.querySelector<HTMLElement>('[data-test="filter-range"] input')!.click();
    await settle();
    expect(document.querySelector('.n-date-panel-month__text')!.textContent).toBe('Jan 2026');
    const day = (n: number) =>
      [...document.querySelectorAll<HTMLElement>('.n-date-panel-date:not(.n-date-panel-date--excluded)')].find((c) => c.textContent!.trim() === String(n))!;
    day(1).click();
    await settle();
    day(2).dispatchEvent(new MouseEvent('mouseenter'));
    day(2).click();
    await settle();
    [...document.querySelectorAll<HTMLElement>('.n-date-panel-actions button')].find((b) => b.textContent === 'Confirm')!.click();
    await settle();
    expect([...document.querySelectorAll<HTMLInputElement>('[data-test="filter-range"] input')].map((i) => i.value)).toEqual(['2026-01-01', '2026-01-02']);
    // Beijing 2026-01-01 00:00:00 to 2026-01-02 23:59:59.
    expect(fake.callsOf('listOrders').at(-1)).toEqual({ merchant_id: 1, page: 1, limit: 20, start_time: 1767196800, end_time: 1767369599 });
  });
});
