import { afterAll } from 'vitest';
import '../local/polyfills.ts';

// Files that share a worker's modules (vitest.config.ts) also share its process: whatever a file
// sets in the environment is undone when it ends, so the next file starts from the same one.
const environment = { ...process.env };
afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in environment)) delete process.env[name];
  Object.assign(process.env, environment);
});
