import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { CONSOLE_METHODS, DESKTOP_SHELL_METHODS, desktopShellChannelOf, ipcChannelOf, TEAM_PAGE_ARGUMENT, TEAM_PAGE_SHELL_METHODS } from '../../../src-shared/console-api/methods';
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

  it('exposes window.consoleApi and window.desktopShell, and nothing else', () => {
    expect(exposed.map((e) => e.key)).toEqual(['consoleApi', 'desktopShell']);
    const shell = exposed[1]!.api;
    expect(Object.keys(shell).sort()).toEqual([...DESKTOP_SHELL_METHODS].sort());
    expect(Object.isFrozen(shell)).toBe(true);
  });

  it('a shell call is one ipcRenderer.invoke on its own channel with the single request', async () => {
    fake.ipcRenderer.invoke.mockClear();
    await (exposed[1]!.api.unlockApp as (...args: unknown[]) => Promise<unknown>)({ password: 'x' }, 'smuggled');
    expect(fake.ipcRenderer.invoke).toHaveBeenCalledWith(desktopShellChannelOf('unlockApp'), { password: 'x' });
  });

  it("a team server's page (TEAM_PAGE_ARGUMENT) gets no console bridge, only where it is and the way back", async () => {
    vi.resetModules();
    fake.contextBridge.exposeInMainWorld.mockClear();
    process.argv.push(TEAM_PAGE_ARGUMENT);
    try {
      await import('../../../src-main/desktop/preload');
    } finally {
      process.argv.splice(process.argv.indexOf(TEAM_PAGE_ARGUMENT), 1);
    }
    const team = fake.contextBridge.exposeInMainWorld.mock.calls.map(([key, api]) => ({ key: key as string, api: api as Bridge }));
    expect(team.map((e) => e.key)).toEqual(['desktopShell']);
    expect(Object.keys(team[0]!.api).sort()).toEqual([...TEAM_PAGE_SHELL_METHODS].sort());
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
    const imports = [...source.matchAll(/^import [^;]*? from '([^']+)';$/gm)].map((m) => m[1]);
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
