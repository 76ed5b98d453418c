/**
 * electron-vite: the desktop's three bundles.
 * - main     src-main/desktop/main.ts    → out/main/index.js (ESM; npm dependencies stay external and
 *                                          ship in node_modules, better-sqlite3 loads its Electron build)
 * - preload  src-main/desktop/preload.ts → out/preload/index.cjs (CommonJS, self-contained: a sandboxed
 *                                          preload can require nothing but electron's renderer modules)
 * - renderer src-renderer/index.html      → out/renderer (Vue; base './' so app:// and /console/ both work)
 *
 * ELECTRON_VITE_SKIP_RENDERER=1 builds main and preload only, ELECTRON_VITE_OUT_DIR=<dir> writes to
 * <dir>/{main,preload,renderer} instead of out/ (both for the bundle test, test/src-main/desktop/bundle.test.ts).
 */
import { resolve } from 'node:path';
import vue from '@vitejs/plugin-vue';
import { defineConfig, type UserConfig } from 'electron-vite';

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
  renderer: {
    root: resolve(root, 'src-renderer'),
    base: './',
    plugins: [vue()],
    build: {
      outDir: resolve(outRoot, 'renderer'),
      emptyOutDir: true,
      rolldownOptions: { input: resolve(root, 'src-renderer/index.html') },
    },
  },
};

if (process.env.ELECTRON_VITE_SKIP_RENDERER === '1') delete config.renderer;

export default defineConfig(config);
