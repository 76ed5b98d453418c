/**
 * The console in headless Chromium against a real `serve --demo`: the first
 * owner set up from the printed link (with two-factor sign-in), a buy order created in the form and paid on its checkout page
 * (paid, then completed, in the list; the balance moves on the dashboard),
 * an alpha sell order with a province and city picked, a CSV export
 * checked row by row, and signing out (and back in with name, password and code). Every page is screenshotted into test-results/.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './support/browser';
import { startServe, type ServeProcess } from './support/serve-process';
import { setUpOwner, signIn, staff } from './support/staff';
import { residentIdCheckChar } from '../../src-shared/validation/rules';
import { computeBuyFees } from '../../src-shared/fees';

const SHOTS = resolve(import.meta.dirname, '../../test-results');
// Long enough to see "paid" in the list on a slow machine before the channel settles it.
const SETTLE_DELAY_S = 8;
const STEP_TIMEOUT = 15_000;
/** The demo channels' fees (src-main/demo-seed.ts). */
const DEMO_FEES = { service_rate: '0.006', passage_rate: '0.002', deposit_rate: 50, base_rate: 30 };

let serve: ServeProcess;
const owner = staff('owner', 'a long owner password');
let browser: Browser;
let context: BrowserContext;
let page: Page;

async function shot(name: string): Promise<void> {
  await page.waitForTimeout(250); // let transitions finish so the picture shows the settled page
  await page.screenshot({ path: join(SHOTS, `console-${name}.png`), fullPage: true });
}

/** The page's global as these callbacks use it (they run in the browser; this file is typed for Node). */
type InPage = { location: { hash: string } };

/** In-app navigation (hash route), as a link click would do; waits for the route's data to load. */
async function go(route: string): Promise<void> {
  await page.evaluate((r) => ((globalThis as unknown as InPage).location.hash = r), route);
  await page.waitForFunction((r) => (globalThis as unknown as InPage).location.hash === `#${r}`, route);
  await page.waitForLoadState('networkidle');
}

/**
 * Opens a Naive UI select and picks the option whose text contains `text`;
 * in a filterable select the text is typed first (long lists are virtual).
 */
async function pick(selectTest: string, text: string, { type = false } = {}): Promise<void> {
  await page.locator(`[data-test="${selectTest}"]`).click();
  if (type) await page.keyboard.type(text);
  await page.locator('.n-base-select-option', { hasText: text }).first().click();
}

/** Reads a balance card's exact fen value. */
async function balanceFen(key: 'available' | 'frozen' | 'deposit'): Promise<number> {
  const el = page.locator(`[data-test="balance-${key}"] [data-fen]`);
  await el.waitFor({ timeout: STEP_TIMEOUT });
  return Number(await el.getAttribute('data-fen'));
}

/** Waits until the orders table shows `orderNo` with `status`, refreshing the list meanwhile. */
async function waitForStatus(orderNo: string, status: string, timeoutMs = 20_000): Promise<void> {
  const row = page.locator(`tr[data-order-no="${orderNo}"] [data-status="${status}"]`);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await row.count()) return;
    await page.locator('[data-test="filter-search"]').click();
    await page.waitForTimeout(400);
  }
  throw new Error(`order ${orderNo} did not reach ${status} within ${timeoutMs} ms`);
}

function residentId(first17: string): string {
  return first17 + residentIdCheckChar(first17);
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  serve = await startServe();
  const setupUrl = serve.summary.console_setup_url;
  if (typeof setupUrl !== 'string') throw new Error(`serve --json printed no console_setup_url: ${JSON.stringify(serve.summary)}`);
  // The owner alone works the console here: withdrawals of the demo merchant are done at once (the approval
  // flow has its own end-to-end test, accounts.e2e.test.ts).
  serve.cli(['merchant', 'limits', String(serve.summary.demo!.merchant_id), '--console-threshold', '1000000']);
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true, locale: 'zh-CN' });
  page = await context.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT);
  await setUpOwner(page, setupUrl, owner, 'Demo Owner');
  // The router's first navigation is done once the start page is rendered.
  await page.locator('[data-test="dashboard"]').waitFor();
});

afterEach(async (ctx) => {
  // A failing step leaves a picture of what the browser showed.
  if (ctx.task.result?.state === 'fail' && page) {
    const name = ctx.task.name.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 60);
    await page.screenshot({ path: join(SHOTS, `FAILED-${name}.png`), fullPage: true }).catch(() => undefined);
  }
});

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

