import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { currentTarget, ensureElectronNative, nativeState, type RebuildRequest } from '../../scripts/electron-native';
import { parseStamp } from '../../src-main/desktop/native-binding';
import { tempDir } from '../support/temp-dir';

/** A project root with just enough of electron and better-sqlite3 for the script. */
function fakeProject(electronVersion = '45.4.1', abi = '150'): string {
  const root = tempDir('mc-native-');
  const write = (rel: string, content: string) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), content);
  };
  write('package.json', '{"name":"fake"}');
  write('node_modules/electron/package.json', JSON.stringify({ name: 'electron', version: electronVersion }));
  write('node_modules/electron/abi_version', `${abi}\n`);
  write('node_modules/better-sqlite3/package.json', JSON.stringify({ name: 'better-sqlite3', version: '12.11.1' }));
  write('node_modules/better-sqlite3/binding.gyp', '{}');
  write('node_modules/better-sqlite3/src/better_sqlite3.cpp', '// sources');
  write('node_modules/better-sqlite3/lib/index.js', 'module.exports = {};');
  write('node_modules/better-sqlite3/build/Release/better_sqlite3.node', 'NODE-ABI BUILD');
  return root;
}

/** Stands in for @electron/rebuild: compiles by writing a marker file. */
function fakeRebuild(calls: RebuildRequest[], content = 'ELECTRON BUILD') {
  return async (request: RebuildRequest) => {
    calls.push(request);
    const moduleDir = path.join(request.buildPath, 'node_modules', 'better-sqlite3');
    // The scratch copy holds sources, never the Node build.
    if (fs.existsSync(path.join(moduleDir, 'build'))) throw new Error('the Node build was copied into the scratch folder');
    if (!fs.existsSync(path.join(moduleDir, 'binding.gyp'))) throw new Error('sources missing');
    fs.mkdirSync(path.join(moduleDir, 'build', 'Release'), { recursive: true });
    fs.writeFileSync(path.join(moduleDir, 'build', 'Release', 'better_sqlite3.node'), content);
  };
}

describe('scripts/electron-native.ts', () => {
  it('reads the target from the installed electron and better-sqlite3', () => {
    const root = fakeProject('46.0.0', '151');
    expect(currentTarget(root, 'arm64')).toEqual({ moduleVersion: '12.11.1', electronVersion: '46.0.0', abi: '151', platform: process.platform, arch: 'arm64' });
  });

  it('the real checkout targets the installed Electron', () => {
    const target = currentTarget();
    const electronPkg = JSON.parse(fs.readFileSync(path.resolve('node_modules/electron/package.json'), 'utf8')) as { version: string };
    expect(target.electronVersion).toBe(electronPkg.version);
    expect(target.abi).toMatch(/^[0-9]+$/);
    expect(target.abi).not.toBe(process.versions.modules);
  });

  it('builds once into .electron-native, stamps it, and leaves node_modules alone', async () => {
    const root = fakeProject();
    const calls: RebuildRequest[] = [];
    const logs: string[] = [];
    const first = await ensureElectronNative({ root, rebuild: fakeRebuild(calls), log: (l) => logs.push(l) });

    expect(first.built).toBe(true);
    expect(first.reason).toMatch(/no Electron build/);
    expect(calls).toHaveLength(1);
    const request = calls[0]!;
    expect(request).toMatchObject({ electronVersion: '45.4.1', onlyModules: ['better-sqlite3'], force: true, forceABI: 150, arch: process.arch });
    // Confined to the scratch folder, which lives under .electron-native and is gone afterwards.
    expect(request.projectRootPath).toBe(request.buildPath);
    expect(request.buildPath.startsWith(path.join(root, '.electron-native') + path.sep)).toBe(true);
    expect(fs.existsSync(request.buildPath)).toBe(false);

    const dir = path.join(root, '.electron-native', `${process.platform}-${process.arch}`);
    expect(fs.readFileSync(path.join(dir, 'better_sqlite3.node'), 'utf8')).toBe('ELECTRON BUILD');
    expect(parseStamp(fs.readFileSync(path.join(dir, 'build.json'), 'utf8'))).toEqual(currentTarget(root));
    expect(fs.readFileSync(path.join(root, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'), 'utf8')).toBe('NODE-ABI BUILD');
    expect(logs.join('\n')).toMatch(/building, because no Electron build/);

    const second = await ensureElectronNative({ root, rebuild: fakeRebuild(calls), log: () => {} });
    expect(second.built).toBe(false);
    expect(calls).toHaveLength(1);
  });

  it('rebuilds when Electron is upgraded, and on --force', async () => {
    const root = fakeProject();
    const calls: RebuildRequest[] = [];
    await ensureElectronNative({ root, rebuild: fakeRebuild(calls), log: () => {} });
    fs.writeFileSync(path.join(root, 'node_modules/electron/package.json'), JSON.stringify({ version: '46.1.0' }));
    fs.writeFileSync(path.join(root, 'node_modules/electron/abi_version'), '151');
    expect(nativeState(root, currentTarget(root)).reason).toMatch(/Electron changed from 45\.4\.1 to 46\.1\.0/);
    const upgraded = await ensureElectronNative({ root, rebuild: fakeRebuild(calls, 'ELECTRON 46'), log: () => {} });
    expect(upgraded.built).toBe(true);
    expect(calls.at(-1)).toMatchObject({ electronVersion: '46.1.0', forceABI: 151 });
    expect(fs.readFileSync(upgraded.bindingPath, 'utf8')).toBe('ELECTRON 46');

    const forced = await ensureElectronNative({ root, force: true, rebuild: fakeRebuild(calls), log: () => {} });
    expect(forced.built).toBe(true);
    expect(calls).toHaveLength(3);
  });

  it('a failed build leaves no stamp that would pass for a good one', async () => {
    const root = fakeProject();
    const failing = async () => {
      throw new Error('gyp ERR! network');
    };
    await expect(ensureElectronNative({ root, rebuild: failing, log: () => {} })).rejects.toThrow(/building better-sqlite3 for Electron failed: gyp ERR! network.*needs network access/);
    expect(nativeState(root, currentTarget(root)).reason).toMatch(/no Electron build/);
    expect(fs.readdirSync(path.join(root, '.electron-native'))).toEqual([]);

    const noOutput = async () => {};
    await expect(ensureElectronNative({ root, rebuild: noOutput, log: () => {} })).rejects.toThrow(/does not exist/);
    expect(nativeState(root, currentTarget(root)).reason).not.toBeNull();
  });
});
