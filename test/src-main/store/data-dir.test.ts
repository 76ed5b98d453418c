import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireDataDirLock, DataDirLockedError, defaultDataDir, resolveDataDir } from '../../../src-main/store/data-dir';
import { tempDir } from '../../support/temp-dir';
import { testService } from '../../support/service-harness';

describe('data dir resolution', () => {
  it('prefers --data-dir, then MERCHANT_CONSOLE_DATA_DIR, then the OS user-data dir', () => {
    expect(resolveDataDir('/tmp/flag', { MERCHANT_CONSOLE_DATA_DIR: '/tmp/env' })).toBe('/tmp/flag');
    expect(resolveDataDir(undefined, { MERCHANT_CONSOLE_DATA_DIR: '/tmp/env' })).toBe('/tmp/env');
    expect(resolveDataDir(undefined, { XDG_CONFIG_HOME: '/tmp/xdg' })).toBe(process.platform === 'linux' ? '/tmp/xdg/merchant-console' : expect.any(String));
  });

  it('matches the folder Electron uses for userData on each OS', () => {
    expect(defaultDataDir('linux', {}, '/home/ann')).toBe('/home/ann/.config/merchant-console');
    expect(defaultDataDir('linux', { XDG_CONFIG_HOME: '/x' }, '/home/ann')).toBe('/x/merchant-console');
    expect(defaultDataDir('darwin', {}, '/Users/ann')).toBe('/Users/ann/Library/Application Support/merchant-console');
    expect(defaultDataDir('win32', { APPDATA: 'C:\\Users\\ann\\AppData\\Roaming' }, 'C:\\Users\\ann')).toBe('C:\\Users\\ann\\AppData\\Roaming\\merchant-console');
  });
});

describe('one service per data dir', () => {
  it('refuses a second lock with a message naming the holder, and allows it after release', () => {
    const dir = tempDir();
    const first = acquireDataDirLock(dir);
    first.describe({ url: 'http://127.0.0.1:8787' });
    let error: unknown;
    try {
      acquireDataDirLock(dir);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DataDirLockedError);
    expect((error as Error).message).toBe(
      `another merchant-console service (pid ${process.pid}, listening on http://127.0.0.1:8787) is already running on data dir ${dir}; stop it or use a different --data-dir`,
    );
    first.release();
    acquireDataDirLock(dir).release();
  });

  it('is freed by the operating system when the holder is killed with SIGKILL', async () => {
    const dir = tempDir();
    const script = `
      const { acquireDataDirLock } = await import(${JSON.stringify(path.resolve('src-main/store/data-dir.ts'))});
      acquireDataDirLock(${JSON.stringify(dir)});
      console.log('locked');
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => d.toString().includes('locked') && resolve());
      child.on('exit', (code) => reject(new Error(`child exited early with ${code}`)));
    });
    expect(() => acquireDataDirLock(dir)).toThrow(DataDirLockedError);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('exit', resolve));
    acquireDataDirLock(dir).release();
  });
});

describe('file modes', () => {
  // The database holds pay tokens and sealed secrets; another user of the machine must not read it.
  it.skipIf(process.platform === 'win32')('creates every file owner-only (0600), also in an existing 0755 folder (--data-dir)', async () => {
    const previous = process.umask(0o022);
    try {
      const dir = tempDir();
      fs.chmodSync(dir, 0o755);
      const lock = acquireDataDirLock(dir);
      lock.describe({ url: 'http://127.0.0.1:8787' });
      const service = await testService({ dataDir: dir });
      // A write, so that the WAL and its shared-memory index exist.
      await service.store.write((tx) => service.services.merchants.create(tx, { name: 'Mode Check', callback_url: null }));
      const files = fs.readdirSync(dir).sort();
      expect(files).toEqual(expect.arrayContaining(['master.key', 'merchant-console.sqlite', 'merchant-console.sqlite-shm', 'merchant-console.sqlite-wal', 'service.json', 'service.lock']));
      expect(Object.fromEntries(files.map((f) => [f, (fs.statSync(path.join(dir, f)).mode & 0o777).toString(8)]))).toEqual(Object.fromEntries(files.map((f) => [f, '600'])));
      await service.close();
      lock.release();
    } finally {
      process.umask(previous);
    }
  });

  it.skipIf(process.platform === 'win32')('makes the files of an older version owner-only when it opens them', async () => {
    const dir = tempDir();
    await (await testService({ dataDir: dir })).close();
    for (const f of fs.readdirSync(dir)) fs.chmodSync(path.join(dir, f), 0o644);
    const service = await testService({ dataDir: dir });
    expect((fs.statSync(path.join(dir, 'merchant-console.sqlite')).mode & 0o777).toString(8)).toBe('600');
    await service.close();
  });
});
