/**
 * Staff accounts end to end (issue 12, section 6), in headless Chromium
 * against a real `serve --demo`: the first owner set up from the printed
 * link → a finance and an operator account created in the console → finance
 * enrols two-factor sign-in → the operator asks for a 5,000.00 CNY
 * withdrawal and cannot approve it → finance approves it with a code → the
 * order exists and the balance moved once → the audit page shows every step
 * → `audit verify` passes; then one audit row changed in the database
 * directly and `audit verify` names it. Screenshots go to test-results/.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './support/browser';
import { startServe, type ServeProcess } from './support/serve-process';
import { freshCode, setUpOwner, signIn, signOut, staff } from './support/staff';
import { openStore } from '../../src-main/store/open-store';
import { zhCN } from '../../src-renderer/i18n/messages/zh-CN';

/** The console's role names as it shows them (zh-CN, its default language). */
const ROLE_LABEL = zhCN.enums.role;

const SHOTS = resolve(import.meta.dirname, '../../test-results');
const STEP_TIMEOUT = 20_000;

let serve: ServeProcess;
let browser: Browser;
let page: Page;
let consoleUrl: string;

const owner = staff('olivia', 'owner passphrase 1');
const finance = staff('fiona', 'finance passphrase 2');
const operator = staff('oscar', 'operator passphrase 3');

async function shot(name: string): Promise<void> {
  await page.waitForTimeout(250);
  await page.screenshot({ path: join(SHOTS, `accounts-${name}.png`), fullPage: true });
}

type InPage = { location: { hash: string } };
async function go(route: string): Promise<void> {
  await page.evaluate((r) => ((globalThis as unknown as InPage).location.hash = r), route);
  await page.waitForFunction((r) => (globalThis as unknown as InPage).location.hash.startsWith(`#${r}`), route);
  await page.waitForLoadState('networkidle');
}

interface Balances {
  available: number;
  frozen: number;
  deposit: number;
}
const balances = (): Balances => serve.cli(['balance', 'show', String(serve.summary.demo!.merchant_id)]) as Balances;

/** Creates an account in the console's Accounts page (the signed-in owner). */
async function createAccount(login: string, displayName: string, password: string, roleLabel: string): Promise<void> {
  await go('/accounts');
  await page.locator('[data-test="account-create-open"]').click();
  await page.locator('[data-test="account-form-login"] input').fill(login);
  await page.locator('[data-test="account-form-display-name"] input').fill(displayName);
  await page.locator('[data-test="account-form-password"] input').fill(password);
  await page.locator('[data-test="account-form-confirm"] input').fill(password);
  await page.locator('[data-test="account-form-role"]').click();
  await page.locator('.n-base-select-option', { hasText: roleLabel }).first().click();
  await page.locator('[data-test="account-form-submit"]').click();
  await page.locator(`tr[data-account-login="${login}"]`).waitFor();
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  serve = await startServe();
  consoleUrl = `${serve.summary.listening}/console/`;
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' });
  page = await context.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT);
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail' && page) {
    const name = ctx.task.name.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 60);
    await page.screenshot({ path: join(SHOTS, `FAILED-accounts-${name}.png`), fullPage: true }).catch(() => undefined);
  }
});

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

