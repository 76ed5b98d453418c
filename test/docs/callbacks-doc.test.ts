/**
 * docs/callbacks.md's verification snippet is code merchants copy: run it,
 * as written, against callbacks the service really sent.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { allowPrivateCallbacks, manualClock, seedMerchant, testService } from '../support/service-harness';
import { newBuy } from '../support/money';
import { startReceiver } from '../support/callback-receiver';
import { tempDir } from '../support/temp-dir';

type Verify = (fields: Record<string, string>, secret: string, signType?: string) => boolean;

async function loadSnippet(): Promise<{ verifyCallback: Verify; callbackServer: unknown }> {
  const doc = fs.readFileSync('docs/callbacks.md', 'utf8');
  const section = doc.slice(doc.indexOf('## Verifying a callback (Node)'));
  const code = /```js\n([\s\S]*?)```/.exec(section)![1]!;
  const file = path.join(tempDir(), 'verify-callback.mjs');
  fs.writeFileSync(file, code);
  return (await import(pathToFileURL(file).href)) as { verifyCallback: Verify; callbackServer: unknown };
}

describe('docs/callbacks.md', () => {
  it.each(['hmac-sha256', 'md5'] as const)('the verification snippet accepts real %s callbacks and refuses tampered ones', async (signType) => {
    const { verifyCallback } = await loadSnippet();
    const service = await testService({ clock: manualClock(1_800_000_000) });
    const receiver = await startReceiver(() => ({ status: 200, body: 'success' }));
    const m = await seedMerchant(service, '回调商户', { signType });
    await allowPrivateCallbacks(service);
    await service.store.write((tx) => service.services.merchants.update(tx, { id: m.id, callback_url: receiver.url }));
    const buy = await newBuy(service, m);
    await service.store.write((tx) => service.services.sandbox.simulate(tx, buy.order_no, 'pay'));
    await service.work.runDue();
    expect(receiver.received).toHaveLength(2);
    for (const r of receiver.received) {
      expect(verifyCallback(r.fields, m.apiSecret, signType)).toBe(true);
      expect(verifyCallback({ ...r.fields, status: 'completed', merchant_actual_amount: '1' }, m.apiSecret, signType)).toBe(false);
      expect(verifyCallback(r.fields, 'sk_wrong', signType)).toBe(false);
    }
  });

  it('documents the fields the service sends and the retry schedule it uses', async () => {
    const doc = fs.readFileSync('docs/callbacks.md', 'utf8');
    const documented = [...doc.matchAll(/^\| `([a-z_]+)` \| `[^`]*` \|/gm)].map((m) => m[1]);
    const { callbackPayload, CALLBACK_RETRY_DELAYS } = await import('../../src-main/services/callback-service');
    const sample = callbackPayload({ merchant_id: 1, order_no: 'B1', order_type: 1, status: 'paid', cny_amount: 1, merchant_actual_amount: 1, service_amount: 0, createtime: 1, updatetime: 1 } as never);
    expect(documented).toEqual([...Object.keys(sample), 'timestamp', 'nonce', 'signature']);
    expect(doc).toContain('5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h');
    expect(CALLBACK_RETRY_DELAYS).toEqual([5, 30, 120, 600, 1800, 3600, 10_800, 21_600]);
  });
});