describe('browser console against serve --demo', () => {
  let buyOrderNo = '';
  let sellOrderNo = '';

  it('sets up the first owner from the printed link and shows the dashboard of the demo merchant', async () => {
    await page.locator('[data-test="dashboard"]').waitFor();
    await expect.poll(() => page.locator('[data-test="merchant-switcher"]').innerText()).toContain('Demo Merchant');
    await page.locator('[data-test="balance-available"] [data-fen]').waitFor();
    await shot('dashboard');
  });

  it('creates a buy order in the form, pays it on its checkout page, and sees it paid then completed', async () => {
    const beta = serve.summary.demo!.channels.find((c) => c.category === 'beta')!;
    serve.cli(['channel', 'update', String(beta.id), '--settle-delay', String(SETTLE_DELAY_S)]);
    await go('/dashboard');
    const availableBefore = await balanceFen('available');

    await go('/orders/new-buy');
    await pick('field-channel', beta.name);
    await page.locator('[data-test="field-paymethod"] label', { hasText: '支付宝' }).click();
    await page.locator('[data-test="field-amount"] input').fill('123.45');
    await page.locator('[data-test="field-customer-name"] input').fill('张三');
    await shot('buy-order-form');
    await page.locator('[data-test="submit-order"]').click();
    await page.locator('[data-test="pay-result"]').waitFor();
    buyOrderNo = (await page.locator('[data-test="created-order-no"]').innerText()).trim();
    const payUrl = await page.locator('[data-test="pay-url"] input').inputValue();
    expect(buyOrderNo).toMatch(/^B\d{14}\d{10}$/);
    expect(payUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/pay\/[A-Za-z0-9_-]{20,}$/);
    await expect.poll(() => page.locator('[data-test="pay-qr"]').getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    await shot('buy-order-created');

    const checkout = await context.newPage();
    await checkout.goto(payUrl);
    await checkout.screenshot({ path: join(SHOTS, 'console-checkout.png'), fullPage: true });
    await checkout.getByRole('button', { name: /^(pay|支付|确认支付)/i }).first().click();
    await checkout.waitForLoadState('networkidle');
    await checkout.close();

    await go('/orders');
    await page.locator('[data-test="filter-order-no"] input').fill(buyOrderNo);
    await page.locator('[data-test="filter-order-no"] input').press('Enter');
    await waitForStatus(buyOrderNo, 'paid', 10_000);
    await shot('orders-paid');
    await waitForStatus(buyOrderNo, 'completed', (SETTLE_DELAY_S + 15) * 1000);

    await page.locator(`tr[data-order-no="${buyOrderNo}"] [data-test="order-link"]`).click();
    await page.locator('[data-test="order-detail"]').waitFor();
    await expect.poll(() => page.locator('[data-test="detail-status"]').getAttribute('data-status')).toBe('completed');
    await expect.poll(() => page.locator('[data-test="detail-amount"]').innerText()).toBe('123.45');
    // The timeline records both steps, from the channel.
    const steps = await page.locator('[data-test="order-timeline"] [data-to]').evaluateAll((els) => els.map((e) => e.getAttribute('data-to')));
    expect(steps).toEqual(['paid', 'completed']);
    await shot('order-detail');

    await go('/dashboard');
    const credited = computeBuyFees(12345, DEMO_FEES).merchant_actual_amount;
    await expect.poll(() => balanceFen('available'), { timeout: STEP_TIMEOUT }).toBe(availableBefore + credited);
    await shot('dashboard-after-buy');
  });

  it('creates an alpha sell order with a province and city picked from the cached regions', async () => {
    const alpha = serve.summary.demo!.channels.find((c) => c.category === 'alpha')!;
    await go('/orders/new-sell');
    await pick('field-channel', alpha.name);
    await page.locator('[data-test="alpha-personal"]').waitFor();
    await page.locator('[data-test="field-amount"] input').fill('50');
    await page.locator('[data-test="pd-name"] input').fill('李四');
    await page.locator('[data-test="pd-cert-no"] input').fill(residentId('11010519900307123'));
    await page.locator('[data-test="pd-validity"] label', { hasText: '长期有效' }).click();
    await page.locator('[data-test="pd-begin"] input').fill('2020-03-07');
    await page.locator('[data-test="pd-begin"] input').press('Enter');
    expect(await page.locator('[data-test="pd-end"]').count()).toBe(0);
    await page.locator('[data-test="pd-mobile"] input').fill('13912345678');
    await pick('card-type', '对私（法人）');
    await page.locator('[data-test="card-name"] input').fill('李四');
    await page.locator('[data-test="card-no"] input').fill('6222020200112233445');
    await pick('card-province', '湖北省', { type: true });
    await pick('card-city', '仙桃市', { type: true });
    await shot('sell-order-alpha-form');
    await page.locator('[data-test="submit-order"]').click();
    await page.locator('[data-test="sell-result"]').waitFor();
    sellOrderNo = (await page.locator('[data-test="created-order-no"]').innerText()).trim();
    expect(sellOrderNo).toMatch(/^S\d{24}$/);
    await shot('sell-order-created');
  });

  it('exports the filtered list as CSV with every row', async () => {
    await go('/orders');
    await page.locator('[data-test="orders-table"] tbody tr').first().waitFor();
    const totalText = await page.locator('[data-test="orders-total"]').innerText();
    const total = Number(/\d+/.exec(totalText)![0]);
    expect(total).toBeGreaterThanOrEqual(2);
    await shot('orders');

    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-test="export-csv"]').click()]);
    const file = join(SHOTS, 'orders-export.csv');
    await download.saveAs(file);
    const text = readFileSync(file, 'utf8');
    expect(text.charCodeAt(0)).toBe(0xfeff);
    const lines = text.slice(1).split('\r\n').filter((l) => l.length > 0);
    const header = lines[0]!.split(',');
    expect(header.slice(0, 3)).toEqual(['order_no', 'order_type', 'status']);
    expect(lines).toHaveLength(total + 1);
    const rows = lines.slice(1).map((l) => Object.fromEntries(l.split(',').map((v, i) => [header[i]!, v])));
    const buy = rows.find((r) => r.order_no === buyOrderNo);
    const sell = rows.find((r) => r.order_no === sellOrderNo);
    expect(buy).toMatchObject({ order_type: '1', status: 'completed', cny_amount: '123.45', customer_name: '张三' });
    expect(sell).toMatchObject({ order_type: '2', cny_amount: '50.00' });
    // Newest first, like the list.
    expect(rows.findIndex((r) => r.order_no === sellOrderNo)).toBeLessThan(rows.findIndex((r) => r.order_no === buyOrderNo));
  });

  it('shows channels, regions (offline browser) and settings', async () => {
    await go('/channels');
    await page.locator('[data-test="linked-channels"] tbody tr').first().waitFor();
    expect(await page.locator('[data-test="linked-channels"] tbody tr').count()).toBe(3);
    await shot('channels');
    await page.locator('[data-test="operator-mode"]').click();
    await page.locator('[data-test="all-channels"] tbody tr').first().waitFor();
    await shot('channels-operator');

    await go('/regions');
    await page.locator('[data-test="region-counts"]').waitFor();
    expect(await page.locator('[data-test="region-counts"]').innerText()).toContain('31');
    await page.locator('[data-test="region-search"] input').fill('仙桃');
    await page.locator('[data-test="region-results"] tbody tr').first().waitFor();
    await shot('regions');

    await go('/settings');
    await page.locator('[data-test="merchants-table"] tbody tr').first().waitFor();
    await shot('settings-merchants');
    // A new merchant: its secret is shown once, then it can be chosen in the switcher.
    await page.locator('[data-test="create-merchant"]').click();
    await page.locator('[data-test="merchant-name"] input').fill('E2E 商户');
    await page.locator('[data-test="merchant-name"] input').press('Enter');
    await page.locator('[data-test="secret-once"]').waitFor();
    expect(await page.locator('[data-test="api-secret"]').innerText()).toMatch(/^sk_[A-Za-z0-9_-]{32,}$/);
    await shot('settings-merchant-secret');
    await page.locator('[data-test="secret-ack"]').click();
    await expect.poll(() => page.locator('[data-test="secret-once"]').count()).toBe(0);
    await expect.poll(() => page.locator('[data-test="merchants-table"] tbody tr').count()).toBe(2);
    await page.locator('.n-tabs-tab', { hasText: '监听服务' }).click();
    await page.locator('[data-test="listener-status"]').waitFor();
    await shot('settings-listener');
    await page.locator('.n-tabs-tab', { hasText: '关于' }).click();
    await expect.poll(() => page.locator('[data-test="about-version"]').innerText()).toMatch(/\d+\.\d+\.\d+/);
    await shot('settings-about');
  });

  it('signs out: the session ends on the service, the signed-out screen shows, and name, password and code sign back in', async () => {
    await go('/dashboard');
    await page.locator('[data-test="sign-out"]').click();
    await page.locator('.n-dialog').getByRole('button', { name: '退出登录' }).click();
    await page.locator('[data-test="signed-out"]').waitFor();
    expect(await page.locator('[data-test="signed-out"]').innerText()).toContain('已退出登录');
    await shot('signed-out');
    // The session is gone on the service, not only hidden: a console-API call from the page is refused.
    const status = await page.evaluate(async () => {
      const res = await fetch('/console-api/getServiceInfo', { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: '{}' });
      return res.status;
    });
    expect(status).toBe(401);

    expect(await signIn(page, `${serve.summary.listening}/console/`, owner)).toBe('code');
    await go('/dashboard');
    await page.locator('[data-test="dashboard"]').waitFor();
  });

  it('keeps browsing regions from the cache when the service is stopped', async () => {
    await go('/regions');
    await page.locator('[data-test="region-counts"]').waitFor();
    await serve.stop();
    await page.getByRole('button', { name: '重新检查更新' }).click();
    await expect.poll(() => page.locator('[data-test="region-status"]').getAttribute('data-status'), { timeout: STEP_TIMEOUT }).toBe('offline');
    await page.locator('[data-test="region-search"] input').fill('110101');
    await page.locator('[data-test="region-results"] tbody tr').first().waitFor();
    expect(await page.locator('[data-test="region-results"]').innerText()).toContain('东城区');
    await shot('regions-offline');
  });
});
