/**
 * Vite config of the console UI. One bundle, two consumers: `npm run
 * build:console` (browser console served by `serve` at /console/, output
 * out/console) and the renderer section of electron.vite.config.ts (desktop,
 * output out/renderer). Relative base so the same files work under /console/
 * and the desktop's app:// protocol.
 *
 * electron-vite presets its renderer builds with `minify: false` and no
 * module-preload polyfill; every build option whose default differs between
 * the two is therefore set here, so both consumers emit the same files.
 */
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import vue from '@vitejs/plugin-vue';
import { defineConfig, type UserConfig } from 'vite';

const rendererRoot = fileURLToPath(new URL('.', import.meta.url));
const repoRoot = resolve(rendererRoot, '..');

export const CONSOLE_OUT_DIR = resolve(repoRoot, 'out/console');

/**
 * zod compiles object parsers with `new Function` unless it is "jitless", and
 * probes for that when a schema is built: under the console's CSP
 * (`script-src 'self'`, desktop and listener alike) the probe is reported as
 * a violation even though zod catches it. zod reads its config from a global
 * when its core module runs, so the chunk holding that module starts by
 * setting it — an import at the top of main.ts would run only after the
 * shared chunks, where the UI's schemas (src-shared) are built.
 */
const ZOD_CORE_MODULE = /[\\/]node_modules[\\/]zod[\\/]v4[\\/]core[\\/]core\.js$/;
const ZOD_JITLESS = '(globalThis.__zod_globalConfig ??= {}).jitless = true;';

export function rendererViteConfig(outDir: string = CONSOLE_OUT_DIR): UserConfig {
  return {
    root: rendererRoot,
    base: './',
    plugins: [vue()],
    define: {
      // vue-i18n: composition API only, no devtools hooks in production.
      __VUE_I18N_FULL_INSTALL__: 'true',
      __VUE_I18N_LEGACY_API__: 'false',
      __INTLIFY_PROD_DEVTOOLS__: 'false',
      __VUE_PROD_DEVTOOLS__: 'false',
      __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
    },
    server: { fs: { allow: [repoRoot] } },
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      minify: 'oxc',
      modulePreload: { polyfill: true },
      chunkSizeWarningLimit: 1500,
      rollupOptions: {
        input: resolve(rendererRoot, 'index.html'),
        output: { banner: (chunk) => (chunk.moduleIds.some((id) => ZOD_CORE_MODULE.test(id)) ? ZOD_JITLESS : '') },
      },
    },
  };
}

export default defineConfig(rendererViteConfig());
