import { describe, expect, it } from 'vitest';
import type { CallbackDeliveryView } from '../../../src-shared/schemas/money';
import { cli } from '../../support/cli-harness';
import { allowPrivateCallbacks, seedMerchant, testService } from '../../support/service-harness';
import { newBuy } from '../../support/money';
import { startReceiver } from '../../support/callback-receiver';
import { tempDir } from '../../support/temp-dir';

const run = (dataDir: string, ...argv: string[]) => cli([...argv, '--data-dir', dataDir]);

describe('callback list | resend', () => {
  it('lists deliveries with their attempts and resends the current status', async () => {
    const dataDir = tempDir();
    const receiver = await startReceiver((_r, i) => (i === 0 ? { status: 500, body: 'oops' } : { status: 200, body: 'success' }));
    const service = await testService({ dataDir });
    const m = await seedMerchant(service);
    await allowPrivateCallbacks(service);
    await service.store.write((tx) => service.services.merchants.update(tx, { id: m.id, callback_url: receiver.url }));
    const buy = await newBuy(service, m);
    await service.close();

    // No service runs: `order fail` applies in-process and sends this order's callback before exiting.
    expect((await run(dataDir, 'order', 'fail', buy.order_no)).code).toBe(0);
    expect(receiver.received.map((r) => r.fields.status)).toEqual(['cancelled']);

    const listed = await run(dataDir, 'callback', 'list', buy.order_no, '--json');
    const [d] = listed.json() as unknown as CallbackDeliveryView[];
    expect(d).toMatchObject({ order_status: 'cancelled', state: 'pending', attempts: 1, url: receiver.url });
    expect(d!.attempt_log).toMatchObject([{ attempt: 1, http_status: 500, response_excerpt: 'oops', acknowledged: false }]);
    const human = await run(dataDir, 'callback', 'list', buy.order_no);
    expect(human.stdout).toContain('cancelled (transition)');
    expect(human.stdout).toContain('HTTP 500');

    const resent = await run(dataDir, 'callback', 'resend', buy.order_no, '--json');
    expect(resent.code).toBe(0);
    // Queued behind the pending one; the first is not due for 5 s yet, so nothing more was sent.
    expect(resent.json()).toMatchObject({ queued: { trigger: 'resend', order_status: 'cancelled', state: 'pending', attempts: 0 }, sent_by: 'this command' });
    expect(receiver.received).toHaveLength(1);
    expect(((await run(dataDir, 'callback', 'list', buy.order_no, '--json')).json() as unknown as unknown[]).length).toBe(2);

    const missing = await run(dataDir, 'callback', 'resend', 'B000');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('order B000 not found');
  });
});
