import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { syncTree } from '../../../bench/lib/synced-copy';

describe('syncTree', () => {
  const dirs: string[] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it('fsyncs every file and every directory of a copy, its root included, and a file alone', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mc-synced-copy-'));
    dirs.push(root);
    fs.mkdirSync(path.join(root, 'data', 'base'), { recursive: true });
    fs.writeFileSync(path.join(root, 'server.log'), 'x');
    fs.writeFileSync(path.join(root, 'data', 'PG_VERSION'), '15');
    fs.writeFileSync(path.join(root, 'data', 'base', '16384'), 'rows');
    const synced: string[] = [];
    const realOpen = fs.openSync;
    const pathOf = new Map<number, string>();
    vi.spyOn(fs, 'openSync').mockImplementation(((p: fs.PathLike, flags?: fs.OpenMode) => {
      const fd = realOpen(p, flags ?? 'r');
      pathOf.set(fd, path.relative(root, String(p)) || '.');
      return fd;
    }) as typeof fs.openSync);
    const realFsync = fs.fsyncSync;
    vi.spyOn(fs, 'fsyncSync').mockImplementation((fd: number) => {
      synced.push(pathOf.get(fd)!);
      realFsync(fd);
    });

    syncTree(root);
    expect(synced.sort()).toEqual(['.', 'data', 'data/PG_VERSION', 'data/base', 'data/base/16384', 'server.log']);

    synced.length = 0;
    syncTree(path.join(root, 'server.log'));
    expect(synced).toEqual(['server.log']);
  });
});
