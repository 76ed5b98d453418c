import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSecretBox, fileMasterKeyStore, MasterKeySealedError } from '../../../src-main/crypto/secret-box';
import { openDesktopMasterKey, SealedKeyUnavailableError, type SafeStorageApi } from '../../../src-main/desktop/safe-storage-key-store';
import { openService } from '../../../src-main/service';
import { tempDir } from '../../support/temp-dir';
import { fake, resetFakeElectron } from './support/fake-electron';

const PLAIN = 'master.key';
const SEALED = 'master.key.safe';
const exists = (dir: string, f: string) => fs.existsSync(path.join(dir, f));
const mode = (dir: string, f: string) => fs.statSync(path.join(dir, f)).mode & 0o777;

/**
 * What reaches the disk, in order: each fsync (named by the path its fd was
 * opened on), rename and removal. A key file that is only in the page cache
 * when its other copy is deleted is lost with the power.
 */
function recordDiskOps() {
  const ops: string[] = [];
  const opened = new Map<number, string>();
  const name = (p: fs.PathLike) => path.basename(String(p));
  const realOpen = fs.openSync;
  vi.spyOn(fs, 'openSync').mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
    const fd = (realOpen as (...a: unknown[]) => number)(p, ...rest);
    opened.set(fd, name(p));
    return fd;
  }) as typeof fs.openSync);
  const realFsync = fs.fsyncSync;
  vi.spyOn(fs, 'fsyncSync').mockImplementation((fd: number) => {
    ops.push(`fsync ${opened.get(fd) ?? '?'}`);
    realFsync(fd);
  });
  const realRename = fs.renameSync;
  vi.spyOn(fs, 'renameSync').mockImplementation((from: fs.PathLike, to: fs.PathLike) => {
    ops.push(`rename ${name(to)}`);
    realRename(from, to);
  });
  const realRm = fs.rmSync;
  vi.spyOn(fs, 'rmSync').mockImplementation((p: fs.PathLike, options?: fs.RmOptions) => {
    ops.push(`rm ${name(p)}`);
    realRm(p, options);
  });
  return ops;
}

