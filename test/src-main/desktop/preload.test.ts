import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { CONSOLE_METHODS, ipcChannelOf } from '../../../src-shared/console-api/methods';
import { desktopConsoleBridge } from '../../../src-shared/console-api/desktop-bridge';
import { fake } from './support/fake-electron';

vi.mock('electron', async () => (await import('./support/fake-electron')).fakeElectronModule());

type Bridge = Record<string, (request?: unknown) => Promise<unknown>>;

describe('preload', () => {
  let exposed: { key: string; api: Bridge }[];

  beforeAll(async () => {
    await import('../../../src-main/desktop/preload');
    exposed = fake.contextBridge.exposeInMainWorld.mock.calls.map(([key, api]) => ({ key: key as string, api: api as Bridge }));
  });

  it('exposes one object, window.consoleApi, and nothing else', () => {
    expect(exposed).toHaveLength(1);
    expect(exposed[0]!.key).toBe('consoleApi');
  });

  it('exposes exactly the contract: one function per CONSOLE_METHODS name, no more', () => {
    const api = exposed[0]!.api;
    expect(Object.keys(api).sort()).toEqual([...CONSOLE_METHODS].sort());
    for (const method of CONSOLE_METHODS) expect(typeof api[method]).toBe('function');
    expect(Object.isFrozen(api)).toBe(true);
    // Nothing of Electron rides along.
    expect(Object.values(api)).not.toContain(fake.ipcRenderer.invoke);
    for (const fn of Object.values(api)) expect(Object.keys(fn)).toEqual([]);
  });

  it('each call is one ipcRenderer.invoke on the method channel with the single request', async () => {
    const api = exposed[0]!.api;
    for (const method of CONSOLE_METHODS) {
      fake.ipcRenderer.invoke.mockClear();
      const request = { marker: method };
      await api[method]!(request);
      expect(fake.ipcRenderer.invoke).toHaveBeenCalledTimes(1);
      expect(fake.ipcRenderer.invoke).toHaveBeenCalledWith(ipcChannelOf(method), request);
    }
    fake.ipcRenderer.invoke.mockClear();
    await (api.listMerchants as (...args: unknown[]) => Promise<unknown>)({}, 'smuggled', { second: true });
    expect(fake.ipcRenderer.invoke).toHaveBeenCalledWith('console-api:listMerchants', {});
    await api.getServiceInfo!();
    expect(fake.ipcRenderer.invoke).toHaveBeenLastCalledWith('console-api:getServiceInfo', {});
  });

  it('returns what main answers (the envelope), untouched', async () => {
    const envelope = { code: 1001, msg: 'limit: must be at most 100', data: null };
    fake.ipcRenderer.invoke.mockResolvedValueOnce(envelope);
    await expect(exposed[0]!.api.listOrders!({ merchant_id: 1, limit: 1000 })).resolves.toEqual(envelope);
  });

  it('imports nothing but electron and the method-name list (no zod, no schemas)', () => {
    const source = fs.readFileSync(path.resolve('src-main/desktop/preload.ts'), 'utf8');
    const imports = [...source.matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]);
    expect(imports).toEqual(['electron', '../../src-shared/console-api/methods']);
    const methods = fs.readFileSync(path.resolve('src-shared/console-api/methods.ts'), 'utf8');
    expect(methods).not.toMatch(/^import /m);
  });

  it('the renderer finds the bridge through desktopConsoleBridge()', () => {
    const api = exposed[0]!.api;
    expect(desktopConsoleBridge({ consoleApi: api })).toBe(api);
    expect(desktopConsoleBridge({})).toBeUndefined();
    expect(desktopConsoleBridge(globalThis)).toBeUndefined();
  });
});
