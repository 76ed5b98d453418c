import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          include: ['test/src-main/**/*.test.ts', 'test/src-shared/**/*.test.ts', 'test/scripts/**/*.test.ts', 'test/docs/**/*.test.ts', 'test/bench/**/*.test.ts'],
          environment: 'node',
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
      {
        // Console UI: components, composables, form rules, region cache (happy-dom, fake-indexeddb).
        plugins: [vue()],
        define: { __VUE_I18N_FULL_INSTALL__: 'true', __VUE_I18N_LEGACY_API__: 'false', __INTLIFY_PROD_DEVTOOLS__: 'false' },
        test: {
          name: 'renderer',
          include: ['test/src-renderer/**/*.test.ts'],
          environment: 'happy-dom',
          setupFiles: ['test/src-renderer/support/vue-warnings.ts'],
          testTimeout: 20_000,
        },
      },
      {
        // The console in headless Chromium against a real `serve --demo` (builds the console first when stale).
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/e2e/global-setup.ts'],
          testTimeout: 90_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
