/**
 * Several instances, one truth (issue: team deployment, section 3): two
 * service instances with listeners of their own on ONE PostgreSQL database
 * receive the same or competing requests at the same moment. The database
 * decides; neither instance may overdraw, create twice, accept a nonce
 * twice or move an order twice.
 */
import { callerOf, createTestAccount, totpCode } from '../../../support/accounts';
import { createConsoleHandlers, dispatchConsoleCall } from '../../../../src-main/console-api/console-handlers';
import { describe, expect, it } from 'vitest';
import { createMerchantClient } from '../../../../src-shared/client/merchant-client';
import { computeSignature } from '../../../../src-shared/client/sign';
import { openService, type MerchantConsoleService } from '../../../../src-main/service';
import type { RunningListener } from '../../../../src-main/http/server';
import { expectLedgerConsistent, fund, newBuy } from '../../../support/money';
import { rowCount, seedMerchant, testListener, type SeededMerchant } from '../../../support/service-harness';
import { tempDir } from '../../../support/temp-dir';
import { freshPostgresDatabase } from '../../../support/test-engine';
import { randomBytes } from 'node:crypto';

interface Cluster {
  instances: MerchantConsoleService[];
  listeners: RunningListener[];
  merchant: SeededMerchant;
}

/** Two instances (services with listeners) on one database, sharing one master key; a seeded merchant. */
async function cluster(balance = 0): Promise<Cluster> {
  const url = await freshPostgresDatabase();
  const key = randomBytes(32);
  const instances: MerchantConsoleService[] = [];
  for (let i = 0; i < 2; i++) {
    const s = await openService({ dataDir: tempDir(), databaseUrl: url, masterKeyStore: { loadOrCreate: () => key }, instanceId: `instance-${i}` });
    instances.push(s);
  }
  const listeners = [await testListener(instances[0]!), await testListener(instances[1]!)];
  const merchant = await seedMerchant(instances[0]!, 'Shared', { balance });
  return { instances, listeners, merchant };
}

async function closeCluster(c: Cluster): Promise<void> {
  for (const s of c.instances) await s.close();
}

const clientOf = (c: Cluster, i: number) => createMerchantClient({ baseUrl: c.listeners[i]!.url, apiKey: c.merchant.apiKey, apiSecret: c.merchant.apiSecret });

