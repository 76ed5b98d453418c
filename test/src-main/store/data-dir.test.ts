import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireDataDirLock, DataDirLockedError, defaultDataDir, resolveDataDir } from '../../../src-main/store/data-dir';
import { tempDir } from '../../support/temp-dir';

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
