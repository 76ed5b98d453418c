import { describe, expect, it } from 'vitest';
import { verifySignature } from '../../../src-shared/client/sign';
import { AppError } from '../../../src-shared/errors';
import { openService } from '../../../src-main/service';
import { CALLBACK_RETRY_DELAYS } from '../../../src-main/services/callback-service';
import { manualClock, rowCount, seedMerchant, testService } from '../../support/service-harness';
import { newBuy, newSell, reload } from '../../support/money';
import { startReceiver, type ReceivedCallback } from '../../support/callback-receiver';
import { tempDir } from '../../support/temp-dir';
import type { MerchantConsoleService } from '../../../src-main/service';

const FIELDS = [
  'merchant_id', 'order_no', 'order_type', 'status', 'cny_amount', 'merchant_amount', 'merchant_actual_amount', 'service_amount',
  'createtime', 'updatetime', 'timestamp', 'nonce', 'signature',
];

function merchantWithCallback(service: MerchantConsoleService, url: string, signType: 'md5' | 'hmac-sha256' = 'hmac-sha256') {
  const m = seedMerchant(service, 'Callback Merchant', { signType, balance: 1_000_000 });
  service.services.merchants.update({ id: m.id, callback_url: url });
  return m;
}

/** A cancelled buy whose callback is due, with the dispatcher's errors collected. */
async function failedBuyWithCallbackDue() {
  const clock = manualClock(1_800_000_000);
  const errors: unknown[] = [];
  const service = testService({ clock, callbacks: { onError: (err) => errors.push(err) } });
  const receiver = await startReceiver(() => ({ status: 200, body: 'success' }));
  const m = merchantWithCallback(service, receiver.url);
  const buy = newBuy(service, m);
  service.services.sandbox.simulate(buy.order_no, 'fail');
  return { clock, errors, service, receiver, m, buy };
}

function expectSigned(r: ReceivedCallback, secret: string, signType: 'md5' | 'hmac-sha256') {
  expect(Object.keys(r.fields).sort()).toEqual([...FIELDS].sort());
  expect(verifySignature(r.fields, r.fields.signature!, secret, signType)).toBe(true);
}

