/**
 * Builds the browser console (out/console) when it is missing or older than
 * any source it is built from (src-renderer, src-shared, package.json), and
 * does nothing otherwise. Run before `npm run serve` (so the two-command
 * set-up gives a working /console/) and before the e2e tests. Bounded: a
 * build that hangs fails.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '..');
const OUT_INDEX = join(ROOT, 'out/console/index.html');
const SOURCES = ['src-renderer', 'src-shared', 'package.json'];
const BUILD_TIMEOUT_MS = 180_000;

function newestMtime(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

export function consoleBuildIsStale(): boolean {
  if (!existsSync(OUT_INDEX)) return true;
  const built = statSync(OUT_INDEX).mtimeMs;
  return SOURCES.some((s) => newestMtime(join(ROOT, s)) > built);
}

/** Returns true when it built. */
export function ensureConsoleBuild({ quiet = false } = {}): boolean {
  if (!consoleBuildIsStale()) return false;
  if (!quiet) process.stderr.write('building the browser console (out/console) once; later starts skip this while sources are unchanged\n');
  const vite = join(ROOT, 'node_modules/vite/bin/vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '--config', 'src-renderer/vite.config.ts', '--logLevel', 'warn'], {
    cwd: ROOT,
    stdio: 'inherit',
    timeout: BUILD_TIMEOUT_MS,
  });
  if (result.status !== 0) throw new Error(`console build failed (status ${result.status}, signal ${result.signal})`);
  return true;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) ensureConsoleBuild();
