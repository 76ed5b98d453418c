/**
 * No answer, callback or log line of a real `serve` with trace logging ever
 * holds a merchant's api_secret, a channel's secret configuration, the
 * sandbox notification secret or the master key, through a workload that
 * touches every endpoint, every error class, a secret rotation, payments,
 * payouts and callbacks. The same secrets are not in the database file in
 * plaintext either (encrypted at rest).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMerchantClient, newNonce } from '../../../src-shared/client/merchant-client';
import { computeSignature } from '../../../src-shared/client/sign';
import { residentIdCheckChar } from '../../../src-shared/validation/rules';
import { startReceiver } from '../../support/callback-receiver';
import { cli } from '../../support/cli-harness';
import { startServeChild } from '../../support/serve-child';
import { allowPrivateCallbacks, seedMerchant, testService } from '../../support/service-harness';
import { tempDir } from '../../support/temp-dir';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const CERT = '11010519491231002';

describe('secrets never leave the service', () => {
  it('are in no response, callback or trace-level log line, and not in the database in plaintext', async () => {
    const receiver = await startReceiver(() => ({ status: 200, body: 'success' }));
    const dataDir = tempDir('mc-secrets-');
    const setup = await testService({ dataDir });
    const a = await seedMerchant(setup, 'Secret A', { balance: 100_000_000 });
    const b = await seedMerchant(setup, 'Secret B', { balance: 100_000_000, signType: 'md5' });
    const channelSecrets = {
      merchant_no: 'MNO-7f3a9c2e51',
      api_key: 'CHK-b81d4e0f6a2c9e7d',
      private_key: 'PK-3e9f0a7b5c1d8e2f4a6b',
      proxy: 'http://proxyuser:PXPASS-91c4e8@10.0.0.1:3128',
    };
    await allowPrivateCallbacks(setup);
    await setup.store.write(async (tx) => {
      for (const m of [a, b]) {
        await setup.services.merchants.update(tx, { id: m.id, callback_url: `${receiver.url}/cb/${m.id}` });
        for (const id of Object.values(m.channels)) await setup.services.channels.update(tx, { id, config: channelSecrets, payout_delay: 0 });
      }
    });
    await setup.close();

    const serve = await startServeChild(dataDir, { env: { MERCHANT_CONSOLE_LOG_LEVEL: 'trace' } });
    const answers: string[] = [JSON.stringify(serve.summary)];
    const record = async (res: Response): Promise<Response> => {
      answers.push(`${res.status} ${JSON.stringify([...res.headers])} ${await res.clone().text()}`);
      return res;
    };
    const fetchAndRecord = async (url: string, init?: RequestInit) => record(await fetch(url, init));
    const recordingFetch: typeof fetch = (input, init) => fetchAndRecord(String(input), init);
    const clientA = createMerchantClient({ baseUrl: serve.url, apiKey: a.apiKey, apiSecret: a.apiSecret, fetch: recordingFetch });
    const clientB = createMerchantClient({ baseUrl: serve.url, apiKey: b.apiKey, apiSecret: b.apiSecret, signType: 'md5', fetch: recordingFetch });

    // Every merchant endpoint, success and failure.
    for (const client of [clientA, clientB]) {
      await client.getPayChannels();
      await client.getPayChannels('alpha');
      await client.orderQueryList({ page: 1, limit: 5, status: 'pending' });
    }
    const buy = await clientA.createOrder({ order_type: 1, cny_amount: '88.00', paychannel_id: a.channels.beta, paychannel_paymethod: 'wxpay', customer_name: '王五' });
    const sell = await clientB.createOrder({ order_type: 2, cny_amount: '12.00', paychannel_id: b.channels.gamma, paychannel_paymethod: 'bank' });
    const alpha = await clientA.createOrder({
      order_type: 2,
      cny_amount: '20.00',
      paychannel_id: a.channels.alpha,
      paychannel_paymethod: 'bank',
      alpha_personal_data: {
        name: '李四',
        cert_type: '00',
        cert_no: CERT + residentIdCheckChar(CERT),
        cert_validity_type: '1',
        cert_begin_date: '20200307',
        mobile_no: '13912345678',
      },
      alpha_card_info: { card_type: '1', card_name: '李四', card_no: '6222020200112233445', prov_id: '420000', area_id: '429004' },
    });
    expect([buy.body.code, sell.body.code, alpha.body.code]).toEqual([1, 1, 1]);
    const buyOrder = buy.body.data as { order_no: string; pay_url: string };
    await clientA.orderQueryDetail(buyOrder.order_no);
    await clientB.orderQueryDetail(buyOrder.order_no); // another merchant's: 404
    await clientA.createOrder({ order_type: 1, cny_amount: '0.001', paychannel_id: a.channels.beta, paychannel_paymethod: 'wxpay' });
    await clientA.createOrder({ order_type: 1, cny_amount: '1.00', paychannel_id: b.channels.beta, paychannel_paymethod: 'wxpay' });
    await clientA.createOrder({ order_type: 1, cny_amount: '1.00', paychannel_id: a.channels.beta, paychannel_paymethod: 'bank' }, { 'Idempotency-Key': 'k-1' });
    await clientA.createOrder({ order_type: 1, cny_amount: '2.00', paychannel_id: a.channels.beta, paychannel_paymethod: 'bank' }, { 'Idempotency-Key': 'k-1' });
    const forged = createMerchantClient({ baseUrl: serve.url, apiKey: a.apiKey, apiSecret: 'sk_wrong_wrong_wrong_wrong_wrong_wrong', fetch: recordingFetch });
    await forged.orderQueryList();
    const replayBody = clientA.signBody({ page: 1 });
    for (let i = 0; i < 2; i++) {
      await fetchAndRecord(`${serve.url}/addons/paychannel/merchant/orderQueryList`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(replayBody),
      });
    }
    await fetchAndRecord(`${serve.url}/addons/paychannel/merchant/createOrder`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"api_key":' });
    await fetchAndRecord(`${serve.url}/addons/paychannel/merchant/createOrder`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });

    // Regions, checkout page, sandbox payment (a signed channel notification), a forged notification.
    await fetchAndRecord(`${serve.url}/addons/paychannel/channel/alpha/provinceList`);
    await fetchAndRecord(`${serve.url}/addons/paychannel/channel/alpha/cityList?province=${encodeURIComponent('湖北省')}`);
    await fetchAndRecord(buyOrder.pay_url);
    await fetchAndRecord(`${buyOrder.pay_url}/pay`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    await fetchAndRecord(buyOrder.pay_url);
    const forgedNotice = { order_no: buyOrder.order_no, event: 'paid', amount: 8800, reason: 'x', timestamp: Math.floor(Date.now() / 1000), nonce: newNonce() };
    await fetchAndRecord(`${serve.url}/channel/notify/${a.channels.beta}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...forgedNotice, signature: computeSignature(forgedNotice, 'not-the-channel-secret') }),
    });

    // An operator rotates A's secret while serve runs; the new one works, the old one is refused.
    const rotated = await cli(['merchant', 'rotate-secret', String(a.id), '--data-dir', dataDir, '--json']);
    const newSecret = rotated.json().api_secret as string;
    expect(newSecret).toMatch(/^sk_/);
    const rotatedClient = createMerchantClient({ baseUrl: serve.url, apiKey: a.apiKey, apiSecret: newSecret, fetch: recordingFetch });
    expect((await rotatedClient.getPayChannels()).body.code).toBe(1);
    expect((await clientA.getPayChannels()).status).toBe(401);

    // Callbacks for the payment and the payouts go out (signed with the merchants' secrets).
    const until = Date.now() + 15_000;
    while (receiver.received.length < 3 && Date.now() < until) await sleep(100);
    expect(receiver.received.length).toBeGreaterThanOrEqual(3);
    await serve.stop('SIGTERM');

    const inspect = await testService({ dataDir });
    const { channels } = inspect.services;
    const channelRows = await inspect.store.read((tx) => Promise.all([...Object.values(a.channels), ...Object.values(b.channels)].map((id) => channels.require(tx, id))));
    const notifySecrets = channelRows
      .flatMap((row) => Object.entries(channels.config(row)))
      .filter(([key]) => !Object.keys(channelSecrets).includes(key))
      .map(([, value]) => value);
    await inspect.close();
    expect(notifySecrets.length).toBeGreaterThan(0); // the sandbox's notification secret was created and used
    const masterKey = fs.readFileSync(path.join(dataDir, 'master.key'), 'utf8').trim();
    const secrets = [a.apiSecret, b.apiSecret, newSecret, ...Object.values(channelSecrets), 'PXPASS-91c4e8', ...notifySecrets, masterKey, Buffer.from(masterKey, 'base64').toString('hex')];

    const logs = serve.stdout() + '\n' + serve.stderr();
    // Trace logging really ran through the workload.
    expect(logs.match(/"msg":"incoming request"/g)?.length ?? 0).toBeGreaterThan(20);
    const callbacks = receiver.received.map((r) => `${r.path} ${JSON.stringify(r.headers)} ${r.body}`);
    const dbBytes = ['merchant-console.sqlite', 'merchant-console.sqlite-wal']
      .map((f) => path.join(dataDir, f))
      .filter((f) => fs.existsSync(f))
      .map((f) => fs.readFileSync(f).toString('latin1'))
      .join('');
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(8);
      for (const [where, text] of [['responses', answers.join('\n')], ['logs', logs], ['callbacks', callbacks.join('\n')]] as const) {
        expect(text.includes(secret), `${where} contain a secret (${secret.slice(0, 6)}…)`).toBe(false);
      }
      if (secret !== masterKey && !/^[0-9a-f]{64}$/.test(secret)) {
        expect(dbBytes.includes(Buffer.from(secret, 'utf8').toString('latin1')), `database holds ${secret.slice(0, 6)}… in plaintext`).toBe(false);
      }
    }
    // Sensitive payee data stays out of logs too (responses show it masked).
    expect(logs.includes('6222020200112233445')).toBe(false);
    expect(logs.includes(CERT)).toBe(false);
    expect(answers.join('\n').includes(CERT)).toBe(false);
  }, 90_000);
});
