import { describe, expect, it } from 'vitest';
import { joinNegativeValues } from '../../../src-main/cli/command';
import { createMerchantClient } from '../../../src-shared/client/merchant-client';
import { read, seedMerchant, testService, write } from '../../support/service-harness';
import { newBuy, newSell } from '../../support/money';
import { consoleApiContract } from '../../../src-shared/console-api/contract';
import type { OrderDetailView } from '../../../src-shared/schemas/console';
import { tempDir } from '../../support/temp-dir';
import { cli as runCli, exitOf, firstLine, spawnCli } from '../../support/cli-harness';
import { acquireDataDirLock } from '../../../src-main/store/data-dir';

async function cli(dataDir: string, ...argv: string[]) {
  const r = await runCli([...argv, '--data-dir', dataDir]);
  return { code: r.code, out: r.stdout, err: r.stderr, json: <T = unknown>() => JSON.parse(r.stdout) as T };
}

async function seeded() {
  const dataDir = tempDir();
  const service = await testService({ dataDir });
  const m = await seedMerchant(service);
  const buy = await newBuy(service, m, 10_050);
  await service.close();
  return { dataDir, m, buy };
}

describe('balance and order commands', () => {
  it('balance adjust and balance show, in yuan in and fen out', async () => {
    const { dataDir, m } = await seeded();
    expect((await cli(dataDir, 'balance', 'show', String(m.id), '--json')).json()).toEqual({ available: 0, frozen: 0, deposit: 0 });
    const up = await cli(dataDir, 'balance', 'adjust', '--merchant', String(m.id), '--amount', '+120.50', '--reason', 'opening', '--json');
    expect(up.code).toBe(0);
    expect(up.json()).toMatchObject({ merchant_id: m.id, amount: 12_050, reason: 'opening', balances: { available: 12_050 } });
    // A negative value right after the option name works as written in the issue.
    const down = await cli(dataDir, 'balance', 'adjust', '--merchant', String(m.id), '--amount', '-20', '--reason', 'fee refund');
    expect(down.code).toBe(0);
    expect(down.out).toContain('-20.00');
    expect((await cli(dataDir, 'balance', 'show', String(m.id), '--json')).json()).toEqual({ available: 10_050, frozen: 0, deposit: 0 });
    // Without --json the balances are yuan, as the help says (it said "in fen").
    expect((await cli(dataDir, 'balance', 'show', String(m.id))).out).toBe('available 100.50  frozen 0.00  deposit 0.00  (CNY)');
    expect((await cli(dataDir, 'balance', 'show', '--help')).out).toContain("a merchant's balances {available, frozen, deposit} in yuan (with --json: in fen)");

    const tooMuch = await cli(dataDir, 'balance', 'adjust', '--merchant', String(m.id), '--amount=-100.51', '--reason', 'x', '--json');
    expect(tooMuch.code).toBe(1);
    expect(JSON.parse(tooMuch.err)).toEqual({ error: expect.stringMatching(/^insufficient balance: available is 100.50/) });
    const noReason = await cli(dataDir, 'balance', 'adjust', '--merchant', String(m.id), '--amount', '5');
    expect(noReason.code).toBe(2);
    expect(noReason.err).toContain('--reason is required');
    const badAmount = await cli(dataDir, 'balance', 'adjust', '--merchant', String(m.id), '--amount', '5.001', '--reason', 'x');
    expect(badAmount.code).toBe(1);
    expect(badAmount.err).toContain('amount:');
    expect((await cli(dataDir, 'balance', 'show', '99', '--json')).code).toBe(1);
  });

  it('order show prints the fee breakdown, timeline and ledger; order cancel records the operator', async () => {
    const { dataDir, m, buy } = await seeded();
    const shown = await cli(dataDir, 'order', 'show', buy.order_no, '--json');
    expect(shown.code).toBe(0);
    expect(shown.json()).toMatchObject({
      order_no: buy.order_no,
      order_type: 1,
      status: 'pending',
      merchant: { id: m.id, name: 'Test Merchant' },
      channel: { id: m.channels.beta, category: 'beta', driver: 'sandbox' },
      cny_amount: '100.50',
      service_amount: 60,
      deposit_amount: 50,
      merchant_actual_amount: 9_940,
      fees: { amount: 10_050, merchant_actual_amount: 9_940 },
      pay_url: expect.stringMatching(/\/pay\/[A-Za-z0-9_-]{32}$/),
      timeline: [],
    });
    const text = (await cli(dataDir, 'order', 'show', buy.order_no)).out;
    expect(text).toContain('  amount 100.50; service 0.60 (0.006); deposit 0.50 (50 bp); merchant actual 99.40\n');
    expect(text).toContain('    merchant_actual_amount = cny_amount - service_amount - deposit_amount\n');
    const cancelled = await cli(dataDir, 'order', 'cancel', buy.order_no, '--reason', 'customer asked', '--json');
    expect(cancelled.json()).toMatchObject({ status: 'cancelled', timeline: [{ from: 'pending', to: 'cancelled', source: 'operator', reason: 'customer asked' }] });
    const again = await cli(dataDir, 'order', 'cancel', buy.order_no, '--reason', 'twice');
    expect(again.code).toBe(1);
    expect(again.err).toContain('cannot go from cancelled to cancelled');
    const human = await cli(dataDir, 'order', 'show', buy.order_no);
    expect(human.out).toContain('pending → cancelled  [operator] customer asked');
    expect((await cli(dataDir, 'order', 'show', 'B0000', '--json')).err).toContain('order B0000 not found');
  });

  it("order show --json is the console's order detail: one read model, the getOrder answer of the contract", async () => {
    const dataDir = tempDir();
    const service = await testService({ dataDir });
    const m = await seedMerchant(service, 'Shop', { balance: 1_000_000 });
    const buy = await newBuy(service, m);
    await write(service, (tx) => service.services.sandbox.simulate(tx, buy.order_no, 'pay')); // a timeline, a ledger transaction, scheduled settlement
    const sell = await newSell(service, m);
    for (const order of [buy, sell]) {
      const shown = await cli(dataDir, 'order', 'show', order.order_no, '--json');
      expect(shown.code, shown.err).toBe(0);
      const consoleAnswer = consoleApiContract.getOrder.response.parse(
        JSON.parse(JSON.stringify(await read(service, (tx) => service.services.orderReports.detail(tx, m.id, order.order_no)))),
      );
      expect(shown.json()).toEqual(consoleAnswer);
    }
    const paid = (await cli(dataDir, 'order', 'show', buy.order_no, '--json')).json<OrderDetailView>();
    expect([paid.status, paid.timeline.length, paid.ledger.length, paid.scheduled.map((s) => s.kind)]).toEqual(['paid', 1, 1, ['settle']]);
  });

  it('order show gives the pay_url stored with the order; one stored before pay URLs were (schema < 8): where the pay page is served', async () => {
    const { dataDir, buy } = await seeded();
    const payUrl = async () => (await cli(dataDir, 'order', 'show', buy.order_no, '--json')).json<{ pay_url: string }>().pay_url;
    const token = buy.pay_token!;
    // The channel's answer at creation (the creating service's address) stays, whatever the settings say now.
    expect(buy.pay_url).toBe(`http://127.0.0.1:8787/pay/${token}`);
    const settings = await testService({ dataDir });
    await settings.store.write(async (tx) => {
      await settings.services.settings.updateListener(tx, { port: 47_399 });
      expect(await tx.run('UPDATE orders SET pay_url = ? WHERE id = ?', ['https://stored.example/pay/x', buy.id])).toBe(1);
    });
    expect(await payUrl()).toBe('https://stored.example/pay/x');
    // An order from before migration 8 has no stored pay_url: its checkout page where the service is reached.
    await settings.store.write((tx) => tx.run('UPDATE orders SET pay_url = NULL WHERE id = ?', [buy.id]));
    await settings.close();
    // No service running: where the next `serve` listens.
    expect(await payUrl()).toBe(`http://127.0.0.1:47399/pay/${token}`);
    // A service running (port given on the command line): its address, as in the createOrder answer.
    const lock = acquireDataDirLock(dataDir);
    try {
      lock.describe({ url: 'http://127.0.0.1:47301' });
      expect(await payUrl()).toBe(`http://127.0.0.1:47301/pay/${token}`);
      expect((await cli(dataDir, 'order', 'show', buy.order_no)).out).toContain(`pay_url http://127.0.0.1:47301/pay/${token}`);
      lock.describe({ url: 'http://127.0.0.1:47301', publicUrl: 'https://pay.example.com' });
      expect(await payUrl()).toBe(`https://pay.example.com/pay/${token}`);
    } finally {
      lock.release();
    }
  });

  it('against a real `serve --public-url`: order show gives the same pay_url as createOrder', async () => {
    const { dataDir, m } = await seeded();
    const serve = await spawnCli(['serve', '--port', '0', '--public-url', 'https://pay.example.com/', '--data-dir', dataDir, '--json']);
    try {
      const { listening } = JSON.parse(await firstLine(serve)) as { listening: string };
      const client = createMerchantClient({ baseUrl: listening, apiKey: m.apiKey, apiSecret: m.apiSecret });
      const created = await client.call<{ order_no: string; pay_url: string }>('createOrder', {
        order_type: 1,
        cny_amount: '100.50',
        paychannel_id: m.channels.beta,
        paychannel_paymethod: 'alipay',
      });
      expect(created.body.code, JSON.stringify(created.body)).toBe(1);
      const answered = created.body.data!;
      expect(answered.pay_url).toMatch(/^https:\/\/pay\.example\.com\/pay\/[A-Za-z0-9_-]{32}$/);
      const shown = await cli(dataDir, 'order', 'show', answered.order_no, '--json');
      expect(shown.json<{ pay_url: string }>().pay_url).toBe(answered.pay_url);
    } finally {
      const stopped = exitOf(serve);
      serve.kill('SIGTERM');
      expect((await stopped).code).toBe(0);
    }
  }, 60_000);

  it('channel create and update take the timing settings', async () => {
    const { dataDir } = await seeded();
    const created = await cli(dataDir, 'channel', 'create', '--category', 'beta', '--name', 'Slow', '--pay-methods', 'bank', '--pay-timeout', '600', '--settle-delay', '60', '--json');
    expect(created.json()).toMatchObject({ pay_timeout: 600, settle_delay: 60, payout_delay: 5 });
    const id = String(created.json<{ id: number }>().id);
    expect((await cli(dataDir, 'channel', 'update', id, '--payout-delay', '0', '--json')).json()).toMatchObject({ pay_timeout: 600, settle_delay: 60, payout_delay: 0 });
    const bad = await cli(dataDir, 'channel', 'update', id, '--pay-timeout', '10');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('pay_timeout: must be at least 60');
  });

  it('joins a negative number to its option, and nothing else', () => {
    const spec = { amount: { type: 'string' }, json: { type: 'boolean' } } as const;
    expect(joinNegativeValues(['--amount', '-5', '--json'], spec)).toEqual(['--amount=-5', '--json']);
    expect(joinNegativeValues(['--json', '-5'], spec)).toEqual(['--json', '-5']);
    expect(joinNegativeValues(['--amount', '-x'], spec)).toEqual(['--amount', '-x']);
  });
});
