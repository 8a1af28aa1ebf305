import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Sandbox tests bind ports and run real servers; two workers fit the 2-core machines.
    maxWorkers: 2,
  },
});
