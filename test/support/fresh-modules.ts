import { afterAll, vi } from 'vitest';

/**
 * The setup of the `fresh` project (test/support/isolation.ts): the worker forgets the project's
 * own modules before the file loads, so the handlers, clients and caches the file imports are
 * built anew from its own environment, as in a process of its own; what it loaded from
 * node_modules stays (the SDKs, aws-cdk-lib). When the file ends, its spies and stubs are undone
 * (test/setup.ts puts the environment back).
 */
vi.resetModules();
afterAll(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});
