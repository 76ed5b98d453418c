/**
 * Builds the real main and preload bundles with electron-vite (building needs
 * no Electron runtime) and checks what the unit tests cannot: the preload is
 * one self-contained CommonJS file, and the ESM main bundle actually loads and
 * runs — start-up, app:// page, a console call over "IPC", quit — under Node
 * with electron replaced by a scripted stub (support/electron-stub).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openService } from '../../../src-main/service';
import { tempDir } from '../../support/temp-dir';

const projectRoot = path.resolve(import.meta.dirname, '../../..');
const stubRegister = path.join(import.meta.dirname, 'support/electron-stub/register.mjs');
let outDir: string;

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(() => {
  // Not tempDir(): that one is emptied after each test, the bundles serve the whole file.
  fs.mkdirSync(path.join(projectRoot, 'out'), { recursive: true });
  outDir = fs.mkdtempSync(path.join(projectRoot, 'out', '.bundle-test-'));
  const built = spawnSync(process.execPath, [path.join(projectRoot, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], {
    cwd: projectRoot,
    env: { ...process.env, ELECTRON_VITE_SKIP_RENDERER: '1', ELECTRON_VITE_OUT_DIR: outDir },
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`electron-vite build failed:\n${built.stdout}\n${built.stderr}`);
  return () => fs.rmSync(outDir, { recursive: true, force: true });
}, 120_000);

describe('electron-vite bundles', () => {
  it('the preload is one CommonJS file that requires only electron', () => {
    const preload = fs.readFileSync(path.join(outDir, 'preload', 'index.cjs'), 'utf8');
    const required = [...preload.matchAll(/require\(["']([^"']+)["']\)/g)].map((m) => m[1]);
    expect(required).toEqual(['electron']);
    expect(preload).not.toMatch(/^\s*(import|export) /m);
    expect(preload).toMatch(/exposeInMainWorld\(CONSOLE_BRIDGE_GLOBAL/);
    expect(preload).not.toMatch(/z\.(object|strictObject|string)\(|ZodType/);
    expect(fs.readdirSync(path.join(outDir, 'preload'))).toEqual(['index.cjs']);
  });

  it('the main bundle is ESM with npm dependencies external (they ship in node_modules)', () => {
    const main = fs.readFileSync(path.join(outDir, 'main', 'index.js'), 'utf8');
    const imports = new Set([...main.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]!));
    expect(imports).toContain('electron');
    expect(imports).toContain('better-sqlite3');
    expect(imports).toContain('fastify');
    const pkg = JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; main: string };
    for (const spec of imports) {
      if (spec.startsWith('node:') || spec === 'electron') continue;
      const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
      expect(pkg.dependencies, `${spec} is imported by the main bundle, so it must be a dependency to be packaged`).toHaveProperty(name);
    }
    expect(pkg.main).toBe('out/main/index.js');
  });

  it('runs under Node with a stubbed electron: starts, serves app://, answers IPC, refuses a foreign frame, quits cleanly', async () => {
    const appData = tempDir('mc-bundle-appdata-');
    const dataDir = path.join(appData, 'merchant-console');
    const port = await freePort();
    const seed = await openService({ dataDir });
    await seed.store.write((tx) => seed.services.settings.updateListener(tx, { port }));
    await seed.close();
    fs.mkdirSync(path.join(outDir, 'renderer'), { recursive: true });
    fs.writeFileSync(path.join(outDir, 'renderer', 'index.html'), '<!doctype html><title>stub</title>');

    const run = spawnSync(process.execPath, ['--import', stubRegister, path.join(outDir, 'main', 'index.js')], {
      cwd: projectRoot,
      env: { ...process.env, STUB_APPDATA: appData, MERCHANT_CONSOLE_DATA_DIR: '', ELECTRON_RENDERER_URL: '' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const events = run.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { event: string } & Record<string, unknown>);
    const names = events.map((e) => e.event);
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stderr).not.toMatch(/Error/);

    expect(events.find((e) => e.event === 'setPath')).toMatchObject({ name: 'userData', value: dataDir });
    const win = events.find((e) => e.event === 'BrowserWindow') as unknown as { options: { webPreferences: Record<string, unknown> } };
    expect(win.options.webPreferences).toMatchObject({
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      preload: path.join(outDir, 'preload', 'index.cjs'),
    });
    expect(events.find((e) => e.event === 'loadURL')).toMatchObject({ url: 'app://console/index.html' });
    expect(events.find((e) => e.event === 'page')).toMatchObject({ status: 200, type: 'text/html; charset=utf-8', csp: expect.stringContaining("script-src 'self'") });
    const ipc = events.filter((e) => e.event === 'ipc') as unknown as { method: string; answer: { code: number; data: Record<string, unknown> | null } }[];
    expect(ipc[0]).toMatchObject({ method: 'getServiceInfo', answer: { code: 1, data: { data_dir: dataDir, listener_url: `http://127.0.0.1:${port}`, listener_error: null } } });
    expect(ipc[1]).toMatchObject({ method: 'listMerchants', answer: { code: 2007, data: null } });
    expect(events.find((e) => e.event === 'windowOpen')).toMatchObject({ result: { action: 'deny' } });
    expect(events.find((e) => e.event === 'openExternal')).toMatchObject({ url: 'https://pay.example.com/x' });
    // Quit waited for the shutdown (will-quit deferred once), then went through.
    expect(names.indexOf('will-quit-deferred')).toBeGreaterThan(-1);
    expect(names.at(-1)).toBe('quit');
    expect(names).not.toContain('showErrorBox');
    // The service let go of its data dir: the lock can be taken again, the WAL is checkpointed away.
    expect(fs.existsSync(path.join(dataDir, 'service.json'))).toBe(false);
  });
});
