import { defineConfig } from 'vitest/config';
import { isolatedTestFiles } from './test/support/isolation.ts';

// Files that touch process-wide state (the environment, Lambda handler modules, the sandbox, a
// browser) get a module graph of their own; the rest share their worker's, so the SDKs and
// aws-cdk-lib load once per worker instead of once per file (test/support/isolation.ts).
const isolated = isolatedTestFiles(import.meta.dirname);

export default defineConfig({
  test: {
    setupFiles: ['test/setup.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Handlers log through Powertools; tests assert behaviour, not log lines. Metrics off (dev mode).
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_DEV: 'true' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Sandbox tests bind ports and run real servers; two workers fit the 2-core machines.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: isolated, isolate: false },
      },
      { extends: true, test: { name: 'isolated', include: isolated, isolate: true } },
    ],
  },
});
