import os from 'node:os';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vitest/config';

/**
 * The integration suites that run on both engines: once in the `node`
 * project on SQLite, once in `postgres` on a PostgreSQL server of their own
 * (test/support/postgres-global-setup.ts; $MERCHANT_CONSOLE_TEST_DATABASE_URL
 * to use yours). Suites only about PostgreSQL live in test/src-main/store/postgres/.
 */
export const BOTH_ENGINES = [
  'test/src-main/http/merchant-api.test.ts',
  'test/src-main/http/idempotency.test.ts',
  'test/src-main/http/merchant-isolation.test.ts',
  'test/src-main/http/channel-notify.test.ts',
  'test/src-main/http/checkout.test.ts',
  'test/src-main/http/console-routes.test.ts',
  'test/src-main/http/sell-balance.test.ts',
  'test/src-main/http/held-withdrawal.test.ts',
  'test/src-main/http/alpha-sell-regions.test.ts',
  'test/src-main/http/bad-input.property.test.ts',
  'test/src-main/http/create-order-alone.test.ts',
  'test/src-main/http/list-alone.test.ts',
  'test/src-main/services/**/*.test.ts',
  'test/src-main/background/**/*.test.ts',
  'test/src-main/console-api/console-contract.test.ts',
  'test/src-main/repositories/**/*.test.ts',
  'test/src-main/cli/admin-commands.test.ts',
  'test/src-main/cli/money-commands.test.ts',
  'test/src-main/cli/sandbox-commands.test.ts',
  'test/src-main/cli/callback-commands.test.ts',
  'test/src-main/cli/account-commands.test.ts',
  'test/src-main/cli/serve-crash.test.ts',
  'test/src-main/store/store-api.test.ts',
  'test/src-main/store/row-generation.test.ts',
];

/**
 * Suites of the `node` project that build or drive the Electron and Chromium
 * bundles rather than run the service: left out of the `service` project,
 * which `npm run test:node22` and `npm run test:node24` run under those Node lines (scripts/test-node.sh).
 */
export const BROWSER_AND_PACKAGING = [
  'test/src-main/desktop/bundle.test.ts',
  'test/src-main/desktop/packaging.test.ts',
  'test/src-main/desktop/renderer-build.test.ts',
  'test/src-main/desktop/renderer-over-ipc.test.ts',
  'test/src-main/http/api-reference-browser.test.ts',
  'test/src-main/http/checkout-browser.test.ts',
];

/**
 * Suites of the `node` project that start processes (the CLI's bin, `serve`,
 * mount), build bundles or drive a browser. Everything else there runs
 * in-process on SQLite and is also the `unit` project: `npm run test:unit`,
 * the inner loop while editing (test/docs/test-commands.test.ts keeps a
 * process-starting suite out of it).
 */
export const OUT_OF_PROCESS = [
  ...BROWSER_AND_PACKAGING,
  'test/bench/lib/loop-probe.test.ts',
  'test/bench/lib/open-loop.test.ts',
  'test/docs/readme.test.ts',
  'test/scripts/build-cli.test.ts',
  'test/src-main/cli/console-serve.test.ts',
  'test/src-main/cli/money-commands.test.ts',
  'test/src-main/cli/sandbox-commands.test.ts',
  'test/src-main/cli/serve-command.test.ts',
  'test/src-main/cli/serve-crash.test.ts',
  'test/src-main/cli/serve-public-url.test.ts',
  'test/src-main/cli/serve-secrets.test.ts',
  'test/src-main/heap-policy.test.ts',
  'test/src-main/store/data-dir.test.ts',
  'test/src-main/store/storage-faults.test.ts',
  'test/src-shared/schemas/across-members.test.ts',
];

const NODE_SUITES = ['test/src-main/**/*.test.ts', 'test/src-shared/**/*.test.ts', 'test/scripts/**/*.test.ts', 'test/docs/**/*.test.ts', 'test/bench/**/*.test.ts'];
const POSTGRES_ONLY = 'test/src-main/store/postgres/**';

/** The node suites on SQLite but the `left out` ones. */
function nodeProject(name: string, leftOut: readonly string[]) {
  return { test: { name, include: NODE_SUITES, exclude: [POSTGRES_ONLY, ...leftOut], environment: 'node', testTimeout: 20_000, hookTimeout: 30_000 } };
}

export default defineConfig({
  test: {
    // One test file per core at a time. Vitest's default in a run is one fewer than the cores, so a
    // two-core CI machine ran one file at a time, the suites waiting on servers, disks and browsers with a
    // core idle (wall 11:20 against 7:26 for `npm test` there, every test passing in both; README, "Tests").
    maxWorkers: os.availableParallelism(),
    projects: [
      nodeProject('node', []),
      // Two parts of `node` that `npm test` does not run again: the in-process suites (`npm run test:unit`),
      // and the service-side ones (`npm run test:node22` / `test:node24`, under those Node lines; CLI options such as --exclude do not reach projects).
      nodeProject('unit', OUT_OF_PROCESS),
      nodeProject('service', BROWSER_AND_PACKAGING),
      {
        // The same integration suites on PostgreSQL, plus what only PostgreSQL has (several instances, its engine).
        test: {
          name: 'postgres',
          include: [...BOTH_ENGINES, 'test/src-main/store/postgres/**/*.test.ts'],
          environment: 'node',
          env: { MERCHANT_CONSOLE_TEST_ENGINE: 'postgres' },
          globalSetup: ['test/support/postgres-global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
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