describe('several instances on one PostgreSQL database', () => {
  it('concurrent sells on different instances never overdraw: exactly as many succeed as the balance covers', async () => {
    // Each sell of 100.00 needs 101.30 (fees and deposit): 10 fit in 1,013.00, the 11th does not.
    const c = await cluster(101_300);
    try {
      const sells = Array.from({ length: 24 }, (_, i) =>
        clientOf(c, i % 2).createOrder({ order_type: 2, cny_amount: '100.00', paychannel_id: c.merchant.channels.beta, paychannel_paymethod: 'bank' }),
      );
      const answers = await Promise.all(sells);
      const ok = answers.filter((a) => a.body.code === 1);
      const refused = answers.filter((a) => a.body.code !== 1);
      expect(ok).toHaveLength(10);
      expect(refused.every((a) => a.status === 409 && a.body.code === 4002)).toBe(true);
      // Both instances answered some of the successes.
      const balances = await c.instances[1]!.store.read((tx) => c.instances[1]!.services.ledger.balances(tx, c.merchant.id));
      expect(balances).toEqual({ available: 0, frozen: 101_300, deposit: 0 });
      await expectLedgerConsistent(c.instances[0]!);
    } finally {
      await closeCluster(c);
    }
  });

  it('the same Idempotency-Key sent to two instances at once creates one order, and both answer with it', async () => {
    const c = await cluster();
    try {
      const body = { order_type: 1, cny_amount: '88.00', paychannel_id: c.merchant.channels.beta, paychannel_paymethod: 'alipay' };
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => clientOf(c, i % 2).createOrder(body, { 'Idempotency-Key': 'same-key-on-both' })),
      );
      expect(answers.every((a) => a.body.code === 1)).toBe(true);
      const orderNos = new Set(answers.map((a) => (a.body.data as { order_no: string }).order_no));
      expect(orderNos.size).toBe(1);
      expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(7);
      expect(await rowCount(c.instances[0]!, 'orders')).toBe(1);
    } finally {
      await closeCluster(c);
    }
  });

  it('one nonce is accepted once across the cluster', async () => {
    const c = await cluster();
    try {
      const signed = clientOf(c, 0).signBody({ page: 1, limit: 10 });
      const post = (i: number) =>
        fetch(`${c.listeners[i]!.url}/addons/paychannel/merchant/orderQueryList`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(signed),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as { code: number } }));
      const answers = await Promise.all([post(0), post(1), post(0), post(1)]);
      expect(answers.filter((a) => a.body.code === 1)).toHaveLength(1);
      expect(answers.filter((a) => a.body.code === 2005 && a.status === 401)).toHaveLength(3);
    } finally {
      await closeCluster(c);
    }
  });

  it('one channel notification delivered to two instances moves the order once and posts its ledger transaction once', async () => {
    const c = await cluster();
    try {
      const order = await newBuy(c.instances[0]!, c.merchant, 20_000);
      const a = c.instances[0]!;
      const delivery = await a.store.write((tx) => a.services.sandbox.notificationFor(tx, order, 'pay', 'paid once'));
      // The same signed notification to both, and a second one (another nonce) with the same news.
      const second = { ...delivery.body, nonce: randomBytes(12).toString('base64url') };
      const channel = await a.store.read((tx) => a.services.channels.require(tx, order.channel_id));
      second.signature = computeSignature({ ...second, signature: undefined } as never, a.services.channels.config(channel).notify_secret!, 'hmac-sha256');
      const post = (i: number, body: object) =>
        fetch(`${c.listeners[i]!.url}/channel/notify/${delivery.channelId}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }).then(async (r) => (await r.json()) as { code: number; data: { changed: boolean } | null });
      const answers = await Promise.all([post(0, delivery.body), post(1, delivery.body), post(1, second), post(0, second)]);
      const accepted = answers.filter((x) => x.code === 1);
      // Each nonce is taken once; of the two accepted notifications exactly one moved the order.
      expect(accepted).toHaveLength(2);
      expect(accepted.filter((x) => x.data!.changed)).toHaveLength(1);
      const moved = await a.store.read((tx) => tx.all('SELECT kind FROM ledger_transactions WHERE order_id = ?', [order.id]));
      expect(moved).toEqual([{ kind: 'buy_paid' }]);
      expect(await a.store.read((tx) => tx.all('SELECT to_status FROM order_transitions WHERE order_id = ?', [order.id]))).toEqual([{ to_status: 'paid' }]);
      await expectLedgerConsistent(a);
    } finally {
      await closeCluster(c);
    }
  });

  it('sessions are shared: a console sign-in on one instance is valid on the other', async () => {
    const c = await cluster();
    try {
      const admin = await createTestAccount(c.instances[0]!, { role: 'admin' });
      const login = await fetch(`${c.listeners[0]!.url}/console/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: c.listeners[0]!.url },
        body: JSON.stringify({ login: admin.login, password: admin.password }),
      });
      expect(login.status).toBe(200);
      const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
      const port0 = new URL(c.listeners[0]!.url).port;
      const port1 = new URL(c.listeners[1]!.url).port;
      // Cookies are named per port: the browser behind one address keeps one name; here the test carries it over.
      const value = cookie.slice(cookie.indexOf('=') + 1);
      const call = await fetch(`${c.listeners[1]!.url}/console-api/getServiceInfo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: c.listeners[1]!.url, cookie: `mc_console_${port1}=${value}` },
        body: '{}',
      });
      expect(port0).not.toBe(port1);
      expect(((await call.json()) as { code: number }).code).toBe(1);
    } finally {
      await closeCluster(c);
    }
  });

  it('audit entries appended on two instances at once form one valid chain', async () => {
    const c = await cluster();
    try {
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          c.instances[i % 2]!.store.write((tx) =>
            c.instances[i % 2]!.services.adminActions.updateMerchant(tx, { kind: 'cli', login: 'cli', role: 'administrator' }, { id: c.merchant.id, name: `Shared ${i}` }),
          ),
        ),
      );
      const verdict = await c.instances[1]!.services.audit.verify(c.instances[1]!.store);
      expect(verdict).toMatchObject({ ok: true, problem: null });
      expect(verdict.entries).toBeGreaterThanOrEqual(40);
    } finally {
      await closeCluster(c);
    }
  });

  it('two approvers deciding one withdrawal on two instances at once: it is done once, its sum held and moved once', async () => {
    const c = await cluster(10_000_000);
    try {
      const [a, b] = c.instances as [MerchantConsoleService, MerchantConsoleService];
      const operator = await createTestAccount(a, { role: 'operator' });
      const owner = await createTestAccount(a, { role: 'owner' });
      const finance = await createTestAccount(a, { role: 'finance' });
      const handlers = c.instances.map((s) => createConsoleHandlers(s, { version: 'test', listenerUrl: () => null }));
      const asked = await dispatchConsoleCall(
        handlers[0]!,
        'requestWithdrawal',
        { merchant_id: c.merchant.id, order_type: 2, cny_amount: '1000.00', paychannel_id: c.merchant.channels.beta, paychannel_paymethod: 'bank' },
        callerOf(operator),
      );
      const id = (asked.data as { approval: { id: number } }).approval.id;
      const before = await a.store.read((tx) => a.services.ledger.balances(tx, c.merchant.id));
      const transactions = await rowCount(a, 'ledger_transactions');
      const decisions = await Promise.all([
        dispatchConsoleCall(handlers[0]!, 'approveRequest', { id, totp_code: totpCode(a, owner) }, callerOf(owner)),
        dispatchConsoleCall(handlers[1]!, 'approveRequest', { id, totp_code: totpCode(b, finance) }, callerOf(finance)),
      ]);
      expect(decisions.map((d) => d.code).sort()).toEqual([1, 4001]);
      expect(decisions.find((d) => d.code === 4001)!.msg).toBe(`id: approval request ${id} is approved, no longer pending`);
      expect(await rowCount(a, 'orders')).toBe(1);
      // The hold was released once and the order reserved its sum once: the balance is as it was while held.
      expect(await b.store.read((tx) => b.services.ledger.balances(tx, c.merchant.id))).toEqual(before);
      expect(await rowCount(a, 'ledger_transactions')).toBe(transactions + 2); // release, sell_freeze
      await expectLedgerConsistent(a);
    } finally {
      await closeCluster(c);
    }
  });
});

void fund;
