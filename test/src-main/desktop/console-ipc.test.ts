import type { IpcMain, IpcMainInvokeEvent } from 'electron';
import { desktopCallerOf } from '../../support/accounts';
import { describe, expect, it } from 'vitest';
import { createConsoleHandlers, type ConsoleHandlers } from '../../../src-main/console-api/console-handlers';
import { APP_ORIGIN } from '../../../src-main/desktop/content-security';
import { FOREIGN_SENDER_MESSAGE, isTrustedSender, registerConsoleIpc } from '../../../src-main/desktop/console-ipc';
import { CONSOLE_METHODS, ipcChannelOf } from '../../../src-shared/console-api/methods';
import { seedMerchant, testService } from '../../support/service-harness';

type Handler = (event: unknown, ...args: unknown[]) => Promise<unknown>;

function fakeIpcMain() {
  const handlers = new Map<string, Handler>();
  return {
    handlers,
    handle: (channel: string, listener: Handler) => {
      if (handlers.has(channel)) throw new Error(`second handler for ${channel}`);
      handlers.set(channel, listener);
    },
    removeHandler: (channel: string) => handlers.delete(channel),
  };
}

interface Frame {
  url: string;
  parent: Frame | null;
}
const consoleFrame: Frame = { url: 'app://console/index.html#/orders', parent: null };
const eventFrom = (frame: Frame | null) => ({ senderFrame: frame }) as unknown as IpcMainInvokeEvent;

/** A real service on a temp data dir behind the IPC wrapper, with a spy on what reaches the handlers. */
async function setup() {
  const service = await testService();
  const merchant = await seedMerchant(service);
  const real = createConsoleHandlers(service, { version: '0.1.0-test', listenerUrl: () => null });
  const reached: string[] = [];
  const handlers = Object.fromEntries(
    Object.entries(real).map(([name, fn]) => [
      name,
      (req: unknown, caller: unknown) => {
        reached.push(name);
        return (fn as (r: unknown, c: unknown) => unknown)(req, caller);
      },
    ]),
  ) as unknown as ConsoleHandlers;
  const ipc = fakeIpcMain();
  const warnings: string[] = [];
  const owner = await desktopCallerOf(service);
  const unregister = registerConsoleIpc(ipc as unknown as IpcMain, handlers, {
    trustedOrigins: [APP_ORIGIN],
    caller: () => owner,
    log: { warn: (l) => warnings.push(l), error: () => {} },
  });
  const call = (method: string, event: IpcMainInvokeEvent, ...args: unknown[]) => {
    const handler = ipc.handlers.get(ipcChannelOf(method as (typeof CONSOLE_METHODS)[number]));
    if (!handler) throw new Error(`no handler for ${method}`);
    return handler(event, ...args) as Promise<{ code: number; msg: string; data: unknown }>;
  };
  return { service, merchant, ipc, reached, warnings, unregister, call };
}

describe('console IPC wrapper', () => {
  it('registers exactly one handler per contract method, on its namespaced channel, and removes them', async () => {
    const { ipc, unregister } = await setup();
    expect([...ipc.handlers.keys()].sort()).toEqual(CONSOLE_METHODS.map((m) => `console-api:${m}`).sort());
    unregister();
    expect(ipc.handlers.size).toBe(0);
  });

  it('passes a valid call from the console window to the service and answers with the envelope', async () => {
    const { merchant, call, reached } = await setup();
    const res = await call('listPayChannels', eventFrom(consoleFrame), { merchant_id: merchant.id, category: 'alpha' });
    expect(res.code).toBe(1);
    expect(res.data).toMatchObject({ total: 1, list: [{ id: merchant.channels.alpha, category: 'alpha' }] });
    expect(reached).toEqual(['listPayChannels']);

    const merchants = await call('listMerchants', eventFrom(consoleFrame), {});
    expect(merchants).toMatchObject({ code: 1, data: [{ id: merchant.id, name: 'Test Merchant' }] });
  });

  it('rejects a foreign sender before any service runs', async () => {
    const { merchant, call, reached, warnings } = await setup();
    const foreign: (Frame | null)[] = [
      { url: 'https://evil.example/', parent: null },
      { url: 'app://evil/index.html', parent: null },
      { url: 'file:///home/u/Downloads/x.html', parent: null },
      { url: 'http://localhost:5173/', parent: null },
      // A console-origin iframe inside some page is still not the console window.
      { url: 'app://console/index.html', parent: { url: 'https://evil.example/', parent: null } },
      null,
    ];
    for (const frame of foreign) {
      const res = await call('listOrders', eventFrom(frame), { merchant_id: merchant.id });
      expect(res, frame?.url ?? 'null frame').toEqual({ code: 2007, msg: FOREIGN_SENDER_MESSAGE, data: null });
    }
    expect(reached).toEqual([]);
    expect(warnings).toHaveLength(foreign.length);
  });

  it('rejects an invalid payload with the field named, before any service runs', async () => {
    const { merchant, call, reached } = await setup();
    const cases: [string, unknown[], RegExp][] = [
      ['listOrders', [{ merchant_id: merchant.id, limit: 1000 }], /^limit: /],
      ['listOrders', [{ merchant_id: 'one' }], /^merchant_id: /],
      ['listOrders', [{ merchant_id: merchant.id, drop: 'tables' }], /drop/],
      ['listPayChannels', [{ merchant_id: merchant.id, category: 'delta' }], /^category: /],
      ['listMerchants', ['not an object'], /request/],
      ['listMerchants', [{}, { extra: true }], /^request: a console call takes one request object/],
    ];
    for (const [method, args, msg] of cases) {
      const res = await call(method, eventFrom(consoleFrame), ...args);
      expect(res.code, JSON.stringify(args)).toBe(1001);
      expect(res.msg).toMatch(msg);
      expect(res.data).toBeNull();
    }
    expect(reached).toEqual([]);
  });

  it('service errors cross as {code, msg}; internal errors never leak details', async () => {
    const { service, call } = await setup();
    const missing = await call('listOrders', eventFrom(consoleFrame), { merchant_id: 9999 });
    expect(missing.code).toBe(3001);
    expect(missing.data).toBeNull();

    await service.close();
    const broken = await call('listMerchants', eventFrom(consoleFrame), {});
    expect(broken).toEqual({ code: 5000, msg: 'internal error', data: null });
  });

  it('isTrustedSender trusts the dev server only when it is configured', () => {
    const dev = { url: 'http://localhost:5173/#/orders', parent: null };
    expect(isTrustedSender(eventFrom(dev), [APP_ORIGIN])).toBe(false);
    expect(isTrustedSender(eventFrom(dev), [APP_ORIGIN, 'http://localhost:5173'])).toBe(true);
    expect(isTrustedSender(eventFrom(consoleFrame), [APP_ORIGIN])).toBe(true);
  });
});
