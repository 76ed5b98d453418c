/**
 * The API reference page ({base_path}/docs/) in a real browser (headless
 * Chromium): Swagger UI from the package renders the listener's document
 * under the page's strict CSP, with no violation and no request leaving the
 * listener's origin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { REFERENCE_CSP } from '../../../src-main/http/openapi/reference-routes';
import { testListener, testService } from '../../support/service-harness';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

let browser: Browser;
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
});

describe('API reference page in Chromium', () => {
  it('renders every operation of the document under its CSP, offline: nothing is fetched from another origin', async () => {
    const service = await testService();
    const listener = await testListener(service, { basePath: '/api' });
    const origin = new URL(listener.url).origin;

    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    const elsewhere: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error' || msg.type() === 'warning') problems.push(msg.text());
    });
    page.on('pageerror', (err) => problems.push(err.message));
    // Offline: any request to another origin is refused (and recorded).
    await context.route(
      (url) => url.origin !== origin,
      (route) => {
        elsewhere.push(route.request().url());
        return route.abort();
      },
    );

    const res = await page.goto(`${listener.url}/api/docs`);
    expect(res!.url()).toBe(`${listener.url}/api/docs/`);
    expect(res!.headers()['content-security-policy']).toBe(REFERENCE_CSP);
    await page.locator('.opblock').first().waitFor();
    expect(await page.locator('.info .title').textContent()).toContain('merchant-console HTTP API');
    const operations = await page.locator('.opblock-summary-path').allTextContents();
    expect(operations.map((p) => p.replace(/\u200b/g, ''))).toEqual(
      expect.arrayContaining(['/api/merchant/createOrder', '/addons/paychannel/channel/alpha/regionData', '/channel/notify/{channelId}', '/pay/{token}']),
    );
    expect(operations).toHaveLength(14);
    await page.screenshot({ path: 'test-results/api-reference.png' });
    // The security scheme and the signing example are on the page.
    await page.getByRole('button', { name: /Authorize/ }).click();
    expect(await page.locator('.modal-ux').textContent()).toContain('not in a header');

    expect(problems).toEqual([]);
    expect(elsewhere).toEqual([]);
    await context.close();
  });
});
