/**
 * The orders page's CSV export (components/csv-export.vue, the audit page's
 * export too): nothing is asked for when the list is empty; every chunk is
 * pulled with the applied filters and the cursor the service hands out, the
 * progress shows rows done of the total, the file is named after the merchant
 * and the Beijing day; cancelling stops between chunks and says so.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import OrdersPage from '../../../src-renderer/views/orders/index.vue';
import { CSV_BOM } from '../../../src-shared/csv/csv';
import type { ConsoleRequest, ConsoleResponse } from '../../../src-shared/console-api/contract';
import type { OrderExportRow } from '../../../src-shared/schemas/console';
import { fakeBridge } from '../support/fake-bridge';
import { MERCHANT } from '../support/fixtures';
import { mountPage, settle, unmountAll, waitFor } from '../support/mount-page';
import { downloads } from '../support/downloads';
import { clickOn } from '../support/interact';

vi.mock('../../../src-renderer/utils/download', () => import('../support/downloads'));

afterEach(() => {
  unmountAll();
  downloads.length = 0;
});

type ListRow = ConsoleResponse<'listOrders'>['list'][number];

function listRow(n: number): ListRow {
  return {
    order_no: `B20260101000000000000000${String(n).padStart(2, '0')}`,
    order_type: 1,
    cny_amount: '100.00',
    merchant_actual_amount: 9940,
    service_rate: '0.006',
    service_amount: 60,
    status: 'completed',
    createtime: 1767225600 + n,
    updatetime: 1767225600 + n,
    order_id: String(n),
    pay_method: 'alipay',
    channel_id: 2,
    channel_name: 'Sandbox beta',
    channel_category: 'beta',
    customer_name: null,
  };
}

function exportRow(n: number): OrderExportRow {
  return { ...listRow(n), merchant_amount: '99.40', passage_rate: '0', passage_amount: 0, deposit_rate: 0, deposit_amount: 0, base_rate: 0, channel_amount: 0 };
}

/** Four orders in three chunks; the second waits for `gate`. */
function exporter(gate?: Promise<void>) {
  return async (req: ConsoleRequest<'exportOrders'>) => {
    if (req.cursor === undefined) return { rows: [exportRow(1), exportRow(2)], next_cursor: 'c2', total: 4, exported: 2 };
    if (req.cursor === 'c2') {
      await gate;
      return { rows: [exportRow(3)], next_cursor: 'c3', total: 4, exported: 3 };
    }
    return { rows: [exportRow(4)], next_cursor: null, total: 4, exported: 4 };
  };
}

/** The orders page with four orders, its export started and held while the second chunk is under way. */
async function exportHeldAtSecondChunk() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const fake = fakeBridge({ listMerchants: () => [MERCHANT], listOrders: () => ({ list: [1, 2, 3, 4].map(listRow), total: 4, page: 1, limit: 20 }), exportOrders: exporter(gate) });
  await mountPage(OrdersPage, { bridge: fake.bridge, merchantId: 1 });
  await settle();
  await clickOn('export-csv');
  const progress = await waitFor(() => document.querySelector('[data-test="export-progress"]'));
  return { fake, progress, open };
}

describe('orders CSV export', () => {
  it('asks for nothing when the list is empty', async () => {
    const fake = fakeBridge({ listMerchants: () => [MERCHANT], listOrders: () => ({ list: [], total: 0, page: 1, limit: 20 }), exportOrders: exporter() });
    await mountPage(OrdersPage, { bridge: fake.bridge, merchantId: 1 });
    await settle();
    await clickOn('export-csv');
    await settle();
    expect(fake.callsOf('exportOrders')).toEqual([]);
    expect(document.body.textContent).toContain('No orders match the current filters');
  });

  it('pulls every chunk with the applied filters, shows rows done of the total and saves one file', async () => {
    const { fake, progress, open } = await exportHeldAtSecondChunk();
    expect(progress.textContent).toContain('Exporting 2/4');
    open();
    await waitFor(() => downloads.length > 0);
    expect(fake.callsOf('exportOrders')).toEqual([
      { merchant_id: 1, chunk_size: 1000 },
      { merchant_id: 1, chunk_size: 1000, cursor: 'c2' },
      { merchant_id: 1, chunk_size: 1000, cursor: 'c3' },
    ]);
    const { filename, text } = downloads[0]!;
    expect(filename).toMatch(/^orders-m1-\d{8}\.csv$/);
    expect(text.startsWith(CSV_BOM)).toBe(true);
    const lines = text.slice(1).split('\r\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1 + 4);
    expect(lines.filter((l) => l.startsWith('order_no,'))).toHaveLength(1);
    expect(document.body.textContent).toContain('Exported 4 orders');
    expect(document.querySelector<HTMLButtonElement>('[data-test="export-csv"]')!.disabled).toBe(false);
  });

  it('stops between chunks when cancelled', async () => {
    const { fake, progress, open } = await exportHeldAtSecondChunk();
    [...progress.querySelectorAll<HTMLButtonElement>('button')].find((b) => b.textContent?.trim() === 'Cancel export')!.click();
    open();
    await waitFor(() => document.body.textContent?.includes('Export cancelled'));
    // The chunk under way finished; the next one was never asked for.
    expect(fake.callsOf('exportOrders')).toHaveLength(2);
    expect(downloads).toEqual([]);
  });
});