describe('staff accounts, two-person approval and the audit trail in the browser', () => {
  let approvalId = 0;
  let held: Balances;
  let before: Balances;

  it('sets up the first owner from the printed link (with two-factor sign-in)', async () => {
    expect(serve.summary.console_setup_url).toMatch(/\/console\/#\/setup\?token=/);
    await setUpOwner(page, serve.summary.console_setup_url!, owner, 'Olivia Owner');
    await expect.poll(() => page.locator('[data-test="account-role"]').innerText()).toContain(ROLE_LABEL.owner);
    await shot('owner');
  });

  it('the owner creates a finance and an operator account', async () => {
    await createAccount(finance.login, 'Fiona Finance', finance.password, ROLE_LABEL.finance);
    await createAccount(operator.login, 'Oscar Operator', operator.password, ROLE_LABEL.operator);
    await shot('accounts');
    await signOut(page);
  });

  it('finance signs in and enrols two-factor sign-in (required: the role approves)', async () => {
    expect(await signIn(page, consoleUrl, finance)).toBe('enrolled');
    expect(finance.totpSecret).toMatch(/^[A-Z2-7]{32}$/);
    await signOut(page);
  });

  it('the operator asks for a 5,000.00 CNY withdrawal: it waits, its sum held, and the operator cannot approve it', async () => {
    expect(await signIn(page, consoleUrl, operator)).toBe('password');
    before = balances();
    const beta = serve.summary.demo!.channels.find((c) => c.category === 'beta')!;
    await go('/orders/new-sell');
    await page.locator('[data-test="field-channel"]').click();
    await page.locator('.n-base-select-option', { hasText: beta.name }).first().click();
    await page.locator('[data-test="field-paymethod"] label').filter({ has: page.locator('input[value="bank"]') }).click();
    await page.locator('[data-test="field-amount"] input').fill('5000.00');
    await page.locator('[data-test="submit-order"]').click();
    const pending = page.locator('[data-test="approval-pending"]');
    await pending.waitFor();
    approvalId = Number(await pending.getAttribute('data-approval-id'));
    expect(approvalId).toBeGreaterThan(0);
    expect(await page.locator('[data-test="approval-pending-title"]').innerText()).toContain('5000.00');
    await shot('withdrawal-pending');

    held = balances();
    const taken = before.available - held.available;
    expect(taken).toBeGreaterThan(500_000);
    expect(held).toEqual({ ...before, available: before.available - taken, frozen: before.frozen + taken });

    // The operator sees the request but has nothing to decide with.
    await go('/approvals');
    const row = page.locator(`tr[data-approval-id="${approvalId}"]`);
    await row.waitFor();
    expect(await row.getAttribute('data-can-decide')).toBe('false');
    await row.locator('[data-test="approval-open"]').click();
    // The drawer fetches the detail after it opens: wait for it, or no button would pass for "cannot approve".
    await page.locator(`.detail[data-approval-id="${approvalId}"] [data-test="approval-change"]`).first().waitFor();
    expect(await page.locator('[data-test="approval-approve"]').count()).toBe(0);
    await shot('operator-cannot-approve');
    await page.keyboard.press('Escape');
    await signOut(page);
  });

  it('finance approves it with a fresh code: the order exists and the balance moved once', async () => {
    expect(await signIn(page, consoleUrl, finance)).toBe('code');
    await expect.poll(async () => Number(await page.locator('[data-test="approvals-badge"]').getAttribute('data-count'))).toBeGreaterThanOrEqual(1);
    await go('/approvals');
    const row = page.locator(`tr[data-approval-id="${approvalId}"]`);
    await row.waitFor();
    expect(await row.getAttribute('data-can-decide')).toBe('true');
    await row.locator('[data-test="approval-open"]').click();
    await page.locator(`.detail[data-approval-id="${approvalId}"] [data-test="approval-change"]`).first().waitFor();
    expect(await page.locator('[data-test="approval-change"]').count()).toBe(6);
    await shot('approval-detail');
    await page.locator('[data-test="approval-totp"] input').fill(await freshCode(finance));
    await page.locator('[data-test="approval-approve"]').click();
    await expect.poll(() => page.locator('[data-test="approval-outcome"]').innerText()).toMatch(/^sell order S\d+ created$/);
    const orderNo = (await page.locator('[data-test="approval-outcome"]').innerText()).match(/S\d+/)![0];
    await shot('approved');

    const order = serve.cli(['order', 'show', orderNo]) as { order_type: number; cny_amount: string; status: string; ledger: { kind: string }[] };
    expect(order).toMatchObject({ order_type: 2, cny_amount: '5000.00' });
    expect(order.ledger.map((t) => t.kind)).toEqual(['sell_freeze']);
    // The hold went back and the order reserved its sum: moved once.
    expect(balances()).toEqual(held);
    const list = serve.cli(['order', 'show', orderNo]) as { order_no: string };
    expect(list.order_no).toBe(orderNo);
  });

  it('the audit page shows every step', async () => {
    await go('/audit');
    await page.locator('[data-test="audit-table"] tr[data-action]').first().waitFor();
    const actions = await page.locator('[data-test="audit-table"] tr[data-action]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action')));
    for (const step of ['account.create', 'account.totp_enable', 'sign_in', 'approval.request', 'approval.approve', 'order.withdraw', 'sign_out']) {
      expect(actions, step).toContain(step);
    }
    await shot('audit');
  });

  it('audit verify passes; after one row is changed in the database directly it fails and names that entry', async () => {
    const ok = serve.cliRaw(['audit', 'verify']);
    expect([ok.status, ok.stdout]).toEqual([0, expect.stringMatching(/^audit trail intact: \d+ entries, chain head [0-9a-f]{64}/)]);

    // Someone with the database file: the append-only triggers off, one entry's target edited.
    const store = await openStore({ kind: 'sqlite', file: join(serve.dataDir, 'merchant-console.sqlite') });
    let changed = 0;
    try {
      await store.write(async (tx) => {
        const row = (await tx.get<{ id: number }>("SELECT id FROM audit_log WHERE action = 'approval.approve'"))!;
        changed = row.id;
        await tx.run('DROP TRIGGER audit_log_append_only_update');
        await tx.run("UPDATE audit_log SET target = 'approval #0 (nothing to see)' WHERE id = ?", [row.id]);
      });
    } finally {
      await store.close();
    }
    const broken = serve.cliRaw(['audit', 'verify']);
    expect(broken.status).toBe(1);
    expect(broken.stderr).toContain(`audit trail broken: entry ${changed} was changed after it was written`);
  });
});
