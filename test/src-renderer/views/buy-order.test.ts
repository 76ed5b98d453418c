import { afterEach, describe, expect, it } from 'vitest';
import type { VueWrapper } from '@vue/test-utils';
import BuyOrder from '../../../src-renderer/views/buy-order/index.vue';
import { consoleApiContract } from '../../../src-shared/console-api/contract';
import { ErrorCode } from '../../../src-shared/errors';
import { fakeBridge, ServiceError, type FakeHandlers } from '../support/fake-bridge';
import { channel, MERCHANT } from '../support/fixtures';
import { feedbackTexts, mountPage, settle, submitForm, typeInto, unmountAll } from '../support/mount-page';

const PAY_URL = 'http://127.0.0.1:18400/pay/tok_abcdefghijklmnop';

function handlers(extra: FakeHandlers = {}): FakeHandlers {
  return {
    listMerchants: () => [MERCHANT],
    listPayChannels: () => ({
      list: [channel({ id: 2, category: 'beta', pay_methods: ['wxpay', 'alipay'] }), channel({ id: 3, category: 'gamma', pay_methods: ['bank'] })],
      total: 2,
    }),
    createOrder: (req) => ({
      order_no: 'B2026112111300012345678',
      status: 'pending',
      order_type: 1,
      cny_amount: String(req.cny_amount),
      payment_method: req.paychannel_paymethod,
      merchant_amount: String(req.cny_amount),
      deposit_amount: 50,
      service_amount: 60,
      merchant_actual_amount: 9940,
      pay_url: PAY_URL,
      createtime: 1767225600,
    }),
    ...extra,
  };
}

let wrapper: VueWrapper;
afterEach(unmountAll);

describe('new buy order form', () => {
  it('offers only the chosen channel’s pay methods', async () => {
    const fake = fakeBridge(handlers());
    wrapper = await mountPage(BuyOrder, { bridge: fake.bridge, merchantId: 1 });
    expect(fake.callsOf('listPayChannels')).toEqual([{ merchant_id: 1 }]);
    const methods = wrapper.findAll('[data-test="field-paymethod"] [data-method]').map((n) => n.attributes('data-method'));
    expect(methods).toEqual(['wxpay', 'alipay']);
  });

  it('refuses invalid amounts inline and sends nothing', async () => {
    const fake = fakeBridge(handlers());
    wrapper = await mountPage(BuyOrder, { bridge: fake.bridge, merchantId: 1 });

    await typeInto(wrapper, 'field-amount', '0');
    await submitForm(wrapper);
    expect(feedbackTexts(wrapper)).toContain('Amount must be greater than 0');

    await typeInto(wrapper, 'field-amount', '0.5');
    await submitForm(wrapper);
    expect(feedbackTexts(wrapper)).toContain('Amount must be at least 1.00 CNY');

    await typeInto(wrapper, 'field-amount', '50000.01');
    await submitForm(wrapper);
    expect(feedbackTexts(wrapper)).toContain('Amount must be at most 50,000.00 CNY');

    expect(fake.callsOf('createOrder')).toEqual([]);
  });

  it('does not let more than two decimals or letters into the amount', async () => {
    wrapper = await mountPage(BuyOrder, { bridge: fakeBridge(handlers()).bridge, merchantId: 1 });
    const input = wrapper.find('[data-test="field-amount"] input');
    await input.setValue('12.34');
    await input.setValue('12.345');
    await input.setValue('12.34a');
    expect((input.element as HTMLInputElement).value).toBe('12.34');
  });

  it('creates the order with a normalised amount and shows the pay URL with a QR code', async () => {
    const fake = fakeBridge(handlers());
    wrapper = await mountPage(BuyOrder, { bridge: fake.bridge, merchantId: 1 });
    await typeInto(wrapper, 'field-amount', '100.5');
    await typeInto(wrapper, 'field-customer-name', ' 张三 ');
    await submitForm(wrapper);

    expect(fake.callsOf('createOrder')).toEqual([
      { merchant_id: 1, order_type: 1, cny_amount: '100.50', paychannel_id: 2, paychannel_paymethod: 'wxpay', idempotency_key: expect.any(String), customer_name: '张三' },
    ]);
    await settle();
    expect(wrapper.find('[data-test="pay-result"]').exists()).toBe(true);
    expect((wrapper.find('[data-test="pay-url"] input').element as HTMLInputElement).value).toBe(PAY_URL);
    expect(wrapper.find('[data-test="created-order-no"]').text()).toBe('B2026112111300012345678');
    expect(wrapper.find('[data-test="pay-qr"]').attributes('src')).toMatch(/^data:image\/png;base64,/);
  });

  it('shows a service validation error under the field it names', async () => {
    const fake = fakeBridge(
      handlers({ createOrder: () => new ServiceError(ErrorCode.VALIDATION, 'cny_amount: must be between 1.00 and 500.00 on channel 2') }),
    );
    wrapper = await mountPage(BuyOrder, { bridge: fake.bridge, merchantId: 1 });
    await typeInto(wrapper, 'field-amount', '600');
    await submitForm(wrapper);
    expect(fake.callsOf('createOrder')).toHaveLength(1);
    expect(feedbackTexts(wrapper)).toContain('must be between 1.00 and 500.00 on channel 2');
    expect(wrapper.find('[data-test="pay-result"]').exists()).toBe(false);
  });

  it('shows other service errors with the server’s message', async () => {
    const fake = fakeBridge(handlers({ createOrder: () => new ServiceError(ErrorCode.CHANNEL_FAILURE, 'channel 2: sandbox refused the pay-in') }));
    wrapper = await mountPage(BuyOrder, { bridge: fake.bridge, merchantId: 1 });
    await typeInto(wrapper, 'field-amount', '10');
    await submitForm(wrapper);
    expect(document.body.textContent).toContain('channel 2: sandbox refused the pay-in');
  });
  it('sends one idempotency key per order: a retry after a lost answer repeats it, the next order gets a new one', async () => {
    // The service created the order but its answer never arrived (connection dropped): the retry
    // must get that order back (same key, docs/console.md) instead of creating a second one.
    let lose = true;
    const created = handlers().createOrder!;
    const fake = fakeBridge(
      handlers({
        createOrder: (req) => {
          if (lose) {
            lose = false;
            throw new Error('socket hang up');
          }
          return created(req);
        },
      }),
    );
    wrapper = await mountPage(BuyOrder, { bridge: fake.bridge, merchantId: 1 });
    await typeInto(wrapper, 'field-amount', '10');
    await submitForm(wrapper);
    expect(document.body.textContent).toContain('socket hang up');
    await submitForm(wrapper);
    await settle();
    expect(wrapper.find('[data-test="pay-result"]').exists()).toBe(true);

    await wrapper.find('[data-test="another-order"]').trigger('click');
    await settle();
    await typeInto(wrapper, 'field-amount', '20');
    await submitForm(wrapper);

    const calls = fake.callsOf('createOrder');
    expect(calls).toHaveLength(3);
    const keys = calls.map((c) => c.idempotency_key);
    expect(keys[0]).toEqual(expect.any(String));
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).toEqual(expect.any(String));
    expect(keys[2]).not.toBe(keys[0]);
    for (const call of calls) expect(consoleApiContract.createOrder.request.safeParse(call).success).toBe(true);
  });
});
