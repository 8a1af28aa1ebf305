import { defineConfig } from 'vitest/config';
import { SANDBOX_NODE_FLAGS } from './local/node-flags.ts';
import { freshModuleTestFiles, isolatedTestFiles, workerSandboxTestFiles } from './test/support/isolation.ts';

// Files that touch process-wide state get a module graph of their own: in a warm worker after a
// module reset when what they change can be undone (the environment, Lambda handler modules, the
// sandbox, spies), in a process of their own when not (module mocks, fake timers, globals); the
// rest share their worker's, so the SDKs and aws-cdk-lib load once per worker instead of once
// per file (test/support/isolation.ts).
const isolated = isolatedTestFiles(import.meta.dirname);
const fresh = freshModuleTestFiles(import.meta.dirname);
// Files that get their sandbox from the worker (test/support/sandbox.ts) run one after another in
// warm workers, which keep what node_modules loaded. SANDBOX_FILES=isolated runs them isolated
// instead, one process each, as before (to compare the two).
const sandboxFiles = workerSandboxTestFiles(import.meta.dirname);
const sandboxProject = process.env.SANDBOX_FILES === 'isolated' ? [] : sandboxFiles;
// TEST_CPU_PROFILE=<directory>: every worker writes V8's CPU profile of its life there, one
// `.cpuprofile` per worker process (docs/testing.md, "Measuring on a shared machine").
const cpuProfile = process.env.TEST_CPU_PROFILE
  ? ['--cpu-prof', `--cpu-prof-dir=${process.env.TEST_CPU_PROFILE}`]
  : [];

export default defineConfig({
  test: {
    setupFiles: ['test/setup.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Handlers log through Powertools; tests assert behaviour, not log lines. Metrics off (dev mode).
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_DEV: 'true' },
    // A test fails on no progress, never on a total: every wait on the sandbox, moto or a child
    // process gives up when nothing moved for a stated period (test/support/eventually.ts). These
    // two are only the backstop that ends a run whose test hangs without waiting on anything,
    // far above what the slowest file needs even on a machine loaded ten times over (the protocol
    // property test: about 10 minutes at a load average of 12 on 2 cores; docs/testing.md).
    testTimeout: 1_800_000,
    hookTimeout: 1_800_000,
    // Three workers on the 2-core machines: sandbox files spend much of their time waiting (for
    // a scaled wait, a child process, a synthesis), and a third worker keeps a core busy
    // meanwhile. Two measured the same as three, four slower: more contention, no idle gap left
    // to fill (docs/testing.md, "Where the suite's time goes").
    maxWorkers: 3,
    // A larger young generation for the workers: the SDK calls, emulators and property tests
    // make short-lived objects by the million, and with V8's default semi-spaces (16 MB at most)
    // their scavenges were about a tenth of a worker's CPU. At 64 MB, CPU profiles of the
    // wait/wake property test and the ingress fuzz test spend a third less in the collector.
    execArgv: [...SANDBOX_NODE_FLAGS, ...cpuProfile],
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: [...isolated, ...fresh, ...sandboxFiles],
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'fresh',
          include: fresh,
          isolate: false,
          setupFiles: ['test/support/fresh-modules.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          include: [...isolated, ...sandboxFiles.filter((file) => !sandboxProject.includes(file))],
          isolate: true,
        },
      },
      ...(sandboxProject.length > 0
        ? [{ extends: true as const, test: { name: 'sandbox', include: sandboxProject, isolate: false } }]
        : []),
    ],
  },
});
