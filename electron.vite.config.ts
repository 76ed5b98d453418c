/**
 * electron-vite: the desktop's three bundles.
 * - main     src-main/desktop/main.ts    → out/main/index.js (ESM; npm dependencies stay external and
 *                                          ship in node_modules, better-sqlite3 loads its Electron build)
 * - preload  src-main/desktop/preload.ts → out/preload/index.cjs (CommonJS, self-contained: a sandboxed
 *                                          preload can require nothing but electron's renderer modules)
 * - renderer src-renderer/index.html      → out/renderer (src-renderer/vite.config.ts: Vue, base './' so app://
 *                                          and /console/ both work)
 *
 * ELECTRON_VITE_SKIP_RENDERER=1 builds main and preload only, ELECTRON_VITE_OUT_DIR=<dir> writes to
 * <dir>/{main,preload,renderer} instead of out/ (both for the bundle test, test/src-main/desktop/bundle.test.ts).
 */
import { resolve } from 'node:path';
import { defineConfig, type UserConfig } from 'electron-vite';
import { rendererViteConfig } from './src-renderer/vite.config';

const root = import.meta.dirname;
const outRoot = process.env.ELECTRON_VITE_OUT_DIR ? resolve(process.env.ELECTRON_VITE_OUT_DIR) : resolve(root, 'out');

const config: UserConfig = {
  main: {
    build: {
      outDir: resolve(outRoot, 'main'),
      rolldownOptions: {
        input: { index: resolve(root, 'src-main/desktop/main.ts') },
      },
    },
  },
  preload: {
    build: {
      outDir: resolve(outRoot, 'preload'),
      // Bundle everything it imports (the method list); only electron stays external.
      externalizeDeps: false,
      rolldownOptions: {
        input: { index: resolve(root, 'src-main/desktop/preload.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  // The console UI's own vite config (also used by `npm run build:console`): same bundle, another output dir.
  renderer: rendererViteConfig(resolve(outRoot, 'renderer')),
};

if (process.env.ELECTRON_VITE_SKIP_RENDERER === '1') delete config.renderer;

export default defineConfig(config);
