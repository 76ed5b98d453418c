import type { LookupFunction } from 'node:net';
import { describe, expect, it } from 'vitest';
import { verifySignature } from '../../../src-shared/client/sign';
import { AppError } from '../../../src-shared/errors';
import { CALLBACK_CLAIM_SECONDS } from '../../../src-main/background/callback-dispatcher';
import { CALLBACK_RETRY_DELAYS } from '../../../src-main/services/callback-service';
import { allowPrivateCallbacks, manualClock, read, rowCount, seedMerchant, testListener, testService, write } from '../../support/service-harness';
import { newBuy, newSell, reload } from '../../support/money';
import { startReceiver, type ReceivedCallback } from '../../support/callback-receiver';
import { tempDir } from '../../support/temp-dir';
import type { MerchantConsoleService } from '../../../src-main/service';
import type { OrderRow } from '../../../src-main/repositories/order-repository';

const FIELDS = [
  'merchant_id', 'order_no', 'order_type', 'status', 'cny_amount', 'merchant_amount', 'merchant_actual_amount', 'service_amount',
  'createtime', 'updatetime', 'timestamp', 'nonce', 'signature',
];

async function merchantWithCallback(service: MerchantConsoleService, url: string, signType: 'md5' | 'hmac-sha256' = 'hmac-sha256') {
  const m = await seedMerchant(service, 'Callback Merchant', { signType, balance: 1_000_000 });
  await allowPrivateCallbacks(service);
  await write(service, (tx) => service.services.merchants.update(tx, { id: m.id, callback_url: url }));
  return m;
}

const simulate = (service: MerchantConsoleService, orderNo: string, action: 'pay' | 'fail') =>
  write(service, (tx) => service.services.sandbox.simulate(tx, orderNo, action));
const deliveriesOf = (service: MerchantConsoleService, orderNo: string) => read(service, (tx) => service.services.callbacks.listForOrder(tx, orderNo));

