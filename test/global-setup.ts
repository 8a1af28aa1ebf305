import { sweepScratch } from '../infra/scratch.ts';
import { startSynthServer } from './support/synth-server.ts';

/**
 * One warm synthesis process for the whole run: every sandbox that misses the template cache
 * asks it (SANDBOX_SYNTH_URL, local/template-cache.ts) instead of loading aws-cdk-lib in a
 * process of its own. Workers inherit the variable, since they start after this runs.
 */
export default async function setup(): Promise<() => Promise<void>> {
  // Test workers end by a signal, before their exit hooks run: their scratch folders
  // (infra/scratch.ts) are removed here, at the end of the run, and any an earlier run left.
  sweepScratch();
  if (process.env.SANDBOX_SYNTH_URL) return async () => void sweepScratch();
  const server = await startSynthServer(process.cwd());
  process.env.SANDBOX_SYNTH_URL = server.url;
  return async () => {
    delete process.env.SANDBOX_SYNTH_URL;
    await server.close();
    sweepScratch();
  };
}
