import { afterEach, describe, expect, it } from 'vitest';
import OrderDetailDrawer from '../../../src-renderer/views/orders/modules/order-detail-drawer.vue';
import { useMerchantStore } from '../../../src-renderer/stores/merchant-store';
import type { ConsoleResponse } from '../../../src-shared/console-api/contract';
import { fakeBridge, type FakeHandlers } from '../support/fake-bridge';
import { MERCHANT, sessionOf } from '../support/fixtures';
import type { SessionView } from '../../../src-shared/schemas/accounts';
import { mountPage, settle, unmountAll } from '../support/mount-page';
import { useViewerTimeZone } from '../../support/time-zone';

type Detail = ConsoleResponse<'getOrder'>;
const NO = 'B2026112111300012345678';

function detail(overrides: Partial<Detail> = {}): Detail {
  return {
    order_id: '1',
    order_no: NO,
    order_type: 1,
    status: 'paid',
    merchant: { id: 1, name: 'Test Merchant' },
    cny_amount: '123.45',
    merchant_amount: '123.45',
    merchant_actual_amount: 12209,
    service_rate: '0.006',
    service_amount: 74,
    passage_rate: '0.002',
    passage_amount: 0,
    deposit_rate: 50,
    deposit_amount: 62,
    base_rate: 30,
    channel_amount: 0,
    payment_method: 'alipay',
    paychannel_id: 2,
    channel: { id: 2, name: 'Sandbox beta', category: 'beta', category_text: 'Beta', driver: 'sandbox' },
    payment_method_id: null,
    payment_method_snapshot: null,
    customer_payment_method: null,
    customer_name: '张三',
    pay_url: 'http://127.0.0.1:1/pay/tok',
    expires_at: 1767227400,
    createtime: 1767225600,
    updatetime: 1767225660,
    fees: {
      amount: 12345,
      items: [
        { item: 'service', rate: '0.006', rate_unit: 'fraction', amount: 74, effect: 'deducted' },
        { item: 'deposit', rate: '50', rate_unit: 'basis_points', amount: 62, effect: 'deducted' },
      ],
      merchant_actual_amount: 12209,
      formula: 'merchant_actual_amount = cny_amount - service_amount - deposit_amount',
    },
    timeline: [{ from: 'pending', to: 'paid', source: 'channel', reason: 'sandbox: paid on the checkout page', time: 1767225660 }],
    ledger: [],
    scheduled: [],
    callbacks: [
      {
        id: 9,
        order_no: NO,
        order_status: 'paid',
        state: 'pending',
        trigger: 'transition',
        url: 'http://127.0.0.1:2/notify',
        attempts: 2,
        next_attempt_at: 1767225700,
        createtime: 1767225660,
        updatetime: 1767225670,
        payload: {},
        attempt_log: [
          { attempt: 1, time: 1767225661, http_status: 500, latency_ms: 12, response_excerpt: 'boom', error: null, acknowledged: false },
          { attempt: 2, time: 1767225666, http_status: null, latency_ms: 10000, response_excerpt: '', error: 'timeout after 10 s', acknowledged: false },
        ],
      },
    ],
    ...overrides,
  };
}

afterEach(unmountAll);

async function open(handlers: FakeHandlers, operator = false, session?: SessionView) {
  const fake = fakeBridge({ listMerchants: () => [MERCHANT], ...handlers });
  await mountPage(OrderDetailDrawer, { bridge: fake.bridge, merchantId: 1, props: { orderNo: NO }, ...(session ? { session } : {}) });
  useMerchantStore().operatorMode = operator;
  await settle();
  return fake;
}

const drawer = () => document.querySelector<HTMLElement>('[data-test="order-detail"]')!;

