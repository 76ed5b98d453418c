import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createSecretBox, fileMasterKeyStore, MASTER_KEY_FILE } from '../../../src-main/crypto/secret-box';
import { tempDir } from '../../support/temp-dir';

describe('secret box', () => {
  it('seals and opens; each seal is different; tampering is detected', () => {
    const box = createSecretBox(Buffer.alloc(32, 7));
    const a = box.seal('sk_secret');
    const b = box.seal('sk_secret');
    expect(a).not.toBe(b);
    expect(a).not.toContain('sk_secret');
    expect(box.open(a)).toBe('sk_secret');
    const raw = Buffer.from(a.slice(3), 'base64');
    raw[raw.length - 1]! ^= 1;
    expect(() => box.open('v1:' + raw.toString('base64'))).toThrow();
    expect(() => createSecretBox(Buffer.alloc(32, 8)).open(a)).toThrow();
  });

  it('fingerprints deterministically under one key only', () => {
    const box = createSecretBox(Buffer.alloc(32, 1));
    expect(box.fingerprint('6222')).toBe(box.fingerprint('6222'));
    expect(box.fingerprint('6222')).not.toBe(createSecretBox(Buffer.alloc(32, 2)).fingerprint('6222'));
  });

  it('creates the master key file once, mode 0600, and reuses it', () => {
    const dir = tempDir();
    const key = fileMasterKeyStore(dir).loadOrCreate();
    expect(key).toHaveLength(32);
    const file = path.join(dir, MASTER_KEY_FILE);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fileMasterKeyStore(dir).loadOrCreate().equals(key)).toBe(true);
  });

  it('has a new master key file on disk (file and folder fsynced) before handing the key out', () => {
    const dir = tempDir();
    const opened = new Map<number, string>();
    const synced: string[] = [];
    const realOpen = fs.openSync;
    const realFsync = fs.fsyncSync;
    vi.spyOn(fs, 'openSync').mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
      const fd = (realOpen as (...a: unknown[]) => number)(p, ...rest);
      opened.set(fd, String(p));
      return fd;
    }) as typeof fs.openSync);
    vi.spyOn(fs, 'fsyncSync').mockImplementation((fd: number) => {
      synced.push(opened.get(fd) ?? '?');
      realFsync(fd);
    });
    try {
      // The service commits secrets sealed with this key durably right after; the key must be as durable.
      fileMasterKeyStore(dir).loadOrCreate();
    } finally {
      vi.restoreAllMocks();
    }
    expect(synced).toEqual([path.join(dir, MASTER_KEY_FILE), dir]);
  });

  it('refuses a damaged key file rather than making a new key', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, MASTER_KEY_FILE), 'c2hvcnQ=\n');
    expect(() => fileMasterKeyStore(dir).loadOrCreate()).toThrow('does not hold a 32-byte key');
  });
});
