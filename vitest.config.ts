import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    // Handlers log through Powertools; tests assert behaviour, not log lines. Metrics off (dev mode).
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_DEV: 'true' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Sandbox tests bind ports and run real servers; two workers fit the 2-core machines.
    maxWorkers: 2,
  },
});