describe('desktop master key sealed with safeStorage', () => {
  let safeStorage: SafeStorageApi & typeof fake.safeStorage;
  beforeEach(() => {
    resetFakeElectron();
    safeStorage = fake.safeStorage as SafeStorageApi & typeof fake.safeStorage;
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('a new data dir gets a new key, sealed (0600), no plain file', async () => {
    const dir = tempDir();
    const opened = await openDesktopMasterKey({ dataDir: dir, safeStorage, platform: 'linux' });
    expect(opened.protection).toBe('os-keychain');
    expect(opened.note).toMatch(/new master key sealed/);
    expect(exists(dir, PLAIN)).toBe(false);
    expect(mode(dir, SEALED)).toBe(0o600);
    const key = opened.store.loadOrCreate();
    expect(key).toHaveLength(32);
    // The file on disk is the keychain's ciphertext, not the key.
    expect(fs.readFileSync(path.join(dir, SEALED), 'utf8')).not.toContain(key.toString('base64'));

    const again = await openDesktopMasterKey({ dataDir: dir, safeStorage, platform: 'linux' });
    expect(again.store.loadOrCreate().equals(key)).toBe(true);
    expect(again.note).toBe('master key unsealed from the OS keychain');
  });

  it('migrates an existing plain master.key: same key, plain file gone, secrets still open', async () => {
    const dir = tempDir();
    const plainKey = fileMasterKeyStore(dir).loadOrCreate();
    const sealedSecret = createSecretBox(plainKey).seal('sk_live_merchant_secret');

    const opened = await openDesktopMasterKey({ dataDir: dir, safeStorage, platform: 'darwin' });
    expect(opened.protection).toBe('os-keychain');
    expect(opened.note).toMatch(/moved from master\.key into the OS keychain/);
    expect(exists(dir, PLAIN)).toBe(false);
    expect(exists(dir, SEALED)).toBe(true);
    expect(createSecretBox(opened.store.loadOrCreate()).open(sealedSecret)).toBe('sk_live_merchant_secret');
  });

  it('a real service keeps reading its secrets across the migration', async () => {
    const dir = tempDir();
    const before = await openService({ dataDir: dir });
    const created = await before.store.write((tx) => before.services.merchants.create(tx, { name: 'M', sign_type: 'hmac-sha256', callback_url: null }));
    await before.close();

    const { store } = await openDesktopMasterKey({ dataDir: dir, safeStorage, platform: 'win32' });
    const after = await openService({ dataDir: dir, masterKeyStore: store });
    try {
      const row = await after.store.read((tx) => after.services.merchants.require(tx, created.id));
      expect(row.api_secret_enc.startsWith('v1:')).toBe(true);
      expect(after.services.merchants.secretOf(row)).toBe(created.api_secret);
    } finally {
      await after.close();
    }
  });

  it('without a usable keychain keeps the plain 0600 file, like serve, and says why', async () => {
    const dir = tempDir();
    safeStorage.available = false;
    const unavailable = await openDesktopMasterKey({ dataDir: dir, safeStorage, platform: 'linux' });
    expect(unavailable.protection).toBe('file');
    expect(unavailable.note).toMatch(/OS encryption is not available/);
    expect(mode(dir, PLAIN)).toBe(0o600);
    expect(exists(dir, SEALED)).toBe(false);

    // Linux without a secret service: safeStorage "works" with a hard-coded password; not trusted.
    const dir2 = tempDir();
    safeStorage.available = true;
    safeStorage.backend = 'basic_text';
    const basic = await openDesktopMasterKey({ dataDir: dir2, safeStorage, platform: 'linux' });
    expect(basic.protection).toBe('file');
    expect(basic.note).toMatch(/basic_text/);
    expect(exists(dir2, SEALED)).toBe(false);
    // basic_text is a Linux notion; elsewhere the backend is not consulted.
    const dir3 = tempDir();
    expect((await openDesktopMasterKey({ dataDir: dir3, safeStorage, platform: 'darwin' })).protection).toBe('os-keychain');
  });

  it('makes a written key file durable (file and folder fsynced) before deleting the other copy or handing the key out', async () => {
    const dir = tempDir();
    const dirName = path.basename(dir);
    fileMasterKeyStore(dir).loadOrCreate();

    // Migration: the sealed copy reaches the disk before the plain one goes.
    let ops = recordDiskOps();
    await openDesktopMasterKey({ dataDir: dir, safeStorage, platform: 'linux' });
    const tmpSealed = ops.findIndex((op) => /^fsync master\.key\.safe\..*\.tmp$/.test(op));
    const renamed = ops.indexOf(`rename ${SEALED}`);
    const dirSynced = ops.indexOf(`fsync ${dirName}`, renamed);
    const plainGone = ops.indexOf(`rm ${PLAIN}`);
    expect(tmpSealed, ops.join(', ')).toBeGreaterThanOrEqual(0);
    expect(tmpSealed).toBeLessThan(renamed);
    expect(renamed).toBeLessThan(dirSynced);
    expect(dirSynced).toBeLessThan(plainGone);
    vi.restoreAllMocks();

    // MERCHANT_CONSOLE_KEYCHAIN=off: the plain copy reaches the disk before the sealed one goes.
    ops = recordDiskOps();
    await openDesktopMasterKey({ dataDir: dir, safeStorage, platform: 'linux', keychain: 'off' });
    const plainWritten = ops.indexOf(`rename ${PLAIN}`);
    expect(ops.slice(0, plainWritten).some((op) => /^fsync master\.key\..*\.tmp$/.test(op)), ops.join(', ')).toBe(true);
    expect(ops.indexOf(`fsync ${dirName}`, plainWritten)).toBeLessThan(ops.indexOf(`rm ${SEALED}`));
    vi.restoreAllMocks();

    // A new key: sealed and durable before the service can seal secrets with it.
    const fresh = tempDir();
    ops = recordDiskOps();
    await openDesktopMasterKey({ dataDir: fresh, safeStorage, platform: 'linux' });
    expect(ops.indexOf(`fsync ${path.basename(fresh)}`, ops.indexOf(`rename ${SEALED}`)), ops.join(', ')).toBeGreaterThan(0);
  });

  it('never replaces a sealed key the keychain cannot open', async () => {
    const dir = tempDir();
    await openDesktopMasterKey({ dataDir: dir, safeStorage, platform: 'linux' });
    const sealedBytes = fs.readFileSync(path.join(dir, SEALED));

    safeStorage.available = false;
    await expect(openDesktopMasterKey({ dataDir: dir, safeStorage, platform: 'linux' })).rejects.toThrow(SealedKeyUnavailableError);
    await expect(openDesktopMasterKey({ dataDir: dir, safeStorage, platform: 'linux' })).rejects.toThrow(/Unlock or start the keychain/);
    safeStorage.available = true;
    fs.writeFileSync(path.join(dir, SEALED), 'garbage from another machine');
    // The keychain works: telling the user to unlock it would send them the wrong way.
    const damaged = openDesktopMasterKey({ dataDir: dir, safeStorage, platform: 'linux' });
    await expect(damaged).rejects.toThrow(/cannot open it now .*the file is damaged or was sealed by another user or machine\. Restore it/);
    await expect(damaged).rejects.not.toThrow(/Unlock/);
    fs.writeFileSync(path.join(dir, SEALED), sealedBytes);
    expect(exists(dir, PLAIN)).toBe(false);
  });

  it('re-seals when the keychain rotated its key', async () => {
    const dir = tempDir();
    const first = await openDesktopMasterKey({ dataDir: dir, safeStorage, platform: 'linux' });
    fs.utimesSync(path.join(dir, SEALED), new Date(0), new Date(0));
    safeStorage.reencrypt = true;
    const again = await openDesktopMasterKey({ dataDir: dir, safeStorage, platform: 'linux' });
    expect(again.store.loadOrCreate().equals(first.store.loadOrCreate())).toBe(true);
    // Rewritten (the mtime set to the epoch above is gone), and still the same key.
    expect(fs.statSync(path.join(dir, SEALED)).mtimeMs).toBeGreaterThan(0);
    safeStorage.reencrypt = false;
    expect((await openDesktopMasterKey({ dataDir: dir, safeStorage, platform: 'linux' })).store.loadOrCreate().equals(first.store.loadOrCreate())).toBe(true);
  });

  it('finishes an interrupted migration, and leaves a different plain key alone', async () => {
    const dir = tempDir();
    const { store } = await openDesktopMasterKey({ dataDir: dir, safeStorage, platform: 'linux' });
    const key = store.loadOrCreate();
    fs.writeFileSync(path.join(dir, PLAIN), key.toString('base64') + '\n', { mode: 0o600 });
    const finished = await openDesktopMasterKey({ dataDir: dir, safeStorage, platform: 'linux' });
    expect(finished.note).toMatch(/removed the leftover plain master\.key/);
    expect(exists(dir, PLAIN)).toBe(false);

    fs.writeFileSync(path.join(dir, PLAIN), Buffer.alloc(32, 7).toString('base64') + '\n', { mode: 0o600 });
    const other = await openDesktopMasterKey({ dataDir: dir, safeStorage, platform: 'linux' });
    expect(other.note).toMatch(/WARNING: master\.key holds a different key/);
    expect(other.store.loadOrCreate().equals(key)).toBe(true);
    expect(exists(dir, PLAIN)).toBe(true);
  });

  it('serve refuses to invent a new key beside a sealed one; MERCHANT_CONSOLE_KEYCHAIN=off moves it back', async () => {
    const dir = tempDir();
    const { store } = await openDesktopMasterKey({ dataDir: dir, safeStorage, platform: 'linux' });
    const key = store.loadOrCreate();
    expect(() => fileMasterKeyStore(dir).loadOrCreate()).toThrow(MasterKeySealedError);
    await expect(openService({ dataDir: dir })).rejects.toThrow(/sealed in the OS keychain by the desktop app/);
    expect(exists(dir, PLAIN)).toBe(false);

    const off = await openDesktopMasterKey({ dataDir: dir, safeStorage, platform: 'linux', keychain: 'off' });
    expect(off.protection).toBe('file');
    expect(off.note).toMatch(/moved out of the OS keychain/);
    expect(exists(dir, SEALED)).toBe(false);
    expect(mode(dir, PLAIN)).toBe(0o600);
    expect(fileMasterKeyStore(dir).loadOrCreate().equals(key)).toBe(true);

    // And with the keychain off from the start, nothing gets sealed.
    const stays = await openDesktopMasterKey({ dataDir: dir, safeStorage, platform: 'linux', keychain: 'off' });
    expect(stays.note).toMatch(/MERCHANT_CONSOLE_KEYCHAIN=off/);
    expect(exists(dir, SEALED)).toBe(false);
  });
});
