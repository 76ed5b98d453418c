/**
 * Which better-sqlite3 native binding a process loads, and when the
 * Electron build of it has to be (re)made.
 *
 * better-sqlite3 ships one compiled addon per ABI. Node (tests, `serve`,
 * the CLI) keeps the build npm made in node_modules. Electron has its own
 * ABI, so the desktop loads a second build kept apart from node_modules
 * (`.electron-native/<platform>-<arch>/` in a checkout, `native/` unpacked
 * from the asar in a packaged app) through better-sqlite3's `nativeBinding`
 * option. Building into node_modules instead would break the Node side.
 *
 * Pure decisions only (no electron, no writes): used by the desktop main
 * process and by scripts/electron-native.ts (prestart / package).
 */
import path from 'node:path';

/** Checkout folder holding Electron builds, one sub-folder per platform-arch. Git-ignored. */
export const ELECTRON_NATIVE_DIR = '.electron-native';
/** Folder (inside app.asar.unpacked) of the packaged app's Electron build. */
export const PACKAGED_NATIVE_DIR = 'native';
export const BINDING_FILE = 'better_sqlite3.node';
/** What a build was made for; written next to the binding. */
export const STAMP_FILE = 'build.json';

/** Everything an Electron build of better-sqlite3 depends on. */
export interface NativeTarget {
  /** better-sqlite3 version whose sources were compiled. */
  moduleVersion: string;
  electronVersion: string;
  /** NODE_MODULE_VERSION of that Electron (process.versions.modules inside it). */
  abi: string;
  platform: string;
  arch: string;
}

/** The stamp records the target a build was made for. */
export type NativeStamp = NativeTarget;

const STAMP_KEYS = ['moduleVersion', 'electronVersion', 'abi', 'platform', 'arch'] as const;

export function platformArchDir(target: Pick<NativeTarget, 'platform' | 'arch'>): string {
  return `${target.platform}-${target.arch}`;
}

/** Where a checkout keeps the Electron build for a platform and architecture. */
export function checkoutBuildDir(projectRoot: string, target: Pick<NativeTarget, 'platform' | 'arch'>): string {
  return path.join(projectRoot, ELECTRON_NATIVE_DIR, platformArchDir(target));
}

/** A stamp file's content, or null when it is not a stamp (missing fields, wrong types, not JSON). */
export function parseStamp(text: string): NativeStamp | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const record = value as Record<string, unknown>;
  const stamp = {} as Record<(typeof STAMP_KEYS)[number], string>;
  for (const key of STAMP_KEYS) {
    const field = record[key];
    if (typeof field !== 'string' || field.length === 0) return null;
    stamp[key] = field;
  }
  return stamp;
}

export function formatStamp(target: NativeTarget): string {
  const ordered = Object.fromEntries(STAMP_KEYS.map((k) => [k, target[k]]));
  return JSON.stringify(ordered, null, 2) + '\n';
}

/**
 * Why the Electron build must be made again, or null when the existing one
 * fits the target. `bindingPresent`: the .node file exists next to the stamp.
 */
export function rebuildReason(stamp: NativeStamp | null, bindingPresent: boolean, target: NativeTarget): string | null {
  if (!bindingPresent) return 'no Electron build of better-sqlite3 yet';
  if (!stamp) return 'the existing build has no readable build.json';
  if (stamp.platform !== target.platform || stamp.arch !== target.arch) {
    return `the existing build is for ${platformArchDir(stamp)}, not ${platformArchDir(target)}`;
  }
  if (stamp.electronVersion !== target.electronVersion) return `Electron changed from ${stamp.electronVersion} to ${target.electronVersion}`;
  if (stamp.abi !== target.abi) return `the Electron ABI changed from ${stamp.abi} to ${target.abi}`;
  if (stamp.moduleVersion !== target.moduleVersion) return `better-sqlite3 changed from ${stamp.moduleVersion} to ${target.moduleVersion}`;
  return null;
}

/** The running process, as far as the choice of binding is concerned. */
export interface RuntimeFacts {
  versions: { electron?: string; modules: string };
  platform: string;
  arch: string;
}

/** Where the desktop app runs from (Electron's app.isPackaged, app.getAppPath(), process.resourcesPath). */
export interface AppLayout {
  isPackaged: boolean;
  /** The project root in a checkout; …/resources/app.asar when packaged. */
  appPath: string;
  resourcesPath: string;
}

export type BindingChoice =
  /** Plain Node: better-sqlite3 finds its own build; pass no nativeBinding. */
  | { kind: 'node-default' }
  /** Electron: load this file (and check the stamp next to it first). */
  | { kind: 'electron-build'; bindingPath: string; stampPath: string; packaged: boolean };

export function chooseNativeBinding(runtime: RuntimeFacts, layout: AppLayout | null): BindingChoice {
  if (!runtime.versions.electron) return { kind: 'node-default' };
  if (!layout) throw new Error('running under Electron needs the app layout to find the Electron build of better-sqlite3');
  // A .node file cannot be loaded from inside an asar archive: packaging unpacks it.
  const dir = layout.isPackaged
    ? path.join(layout.resourcesPath, 'app.asar.unpacked', PACKAGED_NATIVE_DIR)
    : checkoutBuildDir(layout.appPath, runtime);
  return {
    kind: 'electron-build',
    bindingPath: path.join(dir, BINDING_FILE),
    stampPath: path.join(dir, STAMP_FILE),
    packaged: layout.isPackaged,
  };
}

/**
 * Checks, before loading it, that the chosen Electron build fits the
 * running Electron; a clear message beats dlopen's "compiled against a
 * different Node.js version". Returns null when it fits.
 */
export function bindingMismatch(choice: BindingChoice, stamp: NativeStamp | null, bindingPresent: boolean, runtime: RuntimeFacts): string | null {
  if (choice.kind === 'node-default') return null;
  const fix = choice.packaged
    ? 'the installation is damaged; reinstall merchant-console'
    : 'run `npm start` or `npm run dev` (they build it), or `npm run native:electron`';
  if (!bindingPresent) return `the Electron build of better-sqlite3 is missing at ${choice.bindingPath}; ${fix}`;
  if (!stamp) return `the Electron build of better-sqlite3 at ${choice.bindingPath} has no readable ${STAMP_FILE}; ${fix}`;
  if (stamp.abi !== runtime.versions.modules || stamp.platform !== runtime.platform || stamp.arch !== runtime.arch) {
    return (
      `the Electron build of better-sqlite3 at ${choice.bindingPath} was made for ABI ${stamp.abi} on ${platformArchDir(stamp)}, ` +
      `but this Electron ${runtime.versions.electron ?? ''} is ABI ${runtime.versions.modules} on ${platformArchDir(runtime)}; ${fix}`
    );
  }
  return null;
}
