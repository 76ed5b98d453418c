import { describe, expect, it } from 'vitest';
import type { BuyOrderView } from '../../../src-shared/schemas/merchant-api';
import { CHECKOUT_CSP } from '../../../src-main/http/checkout-page';
import { allowPrivateCallbacks, clientFor, manualClock, read, seedMerchant, testListener, testService, write } from '../../support/service-harness';
import { expectLedgerConsistent } from '../../support/money';
import { startReceiver } from '../../support/callback-receiver';
import { verifySignature } from '../../../src-shared/client/sign';
import QRCode from 'qrcode';
import { createOrderRepository, type OrderRow } from '../../../src-main/repositories/order-repository';
import type { MerchantConsoleService } from '../../../src-main/service';

const orderRepo = createOrderRepository();
async function orderByNo(service: MerchantConsoleService, orderNo: string): Promise<OrderRow> {
  return (await read(service, (tx) => orderRepo.findByNo(tx, orderNo)))!;
}
const timelineOf = (service: MerchantConsoleService, orderId: number) => read(service, (tx) => service.services.lifecycle.timelineOf(tx, orderId));
const balances = (service: MerchantConsoleService, merchantId: number) => read(service, (tx) => service.services.ledger.balances(tx, merchantId));

/** The dark modules of a QR code drawn by qrcode's SVG renderer, quiet zone included (rows of "1"/"0"). */
function qrMatrixOfSvg(svg: string): string[] {
  const view = Number(/viewBox="0 0 (\d+) \d+"/.exec(svg)![1]);
  const rows = Array.from({ length: view }, () => Array<string>(view).fill('0'));
  let x = 0;
  let y = 0;
  for (const [, cmd, a, b] of /<path stroke="[^"]*" d="([^"]+)"/.exec(svg)![1]!.matchAll(/([Mmh])(-?[\d.]+)(?: (-?[\d.]+))?/g)) {
    if (cmd === 'M') [x, y] = [Number(a), Number(b)];
    else if (cmd === 'm') [x, y] = [x + Number(a), y + Number(b)];
    else {
      for (let i = 0; i < Number(a); i++) rows[Math.floor(y)]![x + i] = '1';
      x += Number(a);
    }
  }
  return rows.map((r) => r.join(''));
}

/** A QR code of `text` encoded independently (any error correction level), in a `view`-module square: what the page should draw. */
function qrMatricesOf(text: string, view: number): string[] {
  return (['L', 'M', 'Q', 'H'] as const).map((level) => {
    const { modules } = QRCode.create(text, { errorCorrectionLevel: level });
    const margin = (view - modules.size) / 2;
    const at = (r: number, c: number) => r >= 0 && c >= 0 && r < modules.size && c < modules.size && modules.get(r, c);
    return Array.from({ length: view }, (_, r) => Array.from({ length: view }, (_, c) => (at(r - margin, c - margin) ? '1' : '0')).join('')).join('\n');
  });
}

/** The forms of a page: what its buttons do (action resolved against the page URL, hidden fields). */
function formsOf(html: string, pageUrl: string): { action: string; fields: Record<string, string>; label: string }[] {
  const forms: { action: string; fields: Record<string, string>; label: string }[] = [];
  for (const m of html.matchAll(/<form method="post" action="([^"]+)">(.*?)<\/form>/gs)) {
    const fields: Record<string, string> = {};
    for (const f of m[2]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[f[1]!] = f[2]!;
    forms.push({ action: new URL(m[1]!, pageUrl).toString(), fields, label: /<button[^>]*>([^<]*)<\/button>/.exec(m[2]!)![1]! });
  }
  return forms;
}

async function press(form: { action: string; fields: Record<string, string> }): Promise<Response> {
  return fetch(form.action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form.fields).toString(),
    redirect: 'manual',
  });
}

async function setup() {
  const clock = manualClock(Math.floor(Date.now() / 1000));
  const service = await testService({ clock });
  const listener = await testListener(service);
  const m = await seedMerchant(service, 'Checkout Shop <&>');
  const client = clientFor(listener, m, { now: clock.now });
  const res = await client.createOrder({ order_type: 1, cny_amount: '100.50', paychannel_id: m.channels.beta, paychannel_paymethod: 'alipay' });
  expect(res.status).toBe(200);
  const order = res.body.data as BuyOrderView;
  return { clock, service, listener, m, client, order };
}

