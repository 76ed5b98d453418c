/**
 * Makes sure the desktop app can start: the Electron binary is installed and
 * an Electron build of better-sqlite3 fitting it exists in
 * .electron-native/<platform>-<arch>/ (never in node_modules, whose build
 * stays Node's for tests and `serve`). Run by `npm start`, `npm run dev` and
 * `npm run package` before Electron; never by `npm install`/`npm ci`/`npm test`.
 *
 *   node --import tsx scripts/electron-native.ts [--arch x64|arm64|…] [--force] [--check]
 *
 * A rebuild copies better-sqlite3's sources into a scratch folder and runs
 * @electron/rebuild there: it downloads a prebuilt binary for this Electron
 * when one is published, else compiles (Electron headers from the network,
 * a C++ toolchain). Either needs network the first time.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  BINDING_FILE,
  STAMP_FILE,
  checkoutBuildDir,
  formatStamp,
  parseStamp,
  platformArchDir,
  rebuildReason,
  type NativeTarget,
} from '../src-main/desktop/native-binding';

const require = createRequire(import.meta.url);
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MODULE = 'better-sqlite3';

export interface RebuildRequest {
  buildPath: string;
  projectRootPath: string;
  electronVersion: string;
  platform: NodeJS.Platform;
  arch: string;
  onlyModules: string[];
  force: boolean;
  forceABI: number;
}
export type RebuildFn = (request: RebuildRequest) => Promise<void>;

function readJson(file: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
}

function packageDir(name: string, root: string): string {
  return path.dirname(require.resolve(`${name}/package.json`, { paths: [root] }));
}

/** The build the installed Electron and better-sqlite3 need on this machine (or for `arch`). */
export function currentTarget(root = PROJECT_ROOT, arch: string = process.arch): NativeTarget {
  const electronDir = packageDir('electron', root);
  const electronVersion = String(readJson(path.join(electronDir, 'package.json')).version);
  // The electron package records its NODE_MODULE_VERSION; node-abi is the fallback for older packages.
  const abiFile = path.join(electronDir, 'abi_version');
  const abi = fs.existsSync(abiFile)
    ? fs.readFileSync(abiFile, 'utf8').trim()
    : (require(require.resolve('node-abi', { paths: [root] })) as { getAbi(v: string, r: string): string }).getAbi(electronVersion, 'electron');
  const moduleVersion = String(readJson(path.join(packageDir(MODULE, root), 'package.json')).version);
  return { moduleVersion, electronVersion, abi, platform: process.platform, arch };
}

export interface NativeState {
  dir: string;
  bindingPath: string;
  reason: string | null;
}

export function nativeState(root: string, target: NativeTarget): NativeState {
  const dir = checkoutBuildDir(root, target);
  const bindingPath = path.join(dir, BINDING_FILE);
  let stampText: string | null = null;
  try {
    stampText = fs.readFileSync(path.join(dir, STAMP_FILE), 'utf8');
  } catch {
    stampText = null;
  }
  const stamp = stampText === null ? null : parseStamp(stampText);
  return { dir, bindingPath, reason: rebuildReason(stamp, fs.existsSync(bindingPath), target) };
}

export const realRebuild: RebuildFn = async (request) => {
  const { rebuild } = await import('@electron/rebuild');
  await rebuild(request);
};

export interface EnsureOptions {
  root?: string;
  target?: NativeTarget;
  force?: boolean;
  rebuild?: RebuildFn;
  log?: (line: string) => void;
}

/**
 * Builds the Electron binding when it is missing or stale; returns where it
 * is and whether it was built now. The stamp is removed before the binding is
 * replaced and written last, so an interrupted run is redone next time.
 */
