import { describe, expect, it } from 'vitest';
import { createConsoleHandlers, dispatchConsoleCall } from '../../../src-main/console-api/console-handlers';
import { consoleApiContract } from '../../../src-shared/console-api/contract';
import { CONSOLE_METHODS } from '../../../src-shared/console-api/methods';
import { seedMerchant, testService } from '../../support/service-harness';

describe('console API dispatch', () => {
  it('the method list and the contract name the same calls', () => {
    expect(Object.keys(consoleApiContract).sort()).toEqual([...CONSOLE_METHODS].sort());
  });

  it('validates the request and answers with the envelope', async () => {
    const service = await testService();
    const m = await seedMerchant(service);
    const handlers = createConsoleHandlers(service, { version: '0.0.0-test', listenerUrl: () => null });

    const ok = await dispatchConsoleCall(handlers, 'listPayChannels', { merchant_id: m.id, category: 'beta' });
    expect(ok.code).toBe(1);
    expect((ok.data as { total: number }).total).toBe(1);

    const bad = await dispatchConsoleCall(handlers, 'listOrders', { merchant_id: m.id, limit: 1000 });
    expect(bad).toEqual({ code: 1001, msg: 'limit: must be at most 100', data: null });

    const unknownMerchant = await dispatchConsoleCall(handlers, 'listOrders', { merchant_id: 999 });
    expect(unknownMerchant.code).toBe(3001);

    const noSuchMethod = await dispatchConsoleCall(handlers, 'dropTables', {});
    expect(noSuchMethod.code).toBe(3001);
  });

  it('never returns internal error details', async () => {
    const service = await testService();
    const handlers = createConsoleHandlers(service, { version: '0.0.0-test', listenerUrl: () => null });
    const logged: unknown[] = [];
    handlers.listMerchants = () => {
      throw new Error('SQLITE_CORRUPT: secret internals');
    };
    const res = await dispatchConsoleCall(handlers, 'listMerchants', {}, { error: (d) => logged.push(d) });
    expect(res).toEqual({ code: 5000, msg: 'internal error', data: null });
    expect(logged).toHaveLength(1);
  });
});
