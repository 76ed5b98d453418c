/**
 * Electron main-process entry (bundled by electron-vite to out/main/index.js).
 * Paths are relative to the bundle: out/preload/index.cjs, out/renderer/.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runDesktop } from './desktop-app';

const outDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

runDesktop({
  preloadPath: path.join(outDir, 'preload', 'index.cjs'),
  rendererDir: path.join(outDir, 'renderer'),
});