export async function ensureElectronNative(options: EnsureOptions = {}): Promise<NativeState & { built: boolean }> {
  const root = options.root ?? PROJECT_ROOT;
  const target = options.target ?? currentTarget(root);
  const log = options.log ?? ((line) => console.log(line));
  const state = nativeState(root, target);
  const reason = options.force ? 'a rebuild was asked for (--force)' : state.reason;
  if (reason === null) return { ...state, built: false };

  log(`better-sqlite3 for Electron ${target.electronVersion} (ABI ${target.abi}, ${platformArchDir(target)}): building, because ${reason}`);
  const work = path.join(path.dirname(state.dir), `work-${platformArchDir(target)}`);
  fs.rmSync(work, { recursive: true, force: true });
  const moduleCopy = path.join(work, 'node_modules', MODULE);
  // Sources only: the Node build in node_modules must neither be reused nor touched.
  fs.cpSync(packageDir(MODULE, root), moduleCopy, {
    recursive: true,
    filter: (src) => !/[\\/]better-sqlite3[\\/](build|node_modules|prebuilds)([\\/]|$)/.test(src),
  });
  fs.writeFileSync(
    path.join(work, 'package.json'),
    JSON.stringify({ name: 'merchant-console-electron-native', private: true, dependencies: { [MODULE]: target.moduleVersion } }, null, 2),
  );

  try {
    try {
      await (options.rebuild ?? realRebuild)({
        buildPath: work,
        // Confines @electron/rebuild to the scratch folder (it would otherwise walk up to the project's node_modules).
        projectRootPath: work,
        electronVersion: target.electronVersion,
        platform: target.platform as NodeJS.Platform,
        arch: target.arch,
        onlyModules: [MODULE],
        force: true,
        forceABI: Number(target.abi),
      });
    } catch (err) {
      throw new Error(
        `building better-sqlite3 for Electron failed: ${err instanceof Error ? err.message : String(err)}. ` +
          'It needs network access (a prebuilt binary, or Electron headers) and, without a prebuilt, a C++ toolchain; see README, Desktop.',
      );
    }
    const built = path.join(moduleCopy, 'build', 'Release', BINDING_FILE);
    if (!fs.existsSync(built)) throw new Error(`@electron/rebuild finished but ${built} does not exist`);
    fs.mkdirSync(state.dir, { recursive: true });
    const stampPath = path.join(state.dir, STAMP_FILE);
    fs.rmSync(stampPath, { force: true });
    fs.copyFileSync(built, state.bindingPath + '.tmp');
    fs.renameSync(state.bindingPath + '.tmp', state.bindingPath);
    fs.writeFileSync(stampPath, formatStamp(target));
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  log(`better-sqlite3 for Electron ready: ${path.relative(root, state.bindingPath)}`);
  return { ...state, reason, built: true };
}

/**
 * The electron package downloads its binary in a postinstall script; when
 * installs skip scripts it is missing, and electron-vite cannot start it.
 * Its own install.js is idempotent, so run it whenever the binary is absent.
 */
export function ensureElectronBinary(root = PROJECT_ROOT, log: (line: string) => void = (l) => console.log(l)): void {
  const electronDir = packageDir('electron', root);
  const pathFile = path.join(electronDir, 'path.txt');
  const present = fs.existsSync(pathFile) && fs.existsSync(path.join(electronDir, 'dist', fs.readFileSync(pathFile, 'utf8')));
  if (present) return;
  log('Electron binary not installed yet: downloading it (node_modules/electron/install.js)');
  const result = spawnSync(process.execPath, [path.join(electronDir, 'install.js')], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error('downloading the Electron binary failed (it needs network access once)');
}

function parseArgs(argv: string[]): { arch: string; force: boolean; check: boolean } {
  let arch: string = process.arch;
  let force = false;
  let check = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--force') force = true;
    else if (arg === '--check') check = true;
    else if (arg === '--arch' && argv[i + 1]) arch = argv[++i]!;
    else if (arg.startsWith('--arch=')) arch = arg.slice('--arch='.length);
    else throw new Error(`unknown argument ${arg}; usage: electron-native.ts [--arch A] [--force] [--check]`);
  }
  return { arch, force, check };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const target = currentTarget(PROJECT_ROOT, args.arch);
  if (args.check) {
    const state = nativeState(PROJECT_ROOT, target);
    console.log(state.reason ? `needs a build: ${state.reason}` : `up to date: ${path.relative(PROJECT_ROOT, state.bindingPath)}`);
    process.exitCode = state.reason ? 1 : 0;
    return;
  }
  if (args.arch === process.arch) ensureElectronBinary();
  await ensureElectronNative({ target, force: args.force });
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((err: unknown) => {
    console.error(`electron-native: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  });
}
