/**
 * The checkout page in a real browser (headless Chromium): the strict CSP
 * lets the page's own style and QR image through and blocks nothing it
 * needs, and pressing Pay really pays.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import type { BuyOrderView } from '../../../src-shared/schemas/merchant-api';
import { clientFor, read, seedMerchant, testListener, testService } from '../../support/service-harness';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

let browser: Browser;
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
});

describe('checkout page in Chromium', () => {
  it('renders under its CSP without violations, and the Pay button pays', async () => {
    const service = await testService();
    const listener = await testListener(service);
    const m = await seedMerchant(service, '演示商户');
    const res = await clientFor(listener, m).createOrder({ order_type: 1, cny_amount: '88.00', paychannel_id: m.channels.gamma, paychannel_paymethod: 'wxpay' });
    const order = res.body.data as BuyOrderView;

    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error' || msg.type() === 'warning') problems.push(msg.text());
    });
    page.on('pageerror', (err) => problems.push(err.message));
    await page.goto(order.pay_url);
    expect(await page.locator('h1').textContent()).toBe('演示商户');
    // The style block applied (allowed by its hash) and the QR image decoded (data: allowed).
    expect(await page.evaluate("getComputedStyle(document.querySelector('button[type=submit]')).backgroundColor")).toBe('rgb(22, 119, 255)');
    expect(await page.evaluate("document.querySelector('.qr img').naturalWidth")).toBeGreaterThan(0);

    await Promise.all([page.waitForURL(order.pay_url), page.getByRole('button', { name: 'Pay ¥88.00' }).click()]);
    expect(await page.locator('.state').textContent()).toContain('Payment received');
    const row = await read(service, (tx) => tx.get<{ status: string }>('SELECT status FROM orders WHERE order_no = ?', [order.order_no]));
    expect(row?.status).toBe('paid');
    expect(problems).toEqual([]);
    await page.close();
  });
});
