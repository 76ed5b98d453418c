import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'out/', 'dist/', 'release/', 'test-results/', 'coverage/', 'src-main/regions/data/', '**/*.d.ts'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'Service code never imports electron; only src-main/desktop may.' }] }],
    },
  },
  {
    // The desktop shell is the only place electron may be imported.
    files: ['src-main/desktop/**', 'test/src-main/desktop/**', 'electron.vite.config.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
