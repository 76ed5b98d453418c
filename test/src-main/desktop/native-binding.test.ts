import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  bindingMismatch,
  checkoutBuildDir,
  chooseNativeBinding,
  formatStamp,
  parseStamp,
  rebuildReason,
  type NativeTarget,
  type RuntimeFacts,
} from '../../../src-main/desktop/native-binding';
import { openService } from '../../../src-main/service';
import { acquireDataDirLock } from '../../../src-main/store/data-dir';
import { tempDir } from '../../support/temp-dir';

const target: NativeTarget = { moduleVersion: '12.11.1', electronVersion: '45.4.1', abi: '150', platform: 'linux', arch: 'x64' };

describe('rebuildReason: when the Electron build must be made again', () => {
  const cases: { name: string; stamp: NativeTarget | null; present: boolean; expected: RegExp | null }[] = [
    { name: 'fits', stamp: target, present: true, expected: null },
    { name: 'binding missing', stamp: target, present: false, expected: /no Electron build/ },
    { name: 'no stamp', stamp: null, present: true, expected: /no readable build\.json/ },
    { name: 'other Electron', stamp: { ...target, electronVersion: '44.0.0' }, present: true, expected: /Electron changed from 44\.0\.0 to 45\.4\.1/ },
    { name: 'other ABI, same version (nightly)', stamp: { ...target, abi: '149' }, present: true, expected: /ABI changed from 149 to 150/ },
    { name: 'better-sqlite3 upgraded', stamp: { ...target, moduleVersion: '12.9.0' }, present: true, expected: /better-sqlite3 changed from 12\.9\.0 to 12\.11\.1/ },
    { name: 'other arch', stamp: { ...target, arch: 'arm64' }, present: true, expected: /for linux-arm64, not linux-x64/ },
    { name: 'other platform', stamp: { ...target, platform: 'darwin' }, present: true, expected: /for darwin-x64, not linux-x64/ },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const reason = rebuildReason(c.stamp, c.present, target);
      if (c.expected === null) expect(reason).toBeNull();
      else expect(reason).toMatch(c.expected);
    });
  }
});

describe('stamps', () => {
  it('round-trip through formatStamp/parseStamp', () => {
    expect(parseStamp(formatStamp(target))).toEqual(target);
  });

  it('reject anything that is not a complete stamp', () => {
    expect(parseStamp('not json')).toBeNull();
    expect(parseStamp('null')).toBeNull();
    expect(parseStamp('[]')).toBeNull();
    expect(parseStamp(JSON.stringify({ ...target, abi: 150 }))).toBeNull();
    expect(parseStamp(JSON.stringify({ ...target, arch: '' }))).toBeNull();
    const { electronVersion: _omit, ...partial } = target;
    expect(parseStamp(JSON.stringify(partial))).toBeNull();
  });
});

describe('chooseNativeBinding: which binding a runtime loads', () => {
  const node: RuntimeFacts = { versions: { modules: '115' }, platform: 'linux', arch: 'x64' };
  const electron: RuntimeFacts = { versions: { modules: '150', electron: '45.4.1' }, platform: 'linux', arch: 'x64' };

  it('plain Node keeps better-sqlite3 default build (no nativeBinding)', () => {
    expect(chooseNativeBinding(node, null)).toEqual({ kind: 'node-default' });
    expect(chooseNativeBinding(node, { isPackaged: true, appPath: '/x', resourcesPath: '/y' })).toEqual({ kind: 'node-default' });
  });

  it('Electron from a checkout loads .electron-native/<platform>-<arch>/', () => {
    const choice = chooseNativeBinding(electron, { isPackaged: false, appPath: '/repo', resourcesPath: '/ignored' });
    expect(choice).toEqual({
      kind: 'electron-build',
      bindingPath: path.join('/repo', '.electron-native', 'linux-x64', 'better_sqlite3.node'),
      stampPath: path.join('/repo', '.electron-native', 'linux-x64', 'build.json'),
      packaged: false,
    });
    expect(checkoutBuildDir('/repo', electron)).toBe(path.join('/repo', '.electron-native', 'linux-x64'));
  });

  it('a packaged app loads the build unpacked from the asar', () => {
    const choice = chooseNativeBinding({ ...electron, platform: 'win32' }, { isPackaged: true, appPath: 'C:\\app\\resources\\app.asar', resourcesPath: '/opt/mc/resources' });
    expect(choice).toMatchObject({
      kind: 'electron-build',
      bindingPath: path.join('/opt/mc/resources', 'app.asar.unpacked', 'native', 'better_sqlite3.node'),
      packaged: true,
    });
  });

  it('Electron without a layout is a programming error', () => {
    expect(() => chooseNativeBinding(electron, null)).toThrow(/app layout/);
  });

  it('bindingMismatch explains a missing or foreign build before dlopen does', () => {
    const dev = chooseNativeBinding(electron, { isPackaged: false, appPath: '/repo', resourcesPath: '/r' });
    const fits = { ...target, abi: '150' };
    expect(bindingMismatch(dev, fits, true, electron)).toBeNull();
    expect(bindingMismatch(dev, fits, false, electron)).toMatch(/missing at .*better_sqlite3\.node; run `npm start`/);
    expect(bindingMismatch(dev, null, true, electron)).toMatch(/no readable build\.json/);
    expect(bindingMismatch(dev, { ...fits, abi: '140' }, true, electron)).toMatch(/made for ABI 140 on linux-x64, but this Electron 45\.4\.1 is ABI 150/);
    const packaged = chooseNativeBinding(electron, { isPackaged: true, appPath: '/a', resourcesPath: '/r' });
    expect(bindingMismatch(packaged, { ...fits, arch: 'arm64' }, true, electron)).toMatch(/reinstall merchant-console/);
    expect(bindingMismatch({ kind: 'node-default' }, null, false, node)).toBeNull();
  });
});

describe('the chosen binding is what gets loaded', () => {
  const nodeBuild = path.resolve('node_modules/better-sqlite3/build/Release/better_sqlite3.node');

  it('the data-dir lock and the service load the nativeBinding they are given', async () => {
    const dataDir = tempDir();
    const lock = acquireDataDirLock(dataDir, { nativeBinding: nodeBuild });
    const service = await openService({ dataDir, nativeBinding: nodeBuild });
    expect(await service.store.read((tx) => tx.get('SELECT 1 AS one'))).toEqual({ one: 1 });
    await service.close();
    lock.release();
  });

  it('a wrong path fails loudly instead of falling back to another build', async () => {
    const missing = path.join(tempDir(), 'better_sqlite3.node');
    expect(() => acquireDataDirLock(tempDir(), { nativeBinding: missing })).toThrow(/better_sqlite3\.node/);
    await expect(openService({ dataDir: tempDir(), nativeBinding: missing })).rejects.toThrow(/better_sqlite3\.node/);
  });
});
