/**
 * Which code a `serve` child runs: this checkout, or another one
 * (`--serve-from DIR`, e.g. a git worktree of an older commit), each from
 * its CLI bundle. bin/merchant-console.mjs runs the bundle only while every
 * source file it was built from is unchanged; in a tree that is being
 * edited, a stale bundle would silently turn a run into a tsx run (slower
 * start). So the bundle is checked before every start and rebuilt when
 * stale, and the bench reports how many rebuilds it did.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface Checkout {
  dir: string;
  /** Short commit id (and "+" a digest of the changes when the tree differs from it). */
  label: string;
  rebuilds: number;
  /** Makes sure the next `serve` runs the bundle of what is on disk now. */
  ensureBundle(): Promise<void>;
}

/** The same test bin/merchant-console.mjs makes before it runs a bundle. */
export function bundleIsFresh(dir: string): boolean {
  const bundleDir = path.join(dir, 'dist', 'cli');
  try {
    const { inputs } = JSON.parse(fs.readFileSync(path.join(bundleDir, 'inputs.json'), 'utf8')) as { inputs: [string, number, number][] };
    for (const [file, size, mtime] of inputs) {
      const st = fs.statSync(path.join(dir, file));
      if (st.size !== size || Math.floor(st.mtimeMs) !== mtime) return false;
    }
    return fs.existsSync(path.join(bundleDir, 'merchant-console.cjs'));
  } catch {
    return false;
  }
}

export function describeCommit(dir: string): string {
  try {
    const rev = execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const diff = execFileSync('git', ['-C', dir, 'diff', 'HEAD'], { encoding: 'utf8', maxBuffer: 256 * 2 ** 20 });
    return diff === '' ? rev : `${rev}+${createHash('sha1').update(diff).digest('hex').slice(0, 6)}`;
  } catch {
    return path.basename(dir);
  }
}

export function checkoutAt(dir: string, build: () => Promise<void>): Checkout {
  const checkout: Checkout = {
    dir,
    label: describeCommit(dir),
    rebuilds: 0,
    async ensureBundle() {
      if (bundleIsFresh(dir)) return;
      await build();
      checkout.rebuilds++;
      if (!bundleIsFresh(dir)) throw new Error(`${dir}: the CLI bundle is stale right after building it (sources changing under the bench?)`);
    },
  };
  return checkout;
}

/**
 * Another checkout: its bundle built with its own scripts/build-cli.ts; it
 * needs node_modules (a worktree can link this checkout's: the comparison
 * is then of our code alone, on the same library versions).
 */
export function otherCheckout(dir: string): Checkout {
  const abs = path.resolve(dir);
  if (!fs.existsSync(path.join(abs, 'bin', 'merchant-console.mjs'))) throw new Error(`--serve-from ${dir}: no bin/merchant-console.mjs there`);
  if (!fs.existsSync(path.join(abs, 'node_modules'))) {
    throw new Error(`--serve-from ${dir}: no node_modules (e.g. ln -s ${path.resolve('node_modules')} ${path.join(abs, 'node_modules')})`);
  }
  return checkoutAt(abs, async () => {
    execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build-cli.ts'], { cwd: abs, stdio: ['ignore', 'ignore', 'inherit'] });
  });
}
