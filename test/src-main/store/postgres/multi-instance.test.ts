/**
 * Three `serve` processes on one PostgreSQL database under mixed load —
 * buys, payments at the checkout, sells and their payouts, lists, merchant
 * callbacks to a real receiver — while one of them is killed with SIGKILL.
 * Afterwards: every order acknowledged with code 1 is stored, the ledger
 * audit passes, no balance is negative, and every callback that fell due
 * was delivered at least once, in order per order (work the dead instance
 * had claimed is taken over once its claim runs out).
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Agent, fetch as undiciFetch } from 'undici';
import { describe, expect, it } from 'vitest';
import { createMerchantClient, type MerchantClient } from '../../../../src-shared/client/merchant-client';
import { openService } from '../../../../src-main/service';
import type { RunningChild } from '../../../../bench/lib/processes';
import { startReceiver } from '../../../support/callback-receiver';
import { expectLedgerConsistent } from '../../../support/money';
import { allowPrivateCallbacks, seedMerchant } from '../../../support/service-harness';
import { startServeChild } from '../../../support/serve-child';
import { tempDir } from '../../../support/temp-dir';
import { freshPostgresDatabase } from '../../../support/test-engine';

/** Requests in all; instance 1 is killed when half of them were sent (a count, not a time: machines differ). */
const OPERATIONS = 160;
const CLAIM_SECONDS = 3;