/** Stands in for a full disk or an I/O error whenever a row is inserted into the table (both engines). */
async function failInsertsInto(service: MerchantConsoleService, table: string, message: string): Promise<() => Promise<void>> {
  const name = `${table}_fail`;
  await write(service, async (tx) => {
    if (tx.dialect === 'sqlite') {
      await tx.run(`CREATE TRIGGER ${name} BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, '${message}'); END`);
    } else {
      await tx.run(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '${message}'; END $$`);
      await tx.run(`CREATE TRIGGER ${name} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`);
    }
  });
  return () =>
    write(service, async (tx) => {
      if (tx.dialect === 'sqlite') {
        await tx.run(`DROP TRIGGER ${name}`);
      } else {
        await tx.run(`DROP TRIGGER ${name} ON ${table}`);
        await tx.run(`DROP FUNCTION ${name}()`);
      }
    });
}

/** A cancelled buy whose callback is due, with the dispatcher's errors collected. */
async function failedBuyWithCallbackDue() {
  const clock = manualClock(1_800_000_000);
  const errors: unknown[] = [];
  const service = await testService({ clock, callbacks: { onError: (err) => errors.push(err) } });
  const receiver = await startReceiver(() => ({ status: 200, body: 'success' }));
  const m = await merchantWithCallback(service, receiver.url);
  const buy = await newBuy(service, m);
  await simulate(service, buy.order_no, 'fail');
  return { clock, errors, service, receiver, m, buy };
}

function expectSigned(r: ReceivedCallback, secret: string, signType: 'md5' | 'hmac-sha256') {
  expect(Object.keys(r.fields).sort()).toEqual([...FIELDS].sort());
  expect(verifySignature(r.fields, r.fields.signature!, secret, signType)).toBe(true);
}

describe('merchant callbacks', () => {
  it('a receiver that fails twice, then acknowledges: retried after 5 s and 30 s, in order per order, every attempt logged', async () => {
    const clock = manualClock(1_800_000_000);
    const service = await testService({ clock });
    const answers = [
      { status: 500, body: 'database down' },
      { status: 200, body: 'fail' },
      { status: 200, body: 'SUCCESS' },
    ];
    const receiver = await startReceiver((_r, i) => answers[i] ?? { status: 200, body: 'success' });
    const m = await merchantWithCallback(service, receiver.url);
    const buy = await newBuy(service, m, 10_050);
    await simulate(service, buy.order_no, 'pay');

    // Queued with the status change; the settlement's callback (settle delay 0) queues behind it.
    await service.work.runDue();
    expect((await reload(service, buy)).status).toBe('completed');
    expect(receiver.received.map((r) => r.fields.status)).toEqual(['paid']);
    let [paid, completed] = await deliveriesOf(service, buy.order_no);
    expect(paid).toMatchObject({ order_status: 'paid', state: 'pending', attempts: 1, next_attempt_at: clock.now() + 5 });
    expect(completed).toMatchObject({ order_status: 'completed', state: 'pending', attempts: 0 });

    clock.advance(4);
    expect((await service.work.runDue()).callbackAttempts).toBe(0);
    clock.advance(1);
    await service.work.runDue();
    expect((await deliveriesOf(service, buy.order_no))[0]).toMatchObject({ attempts: 2, next_attempt_at: clock.now() + 30 });
    clock.advance(30);
    await service.work.runDue();
    // Acknowledged; then the next delivery of the order went out at once.
    expect(receiver.received.map((r) => r.fields.status)).toEqual(['paid', 'paid', 'paid', 'completed']);
    [paid, completed] = await deliveriesOf(service, buy.order_no);
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
    expect(receiver.received[3]!.fields.updatetime).toBe(String((await reload(service, buy)).updatetime));
    expect(receiver.received[2]!.headers['x-callback-id']).toBe(String(paid!.id));
    expect(receiver.received[2]!.headers['x-callback-attempt']).toBe('3');
  });

  it('follows the whole retry schedule, then gives up', async () => {
    const clock = manualClock(1_800_000_000);
    const service = await testService({ clock });
    const receiver = await startReceiver(() => ({ status: 503, body: 'x'.repeat(2000) }));
    const m = await merchantWithCallback(service, receiver.url, 'md5');
    const sell = await newSell(service, m);
    await service.work.runDue(); // confirmed → one callback, first attempt
    expect((await reload(service, sell)).status).toBe('confirmed');
    await write(service, (tx) => service.services.orderAdmin.cancel(tx, sell.order_no, 'stop')); // a second delivery, waiting behind the first
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
    const [confirmed, cancelled] = await deliveriesOf(service, sell.order_no);
    expect(confirmed).toMatchObject({ state: 'failed', attempts: 9, next_attempt_at: null });
    expect(confirmed!.attempt_log).toHaveLength(9);
    expect(Buffer.byteLength(confirmed!.attempt_log[0]!.response_excerpt)).toBe(512);
    // Its failure released the order's next delivery.
    expect(cancelled).toMatchObject({ state: 'pending', attempts: 1 });
    expect(receiver.received.map((r) => r.fields.status).slice(-1)).toEqual(['cancelled']);
    for (const r of receiver.received) expectSigned(r, m.apiSecret, 'md5');
    clock.advance(100_000);
    await service.work.runDue();
    expect((await deliveriesOf(service, sell.order_no))[0]!.attempts).toBe(9);
  });

  it('a restart between attempts resumes the delivery on schedule, nothing duplicated', async () => {
    const dataDir = tempDir();
    const clock = manualClock(1_800_000_000);
    const receiver = await startReceiver((_r, i) => (i === 0 ? { status: 502 } : { status: 200, body: '{"result":"success"}' }));
    let service = await testService({ dataDir, clock });
    const m = await merchantWithCallback(service, receiver.url);
    const buy = await newBuy(service, m);
    await write(service, (tx) => service.services.channels.update(tx, { id: m.channels.beta, settle_delay: 3600 }));
    await simulate(service, buy.order_no, 'pay');
    await service.work.runDue();
    expect(receiver.received).toHaveLength(1);
    await service.close();

    clock.advance(5);
    service = await testService({ dataDir, clock });
    expect(await service.work.nextDue()).toBe(clock.now());
    await service.work.runDue();
    expect(receiver.received.map((r) => r.fields.status)).toEqual(['paid', 'paid']);
    const [d] = await deliveriesOf(service, buy.order_no);
    expect(d).toMatchObject({ state: 'delivered', attempts: 2 });
    await service.work.runDue();
    expect(receiver.received).toHaveLength(2);
  });

  it('an attempt cut off by a stop is not logged and is sent again (at least once)', async () => {
    const dataDir = tempDir();
    const clock = manualClock(1_800_000_000);
    const receiver = await startReceiver((_r, i) => (i === 0 ? { status: 200, hang: true } : { status: 200, body: 'success' }));
    let service = await testService({ dataDir, clock });
    const m = await merchantWithCallback(service, receiver.url);
    const buy = await newBuy(service, m);
    await simulate(service, buy.order_no, 'fail');
    const running = service.work.runDue();
    await until(() => receiver.received.length > 0);
    await service.work.stop();
    await running;
    expect((await deliveriesOf(service, buy.order_no))[0]).toMatchObject({ state: 'pending', attempts: 0, attempt_log: [] });
    // The claim was given back: due at once, on any instance.
    expect(await read(service, (tx) => tx.get('SELECT claimed_by, claimed_until FROM callback_deliveries'))).toEqual({ claimed_by: null, claimed_until: null });
    await service.close();

    service = await testService({ dataDir, clock });
    await service.work.runDue();
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.headers['x-callback-id']).toBe(receiver.received[0]!.headers['x-callback-id']);
    expect((await deliveriesOf(service, buy.order_no))[0]).toMatchObject({ state: 'delivered', attempts: 1 });
  });

  it('does not follow redirects, needs "success" in a 2xx body, and times out', async () => {
    const clock = manualClock(1_800_000_000);
    const service = await testService({ clock, callbacks: { timeoutMs: 300 } });
    const target = await startReceiver(() => ({ status: 200, body: 'success' }));
    const answers = [
      { status: 302, headers: { location: target.url }, body: 'success' },
      { status: 204 },
      { status: 200, hang: true },
      { status: 201, body: 'Success, thanks' },
    ];
    const receiver = await startReceiver((_r, i) => answers[i]!);
    const m = await merchantWithCallback(service, receiver.url);
    const buy = await newBuy(service, m);
    await simulate(service, buy.order_no, 'fail');
    for (const delay of [0, 5, 30, 120]) {
      clock.advance(delay);
      await service.work.runDue();
    }
    const [d] = await deliveriesOf(service, buy.order_no);
    expect(d!.attempt_log.map((a) => [a.http_status, a.acknowledged])).toEqual([
      [302, false],
      [204, false],
      [null, false],
      [201, true],
    ]);
    expect(d!.attempt_log[2]!.error).toMatch(/^timeout/);
    expect(target.received).toHaveLength(0);
  });

  it('an attempt whose outcome cannot be logged (storage failure) is not re-sent at once, but when its claim runs out', async () => {
    const { clock, errors, service, receiver, buy } = await failedBuyWithCallbackDue();
    const restore = await failInsertsInto(service, 'callback_attempts', 'simulated storage failure');
    const outcome = await Promise.race([service.work.runDue().then(() => 'done'), new Promise((r) => setTimeout(r, 5_000, 'still sending'))]);
    await service.work.stop();
    expect(outcome).toBe('done');
    expect(receiver.received).toHaveLength(1);
    expect(errors).toEqual([expect.objectContaining({ message: 'simulated storage failure' })]);
    expect((await deliveriesOf(service, buy.order_no))[0]).toMatchObject({ state: 'pending', attempts: 0 });
    // The unlogged attempt keeps its claim (callback-dispatcher.ts): the next try is when the claim runs out.
    expect(await service.work.nextDue()).toBe(clock.now() + CALLBACK_CLAIM_SECONDS);

    await restore();
    clock.advance(CALLBACK_CLAIM_SECONDS - 1);
    await service.work.runDue();
    expect(receiver.received).toHaveLength(1);
    clock.advance(1);
    await service.work.runDue();
    // At least once: the same delivery again, now logged.
    expect(receiver.received.map((r) => r.headers['x-callback-id'])).toEqual([receiver.received[0]!.headers['x-callback-id'], receiver.received[0]!.headers['x-callback-id']]);
    expect((await deliveriesOf(service, buy.order_no))[0]).toMatchObject({ state: 'delivered', attempts: 1 });
  });

  it('an attempt that fails before sending (a secret that cannot be opened) is held back too, not retried in a spin', async () => {
    const { clock, errors, service, receiver, m, buy } = await failedBuyWithCallbackDue();
    const sealed = (await read(service, (tx) => tx.get<{ s: string }>('SELECT api_secret_enc AS s FROM merchants WHERE id = ?', [m.id])))!.s;
    const setSecret = (value: string) => write(service, (tx) => tx.run('UPDATE merchants SET api_secret_enc = ? WHERE id = ?', [value, m.id]));
    await setSecret('v1:AAAA');
    expect((await service.work.runDue()).callbackAttempts).toBe(0);
    expect(errors).toHaveLength(1);
    expect(receiver.received).toHaveLength(0);
    await setSecret(sealed);
    clock.advance(CALLBACK_CLAIM_SECONDS - 1);
    expect((await service.work.runDue()).callbackAttempts).toBe(0);
    expect(receiver.received).toHaveLength(0);
    clock.advance(1);
    await service.work.runDue();
    expect((await deliveriesOf(service, buy.order_no))[0]).toMatchObject({ state: 'delivered', attempts: 1 });
    expect(errors).toHaveLength(1);
  });

  it('the delivery is queued in the transaction of the status change: no change, no callback', async () => {
    const service = await testService();
    const m = await merchantWithCallback(service, 'http://127.0.0.1:9/never');
    const buy = await newBuy(service, m);
    service.services.lifecycle.onTransition(async () => {
      throw new AppError(4001, 'refused after queuing');
    });
    await expect(simulate(service, buy.order_no, 'pay')).rejects.toThrow('refused after queuing');
    expect((await reload(service, buy)).status).toBe('pending');
    expect(await rowCount(service, 'callback_deliveries')).toBe(0);
    expect(await rowCount(service, 'ledger_transactions')).toBe(1); // the test funding only
  });

  it('no callback_url, no delivery; resend queues the current status again', async () => {
    const clock = manualClock(1_800_000_000);
    const service = await testService({ clock });
    const resend = (orderNo: string) => write(service, (tx) => service.services.callbacks.resend(tx, orderNo));
    const silent = await seedMerchant(service, 'Silent');
    const quiet = await newBuy(service, silent);
    await simulate(service, quiet.order_no, 'fail');
    expect(await rowCount(service, 'callback_deliveries')).toBe(0);
    await expect(resend(quiet.order_no)).rejects.toThrow(/has no callback URL/);

    const receiver = await startReceiver(() => ({ status: 200, body: 'success' }));
    const m = await merchantWithCallback(service, receiver.url);
    const fresh = await newBuy(service, m);
    await expect(resend(fresh.order_no)).rejects.toThrow(/no callback to send/);
    await simulate(service, fresh.order_no, 'pay');
    await service.work.runDue();
    const again = await resend(fresh.order_no);
    expect(again).toMatchObject({ trigger: 'resend', order_status: 'completed', state: 'pending' });
    await service.work.runDue();
    expect(receiver.received.map((r) => r.fields.status)).toEqual(['paid', 'completed', 'completed']);
    const detail = await read(service, (tx) => service.services.orderAdmin.detail(tx, fresh.order_no));
    expect(detail.callbacks.map((c) => [c.trigger, c.state])).toEqual([
      ['transition', 'delivered'],
      ['transition', 'delivered'],
      ['resend', 'delivered'],
    ]);
  });
});

describe('callbacks with several instances on one store', () => {
  /** A second service on the same store (same data dir: same SQLite file or PostgreSQL database), as another instance. */
  async function twoInstances(options: { concurrency?: number } = {}) {
    const dataDir = tempDir();
    const clock = manualClock(1_800_000_000);
    const errors: unknown[] = [];
    const callbacks = { onError: (err: unknown) => errors.push(err), ...options };
    const a = await testService({ dataDir, clock, instanceId: 'instance-a', callbacks });
    const b = await testService({ dataDir, clock, instanceId: 'instance-b', callbacks });
    return { clock, errors, a, b };
  }

  it('two instances sending at once: every delivery attempted once per due attempt, an order\'s deliveries in order', async () => {
    const { clock, errors, a, b } = await twoInstances({ concurrency: 4 });
    // Each delivery's first attempt fails, its second is acknowledged. The first round's answers wait until eight
    // requests are open: each instance has at most four in flight, so both are then sending, whatever the scheduling
    // (the claims are really contended). After 5 s they are answered anyway, and the check below says so.
    const seen = new Map<string, number>();
    let held: (() => void)[] | null = [];
    const releaseHeld = () => {
      for (const release of held ?? []) release();
      held = null;
    };
    const holdUntilBothSend = setTimeout(releaseHeld, 5_000);
    const receiver = await startReceiver(async (r) => {
      const id = String(r.headers['x-callback-id']);
      seen.set(id, (seen.get(id) ?? 0) + 1);
      if (held) {
        const open = held;
        await new Promise<void>((resolve) => {
          open.push(resolve);
          if (open.length === 8) releaseHeld();
        });
      }
      return seen.get(id) === 1 ? { status: 500, body: 'busy' } : { status: 200, body: 'success' };
    });
    const m = await merchantWithCallback(a, receiver.url);
    const buys: OrderRow[] = [];
    for (let i = 0; i < 24; i++) buys.push(await newBuy(a, m));
    // Paid, then completed: two deliveries per order, all due now (no order work: both instances go straight to the callbacks).
    await write(a, async (tx) => {
      for (const buy of buys) {
        await a.services.sandbox.simulate(tx, buy.order_no, 'pay');
        await a.services.sandbox.simulate(tx, buy.order_no, 'complete');
      }
    });
    const together = async () => {
      const [ra, rb] = await Promise.all([a.work.runDue(), b.work.runDue()]);
      return { attempts: ra.callbackAttempts + rb.callbackAttempts, each: [ra.callbackAttempts, rb.callbackAttempts] };
    };
    const round1 = await together();
    clearTimeout(holdUntilBothSend);
    expect(round1.attempts).toBe(24); // the paid deliveries, once each; the completed ones wait behind them
    expect(round1.each.every((n) => n > 0)).toBe(true); // both instances sent: the claims were really contended
    clock.advance(CALLBACK_RETRY_DELAYS[0]);
    const round2 = await together();
    // paid: second attempt (acknowledged); completed: first attempt (refused), then it waits 5 s.
    expect(round2.attempts).toBe(48);
    clock.advance(CALLBACK_RETRY_DELAYS[0]);
    expect((await together()).attempts).toBe(24);
    expect((await together()).attempts).toBe(0);
    expect(errors).toEqual([]);

    // Every delivery: exactly two requests, attempts 1 and 2, both logged.
    expect(receiver.received).toHaveLength(96);
    const byDelivery = new Map<string, string[]>();
    for (const r of receiver.received) {
      const id = String(r.headers['x-callback-id']);
      byDelivery.set(id, [...(byDelivery.get(id) ?? []), String(r.headers['x-callback-attempt'])]);
    }
    expect(byDelivery.size).toBe(48);
    for (const attempts of byDelivery.values()) expect(attempts).toEqual(['1', '2']);
    for (const buy of buys) {
      // In order per order: every paid request came before the first completed one.
      const statuses = receiver.received.filter((r) => r.fields.order_no === buy.order_no).map((r) => r.fields.status);
      expect(statuses).toEqual(['paid', 'paid', 'completed', 'completed']);
      const deliveries = await deliveriesOf(b, buy.order_no);
      expect(deliveries.map((d) => [d.order_status, d.state, d.attempts, d.attempt_log.length])).toEqual([
        ['paid', 'delivered', 2, 2],
        ['completed', 'delivered', 2, 2],
      ]);
    }
    // No claim is left behind.
    expect(await read(a, (tx) => tx.get('SELECT count(*) AS n FROM callback_deliveries WHERE claimed_by IS NOT NULL'))).toEqual({ n: 0 });
  });

  it("a delivery claimed by an instance that died is sent by another once the claim runs out, and the order's next waits for it", async () => {
    const { clock, a, b } = await twoInstances();
    const receiver = await startReceiver(() => ({ status: 200, body: 'success' }));
    const m = await merchantWithCallback(a, receiver.url);
    const buy = await newBuy(a, m);
    await simulate(a, buy.order_no, 'pay');
    // An instance claimed the paid delivery for 300 s and died before sending it.
    const claimed = await write(a, (tx) =>
      tx.run("UPDATE callback_deliveries SET claimed_by = 'dead', claimed_until = ? WHERE order_id = ?", [clock.now() + 300, buy.id]),
    );
    expect(claimed).toBe(1);

    clock.advance(299);
    const early = await Promise.all([a.work.runDue(), b.work.runDue()]);
    // The settlement ran (queuing the completed delivery), but no callback went out: neither the claimed one nor the one behind it.
    expect((await reload(a, buy)).status).toBe('completed');
    expect(early.map((r) => r.callbackAttempts)).toEqual([0, 0]);
    expect(receiver.received).toHaveLength(0);

    clock.advance(1);
    const reports = await Promise.all([a.work.runDue(), b.work.runDue()]);
    expect(reports[0]!.callbackAttempts + reports[1]!.callbackAttempts).toBe(2);
    expect(receiver.received.map((r) => [r.fields.status, r.headers['x-callback-attempt']])).toEqual([
      ['paid', '1'],
      ['completed', '1'],
    ]);
    expect((await deliveriesOf(a, buy.order_no)).map((d) => [d.order_status, d.state, d.attempts])).toEqual([
      ['paid', 'delivered', 1],
      ['completed', 'delivered', 1],
    ]);
    expect(await read(a, (tx) => tx.all('SELECT claimed_by, claimed_until FROM callback_deliveries'))).toEqual([
      { claimed_by: null, claimed_until: null },
      { claimed_by: null, claimed_until: null },
    ]);
  });
});

/** Resolves once the condition holds (polled every 5 ms). */
function until(condition: () => boolean): Promise<void> {
  return new Promise<void>((resolve) => {
    const check = setInterval(() => {
      if (condition()) {
        clearInterval(check);
        resolve();
      }
    }, 5);
  });
}
/** A resolver that knows only the names given (as /etc/hosts would): no network in tests. */
function fakeDns(names: Record<string, string>): LookupFunction {
  return (hostname, options, callback) => {
    const address = names[hostname];
    if (address === undefined) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
    const family = address.includes(':') ? 6 : 4;
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

describe('where callbacks may go, at delivery (docs/callbacks.md)', () => {
  it('a name that resolves to a loopback address is refused while private addresses are not allowed, and delivered once they are', async () => {
    const clock = manualClock(1_800_000_000);
    const receiver = await startReceiver(() => ({ status: 200, body: 'success' }));
    const service = await testService({ clock, callbacks: { lookup: fakeDns({ 'hooks.shop.test': '127.0.0.1' }) } });
    const m = await seedMerchant(service, 'Named Receiver');
    // A name is accepted when set: only its address tells where it leads, and DNS may change.
    await write(service, (tx) => service.services.merchants.update(tx, { id: m.id, callback_url: `http://hooks.shop.test:${new URL(receiver.url).port}/cb` }));
    const buy = await newBuy(service, m);
    await write(service, (tx) => service.services.sandbox.simulate(tx, buy.order_no, 'fail'));
    await service.work.runDue();
    expect(receiver.received).toEqual([]);
    expect((await read(service, (tx) => service.services.callbacks.listForOrder(tx, buy.order_no)))[0]!.attempt_log).toMatchObject([
      { http_status: null, acknowledged: false, error: expect.stringMatching(/^refused: hooks\.shop\.test \(127\.0\.0\.1\) is a loopback address; allowed only after `merchant-console callback policy --allow-private`/) },
    ]);

    // The setting is read at every attempt: a running service follows the CLI at once.
    await allowPrivateCallbacks(service);
    clock.advance(CALLBACK_RETRY_DELAYS[0]);
    await service.work.runDue();
    expect(receiver.received.map((r) => r.fields.status)).toEqual(['cancelled']);
    expect(receiver.received[0]!.headers.host).toBe(`hooks.shop.test:${new URL(receiver.url).port}`);
  });

  it("never the service's own listener, whatever name leads there and whatever the setting", async () => {
    const service = await testService({ callbacks: { lookup: fakeDns({ 'me.shop.test': '127.0.0.1' }) } });
    await allowPrivateCallbacks(service);
    const listener = await testListener(service);
    const { port } = new URL(listener.url);
    const m = await seedMerchant(service, 'Loop');
    // Literally: refused when set.
    await expect(write(service, (tx) => service.services.merchants.update(tx, { id: m.id, callback_url: `http://localhost:${port}/channel/notify/1` }))).rejects.toThrow(
      /own listener/,
    );
    await write(service, (tx) => service.services.merchants.update(tx, { id: m.id, callback_url: `http://me.shop.test:${port}/channel/notify/1` }));
    const buy = await newBuy(service, m);
    await write(service, (tx) => service.services.sandbox.simulate(tx, buy.order_no, 'fail'));
    await service.work.runDue();
    expect((await read(service, (tx) => service.services.callbacks.listForOrder(tx, buy.order_no)))[0]!.attempt_log).toMatchObject([
      { http_status: null, error: expect.stringMatching(new RegExp(`^refused: me\\.shop\\.test:${port} \\(127\\.0\\.0\\.1\\) is this service's own listener`)) },
    ]);
  });

  it('a stored URL the rule refuses (set before the rule existed) is not contacted', async () => {
    const clock = manualClock(1_800_000_000);
    const receiver = await startReceiver(() => ({ status: 200, body: 'success' }));
    const service = await testService({ clock });
    const m = await seedMerchant(service, 'Legacy');
    const withPassword = receiver.url.replace('http://', 'http://hook:pw@');
    for (const [url, error] of [
      [receiver.url, /^refused: 127\.0\.0\.1 is a loopback address/],
      [withPassword, /^refused: must not contain a user name or password/],
      ['http://169.254.169.254/latest/meta-data/', /^refused: 169\.254\.169\.254 is a link-local address/],
    ] as const) {
      await write(service, (tx) => tx.run('UPDATE merchants SET callback_url = ? WHERE id = ?', [url, m.id]));
      const buy = await newBuy(service, m);
      const delivery = await write(service, async (tx) =>
        service.services.callbacks.enqueue(tx, (await service.services.orders.requireByNo(tx, buy.order_no)), 'resend'),
      );
      expect(delivery).not.toBeNull();
      await service.work.runDue();
      expect((await read(service, (tx) => service.services.callbacks.listForOrder(tx, buy.order_no)))[0]!.attempt_log, url).toMatchObject([
        { http_status: null, error: expect.stringMatching(error) },
      ]);
    }
    expect(receiver.received).toEqual([]);
  });
});

