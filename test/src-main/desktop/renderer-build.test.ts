/**
 * The desktop window and the browser console load the same bundle:
 * `electron-vite build` (renderer section = src-renderer's vite config, under
 * electron-vite's own renderer presets) must emit exactly the files that
 * `npm run build:console` emits — minified, not electron-vite's unminified
 * default.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const projectRoot = path.resolve(import.meta.dirname, '../../..');
let consoleDir: string;
let desktopDir: string;

/** Runs a build CLI as `npm run` would: outside vitest, whose NODE_ENV=test would make vite bundle Vue's dev build. */
function runBuild(cli: string, args: string[], env: Record<string, string> = {}): void {
  const { NODE_ENV: _ignored, ...parentEnv } = process.env;
  const result = spawnSync(process.execPath, [path.join(projectRoot, 'node_modules', cli), ...args], {
    cwd: projectRoot,
    env: { ...parentEnv, ...env },
    encoding: 'utf8',
    timeout: 180_000,
  });
  if (result.status !== 0) throw new Error(`${cli} failed (${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`);
}

function filesUnder(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => fs.statSync(path.join(dir, f)).isFile())
    .sort();
}

beforeAll(() => {
  fs.mkdirSync(path.join(projectRoot, 'out'), { recursive: true });
  const root = fs.mkdtempSync(path.join(projectRoot, 'out', '.renderer-build-test-'));
  consoleDir = path.join(root, 'console');
  desktopDir = path.join(root, 'desktop');
  runBuild('vite/bin/vite.js', ['build', '--config', 'src-renderer/vite.config.ts', '--outDir', consoleDir, '--logLevel', 'error']);
  runBuild('electron-vite/bin/electron-vite.js', ['build'], { ELECTRON_VITE_OUT_DIR: desktopDir });
  return () => fs.rmSync(root, { recursive: true, force: true });
}, 240_000);

describe('renderer bundle of the desktop build', () => {
  it('is the browser console bundle, file for file and byte for byte', () => {
    const desktopRenderer = path.join(desktopDir, 'renderer');
    const files = filesUnder(consoleDir);
    expect(files).toContain('index.html');
    expect(filesUnder(desktopRenderer)).toEqual(files);
    for (const file of files) {
      const same = fs.readFileSync(path.join(desktopRenderer, file)).equals(fs.readFileSync(path.join(consoleDir, file)));
      expect(same, `${file} differs between the desktop and the console build`).toBe(true);
    }
  });

  it('is minified', () => {
    const scripts = filesUnder(consoleDir).filter((f) => f.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(5);
    for (const file of scripts) {
      const text = fs.readFileSync(path.join(consoleDir, file), 'utf8');
      // Unminified output has thousands of indented statements (about 20,000 across the bundle); minified, none
      // but what string literals hold, which a minifier keeps: zod (the sign-in and console contracts' schemas)
      // generates its object parsers from template strings, about 20 such lines.
      const indented = text.split('\n').filter((line) => /^\s+(const|let|return|if) /.test(line));
      expect(indented.length, `${file} looks unminified:\n${indented.slice(0, 5).join('\n')}`).toBeLessThan(50);
    }
  });
});
