import tseslint from 'typescript-eslint';
import pluginVue from 'eslint-plugin-vue';

const ELECTRON_RULE = { name: 'electron', message: 'Service code never imports electron; only src-main/desktop may.' };
const DRIVER_MESSAGE = 'Database drivers stay in src-main/store: services and repositories go through the store API (src-main/store/store.ts).';
const DRIVERS = ['better-sqlite3', 'pg', 'pg-pool', 'pg-protocol'];
const DRIVER_RULES = DRIVERS.map((name) => ({ name, message: DRIVER_MESSAGE }));
// Their subpaths too (pg/lib/…, better-sqlite3/lib/…): a driver by another door.
const DRIVER_PATTERNS = [{ group: DRIVERS.map((name) => `${name}/*`), message: DRIVER_MESSAGE }];
// With zod's superRefine (a closure per value it checks), Node 24 kept each request's inputs past young
// collections (src-shared/schemas/across-members.ts).
const NO_SUPER_REFINE = {
  selector: "CallExpression[callee.property.name='superRefine']",
  message: 'Use schema.check(acrossMembers(rule)) from src-shared/schemas/across-members.ts instead of superRefine.',
};

export default tseslint.config(
  { ignores: ['node_modules/', 'out/', 'dist/', 'release/', 'test-results/', 'coverage/', 'src-main/regions/data/', '**/*.d.ts'] },
  ...tseslint.configs.recommended,
  ...pluginVue.configs['flat/recommended'],
  {
    // The console UI: .vue single-file components with TypeScript in <script setup lang="ts">.
    files: ['src-renderer/**/*.vue'],
    languageOptions: { parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.vue'], sourceType: 'module' } },
    rules: {
      // Formatting is not the linter's job here; Naive UI components are PascalCase in templates.
      'vue/max-attributes-per-line': 'off',
      'vue/singleline-html-element-content-newline': 'off',
      'vue/multiline-html-element-content-newline': 'off',
      'vue/html-self-closing': 'off',
      'vue/html-indent': 'off',
      'vue/html-closing-bracket-newline': 'off',
      'vue/component-name-in-template-casing': ['error', 'PascalCase', { registeredComponentsOnly: false, ignores: ['component', 'template'] }],
      'vue/multi-word-component-names': 'off',
      'vue/no-v-html': 'error',
    },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': ['error', { paths: [ELECTRON_RULE, ...DRIVER_RULES], patterns: DRIVER_PATTERNS }],
      'no-restricted-syntax': ['error', NO_SUPER_REFINE],
    },
  },
  {
    // The store layer is the only place a database driver may be imported (services and repositories use the store API).
    files: ['src-main/store/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [ELECTRON_RULE] }] },
  },
  {
    // The desktop shell is the only place electron may be imported.
    files: ['src-main/desktop/**', 'electron.vite.config.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: DRIVER_RULES, patterns: DRIVER_PATTERNS }] },
  },
  {
    // Tests, benchmarks and scripts may reach the drivers (fault injection, reference servers, temp servers).
    files: ['test/**', 'bench/**', 'scripts/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
