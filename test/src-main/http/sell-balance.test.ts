import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src-shared/errors';
import { clientFor, read, rowCount, seedMerchant, testListener, testService } from '../../support/service-harness';
import { expectLedgerConsistent, fund } from '../../support/money';

describe('sell orders against the balance over HTTP', () => {
  it('two concurrent sells that together exceed the balance: exactly one succeeds', async () => {
    const service = await testService();
    const listener = await testListener(service);
    const m = await seedMerchant(service);
    await fund(service, m.id, 15_000); // 150.00; each sell of 100.00 needs 101.30
    const client = clientFor(listener, m);
    const sell = { order_type: 2, cny_amount: '100.00', paychannel_id: m.channels.beta, paychannel_paymethod: 'bank' };

    const results = await Promise.all([client.createOrder(sell), client.createOrder(sell), client.createOrder(sell)]);
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 409);
    expect(ok).toHaveLength(1);
    expect(refused).toHaveLength(2);
    expect(ok[0]!.body).toMatchObject({ code: 1, data: { status: 'pending', merchant_actual_amount: 10_130 } });
    for (const r of refused) {
      expect(r.body.code).toBe(ErrorCode.INSUFFICIENT_BALANCE);
      expect(r.body.msg).toMatch(/insufficient balance/);
      expect(r.body.data).toBeNull();
    }
    expect(await read(service, (tx) => service.services.ledger.balances(tx, m.id))).toEqual({ available: 4_870, frozen: 10_130, deposit: 0 });
    expect(await rowCount(service, 'orders')).toBe(1);
    await expectLedgerConsistent(service);
  });

  it('a buy order reserves nothing; a sell with no balance at all is refused before any write', async () => {
    const service = await testService();
    const listener = await testListener(service);
    const m = await seedMerchant(service);
    const client = clientFor(listener, m);
    const buy = await client.createOrder({ order_type: 1, cny_amount: '10.00', paychannel_id: m.channels.gamma, paychannel_paymethod: 'wxpay' });
    expect(buy.status).toBe(200);
    const sell = await client.createOrder({ order_type: 2, cny_amount: '1.00', paychannel_id: m.channels.gamma, paychannel_paymethod: 'wxpay' });
    expect(sell.status).toBe(409);
    expect(sell.body.msg).toBe('insufficient balance: available 0.00, this sell order needs 1.02');
    expect(await rowCount(service, 'orders')).toBe(1);
    expect(await rowCount(service, 'ledger_transactions')).toBe(0);
  });
});
