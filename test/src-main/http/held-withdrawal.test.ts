/**
 * Withdrawals through the signed merchant API above the merchant's API
 * withdrawal threshold: accepted, not done (202, code 4005), their sum held
 * until a second person decides in the console; a replay of the
 * Idempotency-Key answers the outcome once decided. Real HTTP; the answers
 * are checked against the OpenAPI document by the listener's hook.
 */
import { describe, expect, it } from 'vitest';
import { createConsoleHandlers, dispatchConsoleCall } from '../../../src-main/console-api/console-handlers';
import { CLI_ACTOR } from '../../../src-main/services/audit-service';
import { clientFor, manualClock, read, rowCount, seedMerchant, testListener, testService, write } from '../../support/service-harness';
import { expectLedgerConsistent } from '../../support/money';
import { callerOf, createTestAccount, totpCode } from '../../support/accounts';

async function setup() {
  const clock = manualClock(Math.floor(Date.now() / 1000));
  const service = await testService({ clock });
  const listener = await testListener(service);
  const m = await seedMerchant(service, 'Held', { balance: 10_000_000 });
  const client = clientFor(listener, m, { now: clock.now });
  const url = `${listener.url}/addons/paychannel/merchant/createOrder`;
  const sell = async (amount: string, key?: string) => {
    const body = { order_type: 2, cny_amount: amount, paychannel_id: m.channels.beta, paychannel_paymethod: 'bank' };
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
      body: JSON.stringify(client.signBody(body)),
    });
    const text = await res.text();
    return { status: res.status, text, json: JSON.parse(text) as { code: number; msg: string; data: Record<string, unknown> | null }, replayed: res.headers.get('idempotent-replayed') };
  };
  const balances = () => read(service, (tx) => service.services.ledger.balances(tx, m.id));
  const handlers = createConsoleHandlers(service, { version: 'test', listenerUrl: () => listener.url });
  const finance = await createTestAccount(service, { role: 'finance' });
  const decide = async (method: 'approveRequest' | 'rejectRequest', id: number, offset = 0) =>
    dispatchConsoleCall(handlers, method, method === 'approveRequest' ? { id, totp_code: totpCode(service, finance, offset) } : { id, note: 'not this week' }, callerOf(finance));
  return { clock, service, m, sell, balances, decide };
}

describe('merchant-API withdrawals and the API withdrawal threshold', () => {
  it('without a threshold a withdrawal is done at once, whatever its size', async () => {
    const { sell, service } = await setup();
    const res = await sell('50000.00');
    expect([res.status, res.json.code]).toEqual([200, 1]);
    expect(await rowCount(service, 'approval_requests')).toBe(0);
  });

  it('above the threshold: 202, held, no order; approved: the order exists once and the key replays it', async () => {
    const { service, m, sell, balances, decide } = await setup();
    await write(service, (tx) => service.services.adminActions.setMerchantLimits(tx, CLI_ACTOR, m.id, { api: 100_00 }));
    expect((await sell('100.00')).status).toBe(200); // at the threshold: done at once

    const before = await balances();
    const held = await sell('5000.00', 'payout-42');
    expect(held.status).toBe(202);
    expect(held.json).toMatchObject({ code: 4005, data: { approval_id: expect.any(Number), expires_at: expect.any(Number) } });
    expect(held.json.msg).toMatch(/^withdrawal held: request #\d+ waits for a second person's approval until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(Beijing time\)/);
    const approvalId = held.json.data!.approval_id as number;
    const taken = before.available - (await balances()).available;
    expect(taken).toBeGreaterThan(500_000);
    expect(await balances()).toEqual({ ...before, available: before.available - taken, frozen: before.frozen + taken });
    const ordersBefore = await rowCount(service, 'orders');

    // While it waits, the key replays the same answer.
    const waiting = await sell('5000.00', 'payout-42');
    expect([waiting.status, waiting.text, waiting.replayed]).toEqual([202, held.text, 'true']);

    const approved = await decide('approveRequest', approvalId);
    expect(approved).toMatchObject({ code: 1, data: { state: 'approved', requested_via: 'api', requested_by: null } });
    expect(await rowCount(service, 'orders')).toBe(ordersBefore + 1);
    expect(await balances()).toEqual({ ...before, available: before.available - taken, frozen: before.frozen + taken });

    const after = await sell('5000.00', 'payout-42');
    expect([after.status, after.json.code, after.replayed]).toEqual([200, 1, 'true']);
    expect(after.json.data).toMatchObject({ order_type: 2, cny_amount: '5000.00', status: 'pending' });
    // From then on the same bytes again.
    expect((await sell('5000.00', 'payout-42')).text).toBe(after.text);
    expect(await rowCount(service, 'orders')).toBe(ordersBefore + 1);
    const entry = await read(service, (tx) => tx.get<{ actor_kind: string; account_login: string }>("SELECT * FROM audit_log WHERE action = 'approval.request'"));
    expect(entry).toMatchObject({ actor_kind: 'merchant', account_login: (await read(service, (tx) => service.services.merchants.get(tx, m.id))).api_key });
    await expectLedgerConsistent(service);
  });

  it('rejected: the hold is released, nothing is paid out, and the key answers 409 saying so', async () => {
    const { service, m, sell, balances, decide } = await setup();
    await write(service, (tx) => service.services.adminActions.setMerchantLimits(tx, CLI_ACTOR, m.id, { api: 0 }));
    const before = await balances();
    const held = await sell('20.00', 'payout-43');
    expect(held.status).toBe(202);
    expect((await decide('rejectRequest', held.json.data!.approval_id as number)).code).toBe(1);
    expect(await balances()).toEqual(before);
    const replay = await sell('20.00', 'payout-43');
    expect([replay.status, replay.json.code]).toEqual([409, 4001]);
    expect(replay.json.msg).toBe(`withdrawal request #${held.json.data!.approval_id} was not approved (rejected: not this week); nothing was paid out`);
    expect(await rowCount(service, 'orders')).toBe(0);
    await expectLedgerConsistent(service);
  });

  it('a held withdrawal that would overdraw is refused at once (409, 4002): nothing is held or filed', async () => {
    const { service, m, sell, balances } = await setup();
    await write(service, (tx) => service.services.adminActions.setMerchantLimits(tx, CLI_ACTOR, m.id, { api: 0 }));
    await write(service, (tx) => service.services.adminActions.adjustBalance(tx, CLI_ACTOR, { merchant_id: m.id, amount: '-99990.00', reason: 'leave 10 yuan' }));
    const before = await balances();
    const res = await sell('20.00');
    expect([res.status, res.json.code]).toEqual([409, 4002]);
    expect(await balances()).toEqual(before);
    expect(await rowCount(service, 'approval_requests')).toBe(0);
  });
});