describe('sandbox checkout page', () => {
  it('pays a buy order end to end over HTTP: page → Pay → signed channel notification → paid → settled → callbacks', async () => {
    const { service, listener, order, client, m } = await setup();
    const receiver = await startReceiver(() => ({ status: 200, body: 'success' }));
    await allowPrivateCallbacks(service);
    await write(service, (tx) => service.services.merchants.update(tx, { id: m.id, callback_url: receiver.url }));
    expect(order.pay_url).toMatch(new RegExp(`^${listener.url}/pay/[A-Za-z0-9_-]{32}$`));

    const page = await fetch(order.pay_url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(CHECKOUT_CSP);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-store');
    const html = await page.text();
    expect(html).toContain('Checkout Shop &lt;&amp;&gt;'); // escaped merchant name
    expect(html).toContain('¥100.50');
    expect(html).toContain('Alipay');
    expect(html).toContain(order.order_no);
    // The deadline in Beijing time, like the rest of the product (the payer is in mainland China).
    const expiresAt = (await orderByNo(service, order.order_no)).expires_at!;
    expect(html).toContain(`<dt>Pay before</dt><dd>${new Date((expiresAt + 8 * 3600) * 1000).toISOString().slice(0, 19).replace('T', ' ')} (UTC+8)</dd>`);
    expect(html).toMatch(/<img src="data:image\/svg\+xml;base64,[A-Za-z0-9+/=]+" alt="QR code/);
    // The QR code encodes the page's own URL.
    const svg = Buffer.from(/data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(html)![1]!, 'base64').toString('utf8');
    expect(svg).toMatch(/^<svg/);
    const drawn = qrMatrixOfSvg(svg);
    expect(qrMatricesOf(order.pay_url, drawn.length)).toContain(drawn.join('\n'));
    // No script and nothing loaded from elsewhere.
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/i);

    const forms = formsOf(html, order.pay_url);
    expect(forms.map((f) => f.label)).toEqual(['Pay ¥100.50', 'Fail']);
    const pressed = await press(forms[0]!);
    expect(pressed.status).toBe(303);
    const back = new URL(pressed.headers.get('location')!, forms[0]!.action).toString();
    expect(back).toBe(order.pay_url);

    // The channel notification arrived through the notify endpoint and moved the order.
    const row = await orderByNo(service, order.order_no);
    expect(row.status).toBe('paid');
    expect(await timelineOf(service, row.id)).toMatchObject([{ from_status: 'pending', to_status: 'paid', source: 'channel', reason: 'sandbox checkout: payer paid' }]);
    expect(await balances(service, row.merchant_id)).toEqual({ available: order.merchant_actual_amount, frozen: 0, deposit: order.deposit_amount });
    expect(await (await fetch(back)).text()).toContain('Payment received');

    // Settle delay 0: the next pass of the worker completes it.
    await service.work.runDue();
    expect((await orderByNo(service, row.order_no)).status).toBe('completed');
    const done = await (await fetch(order.pay_url)).text();
    expect(done).toContain('Paid. This order is complete.');
    expect(formsOf(done, order.pay_url)).toEqual([]);
    expect((await client.orderQueryDetail(order.order_no)).body.data).toMatchObject({ status: 'completed' });

    // The merchant was told, in order, with signed callbacks.
    expect(receiver.received.map((r) => r.fields.status)).toEqual(['paid', 'completed']);
    for (const r of receiver.received) {
      expect(r.fields).toMatchObject({ order_no: order.order_no, cny_amount: '100.50', merchant_actual_amount: String(order.merchant_actual_amount) });
      expect(verifySignature(r.fields, r.fields.signature!, m.apiSecret, 'hmac-sha256')).toBe(true);
    }
    expect((await read(service, (tx) => service.services.callbacks.listForOrder(tx, order.order_no))).map((d) => d.state)).toEqual(['delivered', 'delivered']);

    // Pressing Pay again changes nothing: the page just says how it stands.
    const again = await press(forms[0]!);
    expect(again.status).toBe(303);
    expect(await timelineOf(service, row.id)).toHaveLength(2);
    await expectLedgerConsistent(service);
  });

  it('Fail cancels the order and the page says so', async () => {
    const { service, order } = await setup();
    const forms = formsOf(await (await fetch(order.pay_url)).text(), order.pay_url);
    expect((await press(forms[1]!)).status).toBe(303);
    const row = await orderByNo(service, order.order_no);
    expect(row.status).toBe('cancelled');
    expect(await timelineOf(service, row.id)).toMatchObject([{ to_status: 'cancelled', source: 'channel', reason: 'sandbox checkout: payment failed' }]);
    expect(await (await fetch(order.pay_url)).text()).toContain('The payment failed');
    expect(await balances(service, row.merchant_id)).toEqual({ available: 0, frozen: 0, deposit: 0 });
  });

  it('an expired order cannot be paid: the page says so before and after the sweeper ran', async () => {
    const { clock, service, order } = await setup();
    const forms = formsOf(await (await fetch(order.pay_url)).text(), order.pay_url);
    clock.advance(1800);
    const page = await (await fetch(order.pay_url)).text();
    expect(page).toContain('This order has expired');
    expect(formsOf(page, order.pay_url)).toEqual([]);
    expect((await press(forms[0]!)).status).toBe(303); // back to the page, nothing paid
    expect((await orderByNo(service, order.order_no)).status).toBe('pending');
    await service.work.runDue();
    expect((await orderByNo(service, order.order_no)).status).toBe('cancelled');
    expect(await (await fetch(order.pay_url)).text()).toContain('This order has expired');
  });

  it('refuses a form over its 1,024-byte limit with 413 naming that limit, and nothing is paid', async () => {
    const { service, order } = await setup();
    const res = await press({ action: `${order.pay_url}/pay`, fields: { action: 'pay', pad: 'x'.repeat(2048) } });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ code: 1006, msg: 'body: larger than 1024 bytes', data: null });
    expect((await orderByNo(service, order.order_no)).status).toBe('pending');
  });

  it('answers an unknown or malformed token with a 404 page and no details', async () => {
    const { listener } = await setup();
    for (const token of ['A'.repeat(32), 'short', '..%2F..%2Fetc']) {
      const res = await fetch(`${listener.url}/pay/${token}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-security-policy')).toBe(CHECKOUT_CSP);
      expect(await res.text()).toContain('This payment link is not valid.');
    }
    const post = await press({ action: `${listener.url}/pay/${'B'.repeat(32)}/pay`, fields: { action: 'pay' } });
    expect(post.status).toBe(404);
  });
});
