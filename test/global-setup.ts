import { startSynthServer } from './support/synth-server.ts';

/**
 * One warm synthesis process for the whole run: every sandbox that misses the template cache
 * asks it (SANDBOX_SYNTH_URL, local/template-cache.ts) instead of loading aws-cdk-lib in a
 * process of its own. Workers inherit the variable, since they start after this runs.
 */
export default async function setup(): Promise<() => Promise<void>> {
  if (process.env.SANDBOX_SYNTH_URL) return async () => {};
  const server = await startSynthServer(process.cwd());
  process.env.SANDBOX_SYNTH_URL = server.url;
  return async () => {
    delete process.env.SANDBOX_SYNTH_URL;
    await server.close();
  };
}
