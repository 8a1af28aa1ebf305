import { afterAll } from 'vitest';
import '../local/polyfills.ts';
import { logFileCpu } from './support/cpu-log.ts';
import { restoreEnvironment } from './support/environment.ts';

// Files that share a worker's modules (vitest.config.ts) also share its process: whatever a file
// sets in the environment is undone when it ends, so the next file starts from the same one.
const environment = { ...process.env };
afterAll(() => restoreEnvironment(environment));

if (process.env.TEST_CPU_LOG) logFileCpu(process.env.TEST_CPU_LOG);
