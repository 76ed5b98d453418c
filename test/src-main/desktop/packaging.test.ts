/**
 * Runs electron-builder for real — offline, on a throwaway copy of the
 * project — against a stand-in Electron distribution (electronDist), and
 * checks the layout a user's install depends on: the bundles inside
 * app.asar, the Electron build of better-sqlite3 unpacked where the main
 * process looks for it, none of the Node build or the dev tooling shipped.
 * Also checks the beforePack guard. The real Electron download, fuses and
 * installers (NSIS, dmg, AppImage, deb) need network and each OS: not here.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindingMismatch, chooseNativeBinding, parseStamp } from '../../../src-main/desktop/native-binding';
// @ts-expect-error plain JS hook module (electron-builder loads it), no type declarations
import { checkNativeBuild } from '../../../scripts/electron-builder-before-pack.mjs';
import { tempDir } from '../../support/temp-dir';

const projectRoot = path.resolve(import.meta.dirname, '../../..');
const pkg = JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as {
  version: string;
  main: string;
  build: Record<string, unknown> & { files: unknown[]; asarUnpack: string[]; electronFuses: Record<string, boolean> };
};
const electronVersion = (JSON.parse(fs.readFileSync(path.join(projectRoot, 'node_modules/electron/package.json'), 'utf8')) as { version: string }).version;
const betterSqliteVersion = (JSON.parse(fs.readFileSync(path.join(projectRoot, 'node_modules/better-sqlite3/package.json'), 'utf8')) as { version: string }).version;
const ELECTRON_ABI = fs.readFileSync(path.join(projectRoot, 'node_modules/electron/abi_version'), 'utf8').trim();

/** Lists an asar archive (header: two pickles, then a JSON tree) and reads files from it. */
function openAsar(file: string) {
  const buf = fs.readFileSync(file);
  const headerPickleSize = buf.readUInt32LE(4);
  const jsonSize = buf.readUInt32LE(12);
  const header = JSON.parse(buf.subarray(16, 16 + jsonSize).toString('utf8')) as AsarDir;
  const dataStart = 8 + headerPickleSize;
  type AsarDir = { files: Record<string, AsarDir | { size: number; offset?: string; unpacked?: boolean }> };
  const entries = new Map<string, { size: number; offset?: string; unpacked?: boolean }>();
  const walk = (dir: AsarDir, prefix: string) => {
    for (const [name, node] of Object.entries(dir.files)) {
      if ('files' in node) walk(node, `${prefix}${name}/`);
      else entries.set(`${prefix}${name}`, node);
    }
  };
  walk(header, '');
  return {
    entries,
    read(name: string): string {
      const e = entries.get(name);
      if (!e || e.offset === undefined) throw new Error(`${name} is not packed in the asar`);
      const start = dataStart + Number(e.offset);
      return buf.subarray(start, start + e.size).toString('utf8');
    },
  };
}

