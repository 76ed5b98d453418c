/**
 * A merchant sees only its own orders and its own linked channels, through
 * every merchant endpoint and filter; another merchant's order or channel
 * answers exactly like one that does not exist; idempotency keys and
 * callbacks never cross merchants.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ORDER_STATUSES } from '../../../src-shared/constants';
import { ErrorCode } from '../../../src-shared/errors';
import type { OrderListView, PayChannelListView } from '../../../src-shared/schemas/merchant-api';
import { startReceiver } from '../../support/callback-receiver';
import { allowPrivateCallbacks, clientFor, read, seedMerchant, testListener, testService, write } from '../../support/service-harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('merchant isolation', () => {
  it('lists, details, channels, orders on channels, idempotency keys and callbacks stay with their merchant', async () => {
    const receiver = await startReceiver(() => ({ status: 200, body: 'success' }));
    const service = await testService();
    const a = await seedMerchant(service, 'Iso A', { balance: 50_000_000 });
    const b = await seedMerchant(service, 'Iso B', { balance: 50_000_000 });
    const { channels, merchants } = service.services;
    // One channel linked to both (with B's own fee override), the rest private.
    await allowPrivateCallbacks(service);
    const shared = await write(service, async (tx) => {
      const c = await channels.create(tx, { category: 'gamma', name: 'Shared', pay_methods: ['alipay', 'bank'], max_amount: 5_000_000 });
      await channels.link(tx, { merchant_id: a.id, channel_id: c.id });
      await channels.link(tx, { merchant_id: b.id, channel_id: c.id, service_rate: '0.01' });
      await merchants.update(tx, { id: a.id, callback_url: `${receiver.url}/a` });
      await merchants.update(tx, { id: b.id, callback_url: `${receiver.url}/b` });
      return c;
    });
    const listener = await testListener(service);
    const clientA = clientFor(listener, a);
    const clientB = clientFor(listener, b);

    const own = { a: new Set<string>(), b: new Set<string>() };
    for (let i = 0; i < 12; i++) {
      for (const [key, m, client] of [['a', a, clientA], ['b', b, clientB]] as const) {
        const channel = i % 3 === 0 ? shared.id : m.channels.beta;
        const res = await client.createOrder(
          i % 2 ? { order_type: 2, cny_amount: `${10 + i}.00`, paychannel_id: channel, paychannel_paymethod: 'bank' } : { order_type: 1, cny_amount: `${20 + i}.50`, paychannel_id: channel, paychannel_paymethod: 'alipay' },
        );
        expect(res.body.code, res.body.msg).toBe(1);
        own[key].add(res.body.data!.order_no);
      }
    }

    // Lists under any filter hold only the caller's orders, and count only them.
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            page: fc.integer({ min: 1, max: 4 }),
            limit: fc.integer({ min: 1, max: 30 }),
            status: fc.constantFrom(...ORDER_STATUSES),
            order_type: fc.constantFrom(1, 2),
            start_time: fc.integer({ min: 0, max: 2_000_000_000 }),
          },
          { requiredKeys: [] },
        ),
        fc.boolean(),
        async (filter, asA) => {
          const [client, mine, m] = asA ? [clientA, own.a, a] : [clientB, own.b, b];
          const res = await client.orderQueryList(filter);
          expect(res.body.code).toBe(1);
          const data = res.body.data as OrderListView;
          for (const o of data.list) expect(mine.has(o.order_no), o.order_no).toBe(true);
          const where = ['merchant_id = ?'];
          const args: (string | number)[] = [m.id];
          for (const [column, value, op] of [
            ['status', filter.status, '='],
            ['order_type', filter.order_type, '='],
            ['createtime', filter.start_time, '>='],
          ] as const) {
            if (value === undefined) continue;
            where.push(`${column} ${op} ?`);
            args.push(value);
          }
          const expected = await read(service, (tx) => tx.get<{ n: number }>(`SELECT count(*) AS n FROM orders WHERE ${where.join(' AND ')}`, args));
          expect(data.total).toBe(expected!.n);
        },
      ),
      { numRuns: 40 },
    );

    // Another merchant's order answers exactly like a missing one.
    const missing = 'B2099010100000000000000';
    const missingAnswer = await clientA.orderQueryDetail(missing);
    for (const foreign of own.b) {
      const res = await clientA.orderQueryDetail(foreign);
      expect(res.status).toBe(missingAnswer.status);
      expect({ ...res.body, msg: res.body.msg.replace(foreign, missing) }).toEqual(missingAnswer.body);
    }
    for (const mine of own.a) expect((await clientA.orderQueryDetail(mine)).body.code).toBe(1);

    // Channels: each merchant lists its own links only; the shared one with nothing of the other's settings.
    const channelsOf = async (client: typeof clientA, category?: string) => ((await client.getPayChannels(category)).body.data as PayChannelListView).list.map((c) => c.id).sort();
    expect(await channelsOf(clientA)).toEqual([...Object.values(a.channels), shared.id].sort());
    expect(await channelsOf(clientB)).toEqual([...Object.values(b.channels), shared.id].sort());
    expect(await channelsOf(clientA, 'gamma')).toEqual([a.channels.gamma, shared.id].sort());
    // An order on another merchant's channel: exactly as on a channel that does not exist.
    const onForeign = await clientA.createOrder({ order_type: 1, cny_amount: '10.00', paychannel_id: b.channels.beta, paychannel_paymethod: 'alipay' });
    const onMissing = await clientA.createOrder({ order_type: 1, cny_amount: '10.00', paychannel_id: 999_999, paychannel_paymethod: 'alipay' });
    expect(onForeign.status).toBe(400);
    expect(onForeign.body.code).toBe(ErrorCode.VALIDATION);
    expect(onForeign.body.msg.replace(String(b.channels.beta), 'N')).toBe(onMissing.body.msg.replace('999999', 'N'));

    // The same Idempotency-Key from two merchants: two orders, each replayed only to its owner.
    const params = { order_type: 1, cny_amount: '33.00', paychannel_id: shared.id, paychannel_paymethod: 'alipay' };
    const firstA = await clientA.createOrder(params, { 'Idempotency-Key': 'same-key' });
    const firstB = await clientB.createOrder(params, { 'Idempotency-Key': 'same-key' });
    expect(firstA.body.code).toBe(1);
    expect(firstB.body.code).toBe(1);
    expect(firstB.body.data!.order_no).not.toBe(firstA.body.data!.order_no);
    expect((await clientA.createOrder(params, { 'Idempotency-Key': 'same-key' })).body.data!.order_no).toBe(firstA.body.data!.order_no);
    expect((await clientB.createOrder(params, { 'Idempotency-Key': 'same-key' })).body.data!.order_no).toBe(firstB.body.data!.order_no);
    own.a.add(firstA.body.data!.order_no);
    own.b.add(firstB.body.data!.order_no);

    // Callbacks of each merchant's orders go to that merchant only.
    const until = Date.now() + 15_000;
    const undelivered = async () => (await read(service, (tx) => tx.get<{ n: number }>("SELECT count(*) AS n FROM callback_deliveries WHERE state <> 'delivered'")))!.n;
    // The in-process service has no timers: run its due work (payouts start, callbacks go out) by hand.
    do {
      await service.work.runDue();
      await sleep(50);
    } while (((await undelivered()) > 0 || receiver.received.length === 0) && Date.now() < until);
    expect(receiver.received.length).toBeGreaterThan(0);
    for (const r of receiver.received) {
      const toA = r.path.endsWith('/a');
      expect(toA || r.path.endsWith('/b'), r.path).toBe(true);
      const owner = toA ? own.a : own.b;
      expect(owner.has(r.fields.order_no!), `${r.fields.order_no} sent to ${r.path}`).toBe(true);
      expect(r.fields.merchant_id).toBe(String(toA ? a.id : b.id));
    }
  }, 60_000);
});