describe('merchant callbacks', () => {
  it('a receiver that fails twice, then acknowledges: retried after 5 s and 30 s, in order per order, every attempt logged', async () => {
    const clock = manualClock(1_800_000_000);
    const service = testService({ clock });
    const answers = [
      { status: 500, body: 'database down' },
      { status: 200, body: 'fail' },
      { status: 200, body: 'SUCCESS' },
    ];
    const receiver = await startReceiver((_r, i) => answers[i] ?? { status: 200, body: 'success' });
    const m = merchantWithCallback(service, receiver.url);
    const buy = newBuy(service, m, 10_050);
    service.services.sandbox.simulate(buy.order_no, 'pay');

    // Queued with the status change; the settlement's callback (settle delay 0) queues behind it.
    await service.work.runDue();
    expect(reload(service, buy).status).toBe('completed');
    expect(receiver.received.map((r) => r.fields.status)).toEqual(['paid']);
    let [paid, completed] = service.services.callbacks.listForOrder(buy.order_no);
    expect(paid).toMatchObject({ order_status: 'paid', state: 'pending', attempts: 1, next_attempt_at: clock.now() + 5 });
    expect(completed).toMatchObject({ order_status: 'completed', state: 'pending', attempts: 0 });

    clock.advance(4);
    expect((await service.work.runDue()).callbackAttempts).toBe(0);
    clock.advance(1);
    await service.work.runDue();
    expect(service.services.callbacks.listForOrder(buy.order_no)[0]).toMatchObject({ attempts: 2, next_attempt_at: clock.now() + 30 });
    clock.advance(30);
    await service.work.runDue();
    // Acknowledged; then the next delivery of the order went out at once.
    expect(receiver.received.map((r) => r.fields.status)).toEqual(['paid', 'paid', 'paid', 'completed']);
    [paid, completed] = service.services.callbacks.listForOrder(buy.order_no);
    expect(paid).toMatchObject({ state: 'delivered', attempts: 3, next_attempt_at: null, url: receiver.url });
    expect(completed).toMatchObject({ state: 'delivered', attempts: 1 });
    expect(paid!.attempt_log.map((a) => [a.attempt, a.http_status, a.response_excerpt, a.acknowledged, a.error])).toEqual([
      [1, 500, 'database down', false, null],
      [2, 200, 'fail', false, null],
      [3, 200, 'SUCCESS', true, null],
    ]);
    expect(paid!.attempt_log.every((a) => Number.isInteger(a.latency_ms) && a.latency_ms >= 0)).toBe(true);

    // The form: exactly the documented fields, signed as the merchant signs requests, fresh nonce per attempt.
    for (const r of receiver.received) {
      expect(r.method).toBe('POST');
      expect(r.path).toBe('/notify/callback');
      expect(r.headers['content-type']).toBe('application/x-www-form-urlencoded; charset=utf-8');
      expectSigned(r, m.apiSecret, 'hmac-sha256');
    }
    expect(new Set(receiver.received.map((r) => r.fields.nonce)).size).toBe(4);
    expect(receiver.received[0]!.fields).toMatchObject({
      merchant_id: String(m.id),
      order_no: buy.order_no,
      order_type: '1',
      status: 'paid',
      cny_amount: '100.50',
      merchant_amount: '100.50',
      merchant_actual_amount: String(buy.merchant_actual_amount),
      service_amount: String(buy.service_amount),
      createtime: String(buy.createtime),
    });
    expect(receiver.received[3]!.fields.updatetime).toBe(String(reload(service, buy).updatetime));
    expect(receiver.received[2]!.headers['x-callback-id']).toBe(String(paid!.id));
    expect(receiver.received[2]!.headers['x-callback-attempt']).toBe('3');
  });

  it('follows the whole retry schedule, then gives up', async () => {
    const clock = manualClock(1_800_000_000);
    const service = testService({ clock });
    const receiver = await startReceiver(() => ({ status: 503, body: 'x'.repeat(2000) }));
    const m = merchantWithCallback(service, receiver.url, 'md5');
    const sell = newSell(service, m);
    await service.work.runDue(); // confirmed → one callback, first attempt
    expect(reload(service, sell).status).toBe('confirmed');
    service.services.orderAdmin.cancel(sell.order_no, 'stop'); // a second delivery, waiting behind the first
    const confirmedSent = () => receiver.received.filter((r) => r.fields.status === 'confirmed').length;
    for (const delay of CALLBACK_RETRY_DELAYS) {
      clock.advance(delay - 1);
      await service.work.runDue();
      const before = confirmedSent();
      clock.advance(1);
      await service.work.runDue();
      expect(confirmedSent()).toBe(before + 1);
    }
    expect(confirmedSent()).toBe(9);
    const [confirmed, cancelled] = service.services.callbacks.listForOrder(sell.order_no);
    expect(confirmed).toMatchObject({ state: 'failed', attempts: 9, next_attempt_at: null });
    expect(confirmed!.attempt_log).toHaveLength(9);
    expect(Buffer.byteLength(confirmed!.attempt_log[0]!.response_excerpt)).toBe(512);
    // Its failure released the order's next delivery.
    expect(cancelled).toMatchObject({ state: 'pending', attempts: 1 });
    expect(receiver.received.map((r) => r.fields.status).slice(-1)).toEqual(['cancelled']);
    for (const r of receiver.received) expectSigned(r, m.apiSecret, 'md5');
    clock.advance(100_000);
    await service.work.runDue();
    expect(service.services.callbacks.listForOrder(sell.order_no)[0]!.attempts).toBe(9);
  });

  it('a restart between attempts resumes the delivery on schedule, nothing duplicated', async () => {
    const dataDir = tempDir();
    const clock = manualClock(1_800_000_000);
    const receiver = await startReceiver((_r, i) => (i === 0 ? { status: 502 } : { status: 200, body: '{"result":"success"}' }));
    let service = openService({ dataDir, clock });
    const m = merchantWithCallback(service, receiver.url);
    const buy = newBuy(service, m);
    service.services.channels.update({ id: m.channels.beta, settle_delay: 3600 });
    service.services.sandbox.simulate(buy.order_no, 'pay');
    await service.work.runDue();
    expect(receiver.received).toHaveLength(1);
    service.close();

    clock.advance(5);
    service = openService({ dataDir, clock });
    try {
      expect(service.work.nextDue()).toBe(clock.now());
      await service.work.runDue();
      expect(receiver.received.map((r) => r.fields.status)).toEqual(['paid', 'paid']);
      const [d] = service.services.callbacks.listForOrder(buy.order_no);
      expect(d).toMatchObject({ state: 'delivered', attempts: 2 });
      await service.work.runDue();
      expect(receiver.received).toHaveLength(2);
    } finally {
      service.close();
    }
  });

  it('an attempt cut off by a stop is not logged and is sent again (at least once)', async () => {
    const dataDir = tempDir();
    const clock = manualClock(1_800_000_000);
    let release: () => void = () => undefined;
    const receiver = await startReceiver((_r, i) => (i === 0 ? { status: 200, hang: true } : { status: 200, body: 'success' }));
    let service = openService({ dataDir, clock });
    const m = merchantWithCallback(service, receiver.url);
    const buy = newBuy(service, m);
    service.services.sandbox.simulate(buy.order_no, 'fail');
    const running = service.work.runDue();
    await new Promise<void>((resolve) => {
      release = resolve;
      const check = setInterval(() => receiver.received.length > 0 && (clearInterval(check), release()), 5);
    });
    await service.work.stop();
    await running;
    expect(service.services.callbacks.listForOrder(buy.order_no)[0]).toMatchObject({ state: 'pending', attempts: 0, attempt_log: [] });
    service.close();

    service = openService({ dataDir, clock });
    try {
      await service.work.runDue();
      expect(receiver.received).toHaveLength(2);
      expect(receiver.received[1]!.headers['x-callback-id']).toBe(receiver.received[0]!.headers['x-callback-id']);
      expect(service.services.callbacks.listForOrder(buy.order_no)[0]).toMatchObject({ state: 'delivered', attempts: 1 });
    } finally {
      service.close();
    }
  });

  it('does not follow redirects, needs "success" in a 2xx body, and times out', async () => {
    const clock = manualClock(1_800_000_000);
    const service = testService({ clock, callbacks: { timeoutMs: 300 } });
    const target = await startReceiver(() => ({ status: 200, body: 'success' }));
    const answers = [
      { status: 302, headers: { location: target.url }, body: 'success' },
      { status: 204 },
      { status: 200, hang: true },
      { status: 201, body: 'Success, thanks' },
    ];
    const receiver = await startReceiver((_r, i) => answers[i]!);
    const m = merchantWithCallback(service, receiver.url);
    const buy = newBuy(service, m);
    service.services.sandbox.simulate(buy.order_no, 'fail');
    for (const delay of [0, 5, 30, 120]) {
      clock.advance(delay);
      await service.work.runDue();
    }
    const [d] = service.services.callbacks.listForOrder(buy.order_no);
    expect(d!.attempt_log.map((a) => [a.http_status, a.acknowledged])).toEqual([
      [302, false],
      [204, false],
      [null, false],
      [201, true],
    ]);
    expect(d!.attempt_log[2]!.error).toMatch(/^timeout/);
    expect(target.received).toHaveLength(0);
  });

  it('an attempt whose outcome cannot be logged (storage failure) is not re-sent at once, but after the first retry delay', async () => {
    const { clock, errors, service, receiver, buy } = await failedBuyWithCallbackDue();
    // Stands in for a full disk or an I/O error at the moment the attempt is logged.
    service.db.exec(`CREATE TRIGGER attempts_fail BEFORE INSERT ON callback_attempts BEGIN SELECT RAISE(ABORT, 'simulated storage failure'); END`);
    const outcome = await Promise.race([service.work.runDue().then(() => 'done'), new Promise((r) => setTimeout(r, 5_000, 'still sending'))]);
    await service.work.stop();
    expect(outcome).toBe('done');
    expect(receiver.received).toHaveLength(1);
    expect(errors).toEqual([expect.objectContaining({ message: 'simulated storage failure' })]);
    expect(service.services.callbacks.listForOrder(buy.order_no)[0]).toMatchObject({ state: 'pending', attempts: 0 });

    service.db.exec('DROP TRIGGER attempts_fail');
    clock.advance(CALLBACK_RETRY_DELAYS[0] - 1);
    await service.work.runDue();
    expect(receiver.received).toHaveLength(1);
    clock.advance(1);
    await service.work.runDue();
    // At least once: the same delivery again, now logged.
    expect(receiver.received.map((r) => r.headers['x-callback-id'])).toEqual([receiver.received[0]!.headers['x-callback-id'], receiver.received[0]!.headers['x-callback-id']]);
    expect(service.services.callbacks.listForOrder(buy.order_no)[0]).toMatchObject({ state: 'delivered', attempts: 1 });
  });

  it('an attempt that fails before sending (a secret that cannot be opened) is held back too, not retried in a spin', async () => {
    const { clock, errors, service, receiver, m, buy } = await failedBuyWithCallbackDue();
    const sealed = (service.db.prepare('SELECT api_secret_enc AS s FROM merchants WHERE id = ?').get(m.id) as { s: string }).s;
    service.db.prepare('UPDATE merchants SET api_secret_enc = ? WHERE id = ?').run("v1:AAAA", m.id);
    expect((await service.work.runDue()).callbackAttempts).toBe(0);
    expect(errors).toHaveLength(1);
    expect(receiver.received).toHaveLength(0);
    service.db.prepare('UPDATE merchants SET api_secret_enc = ? WHERE id = ?').run(sealed, m.id);
    clock.advance(CALLBACK_RETRY_DELAYS[0]);
    await service.work.runDue();
    expect(service.services.callbacks.listForOrder(buy.order_no)[0]).toMatchObject({ state: 'delivered', attempts: 1 });
  });

  it('the delivery is queued in the transaction of the status change: no change, no callback', () => {
    const service = testService();
    const m = merchantWithCallback(service, 'http://127.0.0.1:9/never');
    const buy = newBuy(service, m);
    service.services.lifecycle.onTransition(() => {
      throw new AppError(4001, 'refused after queuing');
    });
    expect(() => service.services.sandbox.simulate(buy.order_no, 'pay')).toThrow('refused after queuing');
    expect(reload(service, buy).status).toBe('pending');
    expect(rowCount(service, 'callback_deliveries')).toBe(0);
    expect(rowCount(service, 'ledger_transactions')).toBe(1); // the test funding only
  });

  it('no callback_url, no delivery; resend queues the current status again', async () => {
    const clock = manualClock(1_800_000_000);
    const service = testService({ clock });
    const silent = seedMerchant(service, 'Silent');
    const quiet = newBuy(service, silent);
    service.services.sandbox.simulate(quiet.order_no, 'fail');
    expect(rowCount(service, 'callback_deliveries')).toBe(0);
    expect(() => service.services.callbacks.resend(quiet.order_no)).toThrow(/has no callback URL/);

    const receiver = await startReceiver(() => ({ status: 200, body: 'success' }));
    const m = merchantWithCallback(service, receiver.url);
    const fresh = newBuy(service, m);
    expect(() => service.services.callbacks.resend(fresh.order_no)).toThrow(/no callback to send/);
    service.services.sandbox.simulate(fresh.order_no, 'pay');
    await service.work.runDue();
    const again = service.services.callbacks.resend(fresh.order_no);
    expect(again).toMatchObject({ trigger: 'resend', order_status: 'completed', state: 'pending' });
    await service.work.runDue();
    expect(receiver.received.map((r) => r.fields.status)).toEqual(['paid', 'completed', 'completed']);
    expect(service.services.orderAdmin.detail(fresh.order_no).callbacks.map((c) => [c.trigger, c.state])).toEqual([
      ['transition', 'delivered'],
      ['transition', 'delivered'],
      ['resend', 'delivered'],
    ]);
  });
});