describe('order detail drawer', () => {
  it('shows the fee breakdown, the timeline and every callback attempt', async () => {
    await open({ getOrder: () => detail() });
    const text = drawer().textContent!;
    expect(text).toContain('123.45');
    expect(drawer().querySelector('[data-fee="service"]')!.textContent).toContain('-0.74');
    expect(drawer().querySelector('[data-fee="deposit"]')!.textContent).toContain('0.5%');
    expect(drawer().querySelector('[data-test="fee-actual"]')!.textContent).toBe('122.09');
    expect([...drawer().querySelectorAll('[data-test="order-timeline"] [data-to]')].map((e) => e.getAttribute('data-to'))).toEqual(['paid']);
    expect(text).toContain('sandbox: paid on the checkout page');
    expect(drawer().querySelector('[data-test="order-callbacks"] [data-state="pending"]')).not.toBeNull();
    expect(text).toContain('2 attempt(s)');
  });

  it('resends the callback and reloads the order', async () => {
    let resent = false;
    const fake = await open({ getOrder: () => detail(resent ? { callbacks: [] } : {}), resendCallback: () => ((resent = true), detail().callbacks[0]!) });
    drawer().querySelector<HTMLButtonElement>('[data-test="resend-callback"]')!.click();
    await settle();
    expect(fake.callsOf('resendCallback')).toEqual([{ merchant_id: 1, order_no: NO }]);
    expect(fake.callsOf('getOrder')).toHaveLength(2);
  });

  it('offers operators only the sandbox outcomes the state machine still allows', async () => {
    await open({ getOrder: () => detail({ status: 'paid' }) }, true);
    const actions = () => [...drawer().querySelectorAll('[data-test="sandbox-actions"] [data-action]')].map((b) => b.getAttribute('data-action'));
    expect(actions()).toEqual(['complete']);
    expect(drawer().querySelector('[data-test="cancel-order"]')).toBeNull();
    unmountAll();

    const fake = await open({ getOrder: () => detail({ status: 'pending' }), simulateOrderOutcome: () => detail({ status: 'paid' }) }, true);
    expect(actions()).toEqual(['pay', 'fail']);
    expect(drawer().querySelector('[data-test="cancel-order"]')).not.toBeNull();
    drawer().querySelector<HTMLButtonElement>('[data-action="pay"]')!.click();
    await settle();
    expect(fake.callsOf('simulateOrderOutcome')).toEqual([{ merchant_id: 1, order_no: NO, action: 'pay' }]);
    expect(actions()).toEqual(['complete']);
  });

  it('hides operator actions outside operator mode', async () => {
    await open({ getOrder: () => detail({ status: 'pending' }) }, false);
    expect(drawer().querySelector('[data-test="sandbox-actions"]')).toBeNull();
  });

  it('offers callback resends, sandbox outcomes and cancel only to roles that may', async () => {
    await open({ getOrder: () => detail({ status: 'pending' }) }, true, sessionOf('viewer'));
    expect(drawer().querySelector('[data-test="order-callbacks"]')).not.toBeNull();
    expect(drawer().querySelector('[data-test="resend-callback"]')).toBeNull();
    expect(drawer().querySelector('[data-test="sandbox-actions"]')).toBeNull();
    expect(drawer().querySelector('[data-test="cancel-order"]')).toBeNull();
    unmountAll();

    // An operator cancels and resends, but runs no sandbox outcomes (the developer's).
    await open({ getOrder: () => detail({ status: 'pending' }) }, true, sessionOf('operator'));
    expect(drawer().querySelector('[data-test="resend-callback"]')).not.toBeNull();
    expect(drawer().querySelector('[data-test="sandbox-actions"]')).toBeNull();
    expect(drawer().querySelector('[data-test="cancel-order"]')).not.toBeNull();
  });
});

// 1767225600 is 2026-01-01 08:00:00 in Beijing: 19:00 the day before in New York, 14:00 the same day at UTC+14.
describe.each(['America/New_York', 'Pacific/Kiritimati'])('order detail drawer for a viewer in %s', (zone) => {
  useViewerTimeZone(zone);

  it('shows every time in Beijing time and says so', async () => {
    await open({ getOrder: () => detail({ status: 'pending' }) });
    const text = drawer().textContent!;
    expect(drawer().querySelector('[data-test="detail-time-zone"]')!.textContent).toBe('All times are Beijing time (UTC+8)');
    // createtime, updatetime, pay before (pending only).
    for (const time of ['2026-01-01 08:00:00', '2026-01-01 08:01:00', '2026-01-01 08:30:00']) expect(text).toContain(time);
    const timeline = [...drawer().querySelectorAll('[data-test="order-timeline"] .n-timeline-item-content__meta')].map((e) => e.textContent);
    expect(timeline).toEqual(['2026-01-01 08:00:00', '2026-01-01 08:01:00']);
    const callbacks = drawer().querySelector<HTMLElement>('[data-test="order-callbacks"]')!;
    expect(callbacks.textContent).toContain('2026-01-01 08:01:00');
    expect(callbacks.textContent).toContain('Next attempt: 2026-01-01 08:01:40');
    callbacks.querySelector<HTMLElement>('.n-collapse-item__header-main')!.click();
    await settle();
    const attempts = [...callbacks.querySelectorAll('tbody tr td:first-child')].map((td) => td.textContent!.trim());
    expect(attempts).toEqual(['#1 2026-01-01 08:01:01', '#2 2026-01-01 08:01:06']);
    expect(text).not.toMatch(/2025-12-31|14:00:00|19:00:00/);
  });
});
