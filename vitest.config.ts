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
    ],
  },
});