describe('electron-builder configuration (package.json "build")', () => {
  it('targets Windows NSIS, macOS dmg, Linux AppImage and deb; unpacks the native module; never rebuilds node_modules', () => {
    expect(pkg.build.win).toMatchObject({ target: ['nsis'] });
    expect(pkg.build.mac).toMatchObject({ target: ['dmg'] });
    expect(pkg.build.linux).toMatchObject({ target: ['AppImage', 'deb'] });
    expect(pkg.build.asar).toBe(true);
    expect(pkg.build.asarUnpack).toEqual(expect.arrayContaining(['.electron-native/**', '**/*.node']));
    // Rebuilding node_modules in place would replace the Node build that tests and `serve` use.
    expect(pkg.build.npmRebuild).toBe(false);
    expect(pkg.build.beforePack).toBe('./scripts/electron-builder-before-pack.mjs');
  });

  it('flips the fuses a console app does not need (checklist #19)', () => {
    expect(pkg.build.electronFuses).toEqual({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
  });
});

describe('beforePack guard', () => {
  function project(stamp: Record<string, string> | null, withBinding = true) {
    const dir = tempDir('mc-beforepack-');
    fs.mkdirSync(path.join(dir, 'node_modules/electron'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'node_modules/electron/package.json'), JSON.stringify({ version: '45.4.1' }));
    fs.mkdirSync(path.join(dir, 'node_modules/better-sqlite3'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'node_modules/better-sqlite3/package.json'), JSON.stringify({ version: '12.11.1' }));
    const native = path.join(dir, '.electron-native/linux-x64');
    fs.mkdirSync(native, { recursive: true });
    if (withBinding) fs.writeFileSync(path.join(native, 'better_sqlite3.node'), 'x');
    if (stamp) fs.writeFileSync(path.join(native, 'build.json'), JSON.stringify(stamp));
    return dir;
  }
  const good = { moduleVersion: '12.11.1', electronVersion: '45.4.1', abi: '150', platform: 'linux', arch: 'x64' };
  const check = (projectDir: string, over: Record<string, string> = {}) =>
    checkNativeBuild({ projectDir, platform: 'linux', arch: 'x64', hostPlatform: 'linux', ...over }) as { electronVersion: string };

  it('lets a fitting build through and refuses a missing, stale or foreign one', () => {
    expect(check(project(good)).electronVersion).toBe('45.4.1');
    expect(() => check(project(good, false))).toThrow(/no Electron build of better-sqlite3 for linux-x64.*npm run native:electron -- --arch x64/);
    expect(() => check(project(null))).toThrow(/no readable build\.json/);
    expect(() => check(project({ ...good, electronVersion: '44.0.0' }))).toThrow(/is for Electron 44\.0\.0 on linux-x64, not Electron 45\.4\.1/);
    // better-sqlite3 upgraded since the build: its new JavaScript would ship with the old binary.
    expect(() => check(project({ ...good, moduleVersion: '12.9.0' }))).toThrow(
      /compiled from better-sqlite3 12\.9\.0, but 12\.11\.1 is installed.*npm run native:electron -- --arch x64/,
    );
    expect(() => check(project(good), { arch: 'arm64' })).toThrow(/for linux-arm64/);
    expect(() => check(project(good), { platform: 'win32' })).toThrow(/cannot package for win32 on linux/);
  });
});

describe.runIf(process.platform === 'linux')('a packaged app (electron-builder --linux dir, stand-in Electron)', () => {
  let proj: string;
  let unpacked: string;

  beforeAll(() => {
    proj = fs.mkdtempSync(path.join(os.tmpdir(), 'mc-package-'));
    const build = { ...pkg.build, electronDist: path.join(proj, 'electron-dist'), directories: { output: 'release' } } as Record<string, unknown>;
    // Flipping fuses needs a real Electron binary; their settings are checked above.
    delete build.electronFuses;
    fs.writeFileSync(path.join(proj, 'package.json'), JSON.stringify({ ...pkg, build }, null, 2));
    fs.copyFileSync(path.join(projectRoot, 'package-lock.json'), path.join(proj, 'package-lock.json'));
    fs.symlinkSync(fs.realpathSync(path.join(projectRoot, 'node_modules')), path.join(proj, 'node_modules'), 'dir');
    fs.mkdirSync(path.join(proj, 'scripts'));
    fs.copyFileSync(path.join(projectRoot, 'scripts/electron-builder-before-pack.mjs'), path.join(proj, 'scripts/electron-builder-before-pack.mjs'));

    const bundles = spawnSync(process.execPath, [path.join(projectRoot, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], {
      cwd: projectRoot,
      env: { ...process.env, ELECTRON_VITE_SKIP_RENDERER: '1', ELECTRON_VITE_OUT_DIR: path.join(proj, 'out') },
      encoding: 'utf8',
    });
    if (bundles.status !== 0) throw new Error(`electron-vite build failed:\n${bundles.stdout}\n${bundles.stderr}`);
    fs.mkdirSync(path.join(proj, 'out/renderer/assets'), { recursive: true });
    fs.writeFileSync(path.join(proj, 'out/renderer/index.html'), '<!doctype html>');
    fs.writeFileSync(path.join(proj, 'out/renderer/assets/index.js'), '');

    // What `npm run native:electron` leaves behind (the Node build stands in for the Electron one).
    const native = path.join(proj, '.electron-native', `linux-${process.arch}`);
    fs.mkdirSync(native, { recursive: true });
    fs.copyFileSync(path.join(projectRoot, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'), path.join(native, 'better_sqlite3.node'));
    fs.writeFileSync(
      path.join(native, 'build.json'),
      JSON.stringify({ moduleVersion: betterSqliteVersion, electronVersion, abi: ELECTRON_ABI, platform: 'linux', arch: process.arch }),
    );
    fs.mkdirSync(path.join(proj, 'electron-dist'));
    fs.writeFileSync(path.join(proj, 'electron-dist/electron'), '#!/bin/sh\n', { mode: 0o755 });
    fs.writeFileSync(path.join(proj, 'electron-dist/version'), `v${electronVersion}`);

    const packaged = spawnSync(process.execPath, [path.join(projectRoot, 'node_modules/electron-builder/cli.js'), '--linux', 'dir', '--publish', 'never'], {
      cwd: proj,
      env: { ...process.env, CI: 'true' },
      encoding: 'utf8',
      timeout: 240_000,
    });
    if (packaged.status !== 0) throw new Error(`electron-builder failed:\n${packaged.stdout}\n${packaged.stderr}`);
    unpacked = path.join(proj, 'release', process.arch === 'x64' ? 'linux-unpacked' : `linux-${process.arch}-unpacked`);
  }, 300_000);

  afterAll(() => {
    if (proj) fs.rmSync(proj, { recursive: true, force: true });
  });

  it('ships the bundles in app.asar with package.json pointing at the main bundle', () => {
    const asar = openAsar(path.join(unpacked, 'resources/app.asar'));
    for (const file of ['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html', 'out/renderer/assets/index.js', 'package.json']) {
      expect(asar.entries.has(file), file).toBe(true);
    }
    expect((JSON.parse(asar.read('package.json')) as { main: string }).main).toBe('out/main/index.js');
    expect(asar.read('out/main/index.js')).toBe(fs.readFileSync(path.join(proj, 'out/main/index.js'), 'utf8'));
    expect(fs.existsSync(path.join(unpacked, 'merchant-console'))).toBe(true);
  });

  it('unpacks the Electron build of better-sqlite3 exactly where the packaged main process looks for it', () => {
    const resourcesPath = path.join(unpacked, 'resources');
    const runtime = { versions: { electron: electronVersion, modules: ELECTRON_ABI }, platform: 'linux', arch: process.arch };
    const choice = chooseNativeBinding(runtime, { isPackaged: true, appPath: path.join(resourcesPath, 'app.asar'), resourcesPath });
    if (choice.kind !== 'electron-build') throw new Error('expected the Electron build');
    expect(fs.existsSync(choice.bindingPath)).toBe(true);
    const stamp = parseStamp(fs.readFileSync(choice.stampPath, 'utf8'));
    expect(bindingMismatch(choice, stamp, true, runtime)).toBeNull();
  });

  it('ships the runtime dependencies but not the Node build, sources or dev tooling', () => {
    const asar = openAsar(path.join(unpacked, 'resources/app.asar'));
    const names = [...asar.entries.keys()];
    for (const dep of ['fastify', 'zod', 'decimal.js', 'better-sqlite3']) {
      expect(names.some((n) => n.startsWith(`node_modules/${dep}/`)), dep).toBe(true);
    }
    expect(names.some((n) => n.startsWith('node_modules/better-sqlite3/lib/'))).toBe(true);
    expect(names.filter((n) => /^node_modules\/better-sqlite3\/(build|deps|src)\//.test(n))).toEqual([]);
    for (const dev of ['tsx', 'esbuild', 'electron', 'vue', 'vitest', 'typescript', 'electron-builder']) {
      expect(names.some((n) => n.startsWith(`node_modules/${dev}/`)), dev).toBe(false);
    }
    expect(names.some((n) => n.startsWith('src-main/') || n.startsWith('test/') || n.startsWith('.electron-native/'))).toBe(false);
    expect(names.some((n) => n.endsWith('.map'))).toBe(false);
  });
});
