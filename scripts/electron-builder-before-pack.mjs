/**
 * electron-builder `beforePack` hook: refuse to package an app that would
 * not start. The Electron build of better-sqlite3 for the target platform and
 * architecture must exist in .electron-native/ and fit the Electron being
 * packaged and the better-sqlite3 whose JavaScript ships with it
 * (`npm run package` makes the one for this machine first; see
 * scripts/electron-native.ts). Native modules cannot be cross-compiled, so
 * each OS is packaged on that OS.
 */
import fs from 'node:fs';
import path from 'node:path';

/** electron-builder's Arch enum (builder-util). */
const ARCH_NAMES = { 0: 'ia32', 1: 'x64', 2: 'armv7l', 3: 'arm64', 4: 'universal' };

export function checkNativeBuild({ projectDir, platform, arch, hostPlatform = process.platform }) {
  if (platform !== hostPlatform) {
    throw new Error(`cannot package for ${platform} on ${hostPlatform}: better-sqlite3 is a native module; package on ${platform}`);
  }
  const electronVersion = JSON.parse(fs.readFileSync(path.join(projectDir, 'node_modules', 'electron', 'package.json'), 'utf8')).version;
  // The app ships better-sqlite3's JavaScript from node_modules next to this binary: both must be the same release.
  const moduleVersion = JSON.parse(fs.readFileSync(path.join(projectDir, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')).version;
  const dir = path.join(projectDir, '.electron-native', `${platform}-${arch}`);
  const fix = `run \`npm run native:electron -- --arch ${arch}\` first`;
  if (!fs.existsSync(path.join(dir, 'better_sqlite3.node'))) {
    throw new Error(`no Electron build of better-sqlite3 for ${platform}-${arch} in ${dir}; ${fix}`);
  }
  let stamp;
  try {
    stamp = JSON.parse(fs.readFileSync(path.join(dir, 'build.json'), 'utf8'));
  } catch {
    throw new Error(`the Electron build of better-sqlite3 in ${dir} has no readable build.json; ${fix}`);
  }
  if (stamp.electronVersion !== electronVersion || stamp.platform !== platform || stamp.arch !== arch) {
    throw new Error(
      `the Electron build of better-sqlite3 in ${dir} is for Electron ${stamp.electronVersion} on ${stamp.platform}-${stamp.arch}, ` +
        `not Electron ${electronVersion} on ${platform}-${arch}; ${fix}`,
    );
  }
  if (stamp.moduleVersion !== moduleVersion) {
    throw new Error(
      `the Electron build of better-sqlite3 in ${dir} was compiled from better-sqlite3 ${stamp.moduleVersion}, ` +
        `but ${moduleVersion} is installed; ${fix}`,
    );
  }
  return { dir, electronVersion };
}

export default async function beforePack(context) {
  const arch = ARCH_NAMES[context.arch] ?? String(context.arch);
  checkNativeBuild({ projectDir: context.packager.projectDir, platform: context.electronPlatformName, arch });
}