describe('three instances on one database', () => {
  it('lose nothing acknowledged when one is killed mid-load, and deliver every due callback in order', async () => {
    const url = await freshPostgresDatabase();
    const keyFile = path.join(tempDir(), 'team.key');
    fs.writeFileSync(keyFile, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
    const receiver = await startReceiver(() => ({ status: 200, body: 'success' }));

    // The store, prepared as an operator would: a merchant with a callback URL, fast payouts, money to sell.
    const admin = await openService({ dataDir: tempDir(), databaseUrl: url, masterKeyStore: { loadOrCreate: () => Buffer.from(fs.readFileSync(keyFile, 'utf8'), 'base64') } });
    const merchant = await seedMerchant(admin, 'Team', { balance: 50_000_000 });
    // The receiver is on this machine: an in-house receiver, allowed by the operator's setting.
    await allowPrivateCallbacks(admin);
    await admin.store.write(async (tx) => {
      await admin.services.merchants.update(tx, { id: merchant.id, callback_url: receiver.url });
      await admin.services.channels.update(tx, { id: merchant.channels.beta, payout_delay: 1, settle_delay: 0 });
    });
    await admin.close();

    const serveArgs = ['--database-url', url, '--master-key-file', keyFile];
    const env = { MERCHANT_CONSOLE_CLAIM_SECONDS: String(CLAIM_SECONDS) };
    const instances: RunningChild[] = [];
    for (let i = 0; i < 3; i++) instances.push(await startServeChild(tempDir(), { args: serveArgs, env, timeoutMs: 120_000 }));
    const alive = new Set([0, 1, 2]);
    // Idle connections are dropped well before the listeners' 5 s keep-alive timeout, as a load balancer does:
    // otherwise a request may go out on a socket the server is closing at that moment.
    const agent = new Agent({ keepAliveTimeout: 1_000 });
    const post = ((input: string, init: RequestInit) => undiciFetch(input, { ...(init as object), dispatcher: agent })) as unknown as typeof fetch;
    const clients: MerchantClient[] = instances.map((c) => createMerchantClient({ baseUrl: c.url, apiKey: merchant.apiKey, apiSecret: merchant.apiSecret, fetch: post }));

    const acknowledged: string[] = [];
    const payable: { payUrl: string }[] = [];
    let refusedAtDeadInstance = 0;
    let turn = 0;
    let killed: Promise<unknown> | undefined;
    async function worker(): Promise<void> {
      while (turn < OPERATIONS) {
        if (turn >= OPERATIONS / 2 && !killed) {
          alive.delete(1);
          killed = instances[1]!.stop('SIGKILL');
        }
        const live = [...alive];
        const i = live[turn++ % live.length]!;
        const op = turn % 5;
        try {
          if (op === 0 || op === 1) {
            const r = await clients[i]!.createOrder({ order_type: 1, cny_amount: '120.00', paychannel_id: merchant.channels.beta, paychannel_paymethod: 'alipay' });
            if (r.body.code === 1) {
              const data = r.body.data as { order_no: string; pay_url: string };
              acknowledged.push(data.order_no);
              payable.push({ payUrl: data.pay_url });
            }
          } else if (op === 2 && payable.length > 0) {
            // The payer pays at the checkout page of whichever instance the balancer picks.
            const { payUrl } = payable.shift()!;
            const token = new URL(payUrl).pathname.split('/').pop()!;
            await post(`${instances[i]!.url}/pay/${token}/pay`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '', redirect: 'manual' });
          } else if (op === 3) {
            const r = await clients[i]!.createOrder({ order_type: 2, cny_amount: '30.00', paychannel_id: merchant.channels.beta, paychannel_paymethod: 'bank' });
            if (r.body.code === 1) acknowledged.push((r.body.data as { order_no: string }).order_no);
          } else {
            const r = await clients[i]!.orderQueryList({ page: 1, limit: 20 });
            expect(r.body.code).toBe(1);
          }
        } catch (err) {
          // Only requests to the instance that was killed may fail (connection reset); they were never acknowledged.
          if (alive.has(i)) throw err;
          refusedAtDeadInstance++;
        }
      }
    }
    await Promise.all(Array.from({ length: 8 }, () => worker()));
    await killed;
    expect(acknowledged.length).toBeGreaterThan(OPERATIONS / 5);

    // Let the survivors finish: payouts, settlements and callbacks, including what the dead instance had claimed.
    const check = await openService({ dataDir: tempDir(), databaseUrl: url, masterKeyStore: { loadOrCreate: () => Buffer.from(fs.readFileSync(keyFile, 'utf8'), 'base64') } });
    try {
      const settled = async () =>
        check.store.read(async (tx) => {
          const jobs = (await tx.get<{ n: number }>("SELECT count(*) AS n FROM order_jobs"))!.n;
          const pending = (await tx.get<{ n: number }>("SELECT count(*) AS n FROM callback_deliveries WHERE state = 'pending'"))!.n;
          return jobs === 0 && pending === 0;
        });
      const until = Date.now() + 60_000;
      while (!(await settled())) {
        if (Date.now() > until) throw new Error('background work did not finish within 60 s');
        await new Promise((r) => setTimeout(r, 250));
      }

      // Every acknowledged order is there.
      const stored = new Set((await check.store.read((tx) => tx.all<{ order_no: string }>('SELECT order_no FROM orders'))).map((r) => r.order_no));
      expect(acknowledged.filter((no) => !stored.has(no))).toEqual([]);
      await expectLedgerConsistent(check);

      // Every delivery was delivered at least once, and an order's deliveries arrived in their order.
      const deliveries = await check.store.read((tx) => tx.all<{ id: number; order_id: number; state: string }>('SELECT id, order_id, state FROM callback_deliveries ORDER BY id'));
      expect(deliveries.length).toBeGreaterThan(0);
      expect(deliveries.filter((d) => d.state !== 'delivered')).toEqual([]);
      const firstArrival = new Map<number, number>();
      receiver.received.forEach((r, index) => {
        const id = Number(r.headers['x-callback-id']);
        if (!firstArrival.has(id)) firstArrival.set(id, index);
      });
      const byOrder = new Map<number, number[]>();
      for (const d of deliveries) {
        expect(firstArrival.has(d.id), `delivery ${d.id} never reached the receiver`).toBe(true);
        byOrder.set(d.order_id, [...(byOrder.get(d.order_id) ?? []), d.id]);
      }
      for (const ids of byOrder.values()) {
        const arrivals = ids.map((id) => firstArrival.get(id)!);
        expect(arrivals).toEqual([...arrivals].sort((a, b) => a - b));
      }
    } finally {
      await check.close();
      for (const i of alive) await instances[i]!.stop('SIGTERM');
      await agent.close();
    }
    void refusedAtDeadInstance;
  }, 180_000);
});
