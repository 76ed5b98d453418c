/**
 * Small tmpfs mounts for fault tests (a really full disk, a really
 * read-only file system). Needs root with mount rights (CAP_SYS_ADMIN);
 * `canMount` tells, and tests fall back to simulations or skip without it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach } from 'vitest';
import { tempDir } from './temp-dir';

let probed: boolean | undefined;

export function canMount(): boolean {
  if (probed !== undefined) return probed;
  probed = false;
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return probed;
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'mc-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { stdio: 'ignore' });
    execFileSync('umount', [dir], { stdio: 'ignore' });
    probed = true;
  } catch {
    probed = false;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return probed;
}

export interface TmpfsMount {
  dir: string;
  /** Remounts with another size (e.g. to free up a full disk) or read-only/read-write. */
  remount(options: string): void;
  /** Fills the free space with a file, leaving about `leaveBytes`. */
  fill(leaveBytes?: number): void;
  unmount(): void;
}

const mounted: TmpfsMount[] = [];
afterEach(() => {
  for (const m of mounted.splice(0).reverse()) m.unmount();
});

/** A tmpfs of `size` (e.g. "4m") in a fresh temp dir, unmounted after the test. */
export function mountTmpfs(size: string): TmpfsMount {
  const dir = path.join(tempDir('mc-tmpfs-'), 'mnt');
  fs.mkdirSync(dir);
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'ignore' });
  let active = true;
  const m: TmpfsMount = {
    dir,
    remount(options) {
      execFileSync('mount', ['-o', `remount,${options}`, dir], { stdio: 'ignore' });
    },
    fill(leaveBytes = 0) {
      const { bavail, bsize } = fs.statfsSync(dir);
      const free = bavail * bsize - leaveBytes;
      if (free <= 0) return;
      const fd = fs.openSync(path.join(dir, `filler-${Date.now()}`), 'w');
      try {
        const chunk = Buffer.alloc(64 * 1024);
        let left = free;
        while (left > 0) {
          try {
            left -= fs.writeSync(fd, chunk, 0, Math.min(chunk.length, left));
          } catch {
            break; // ENOSPC: as full as it gets
          }
        }
      } finally {
        fs.closeSync(fd);
      }
    },
    unmount() {
      if (!active) return;
      active = false;
      try {
        execFileSync('umount', [dir], { stdio: 'ignore' });
      } catch {
        execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
      }
    },
  };
  mounted.push(m);
  return m;
}
