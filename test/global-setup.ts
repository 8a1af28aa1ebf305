import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sweepScratch } from './support/sweep-scratch.ts';
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
  const memo = runBuildMemo();
  if (process.env.SANDBOX_SYNTH_URL)
    return async () => {
      memo.remove();
      sweepScratch();
    };
  const server = await startSynthServer(process.cwd());
  process.env.SANDBOX_SYNTH_URL = server.url;
  return async () => {
    delete process.env.SANDBOX_SYNTH_URL;
    await server.close();
    memo.remove();
    sweepScratch();
  };
}

/**
 * One build memo for the run (SANDBOX_BUILD_MEMO_DIR, local/codebuild/build-memo.ts): the files
 * that opt in replay a build another file of any worker already ran on the same tree. It lives
 * for this run only, so no build is replayed from an earlier checkout of the project.
 */
function runBuildMemo(): { remove(): void } {
  if (process.env.SANDBOX_BUILD_MEMO_DIR) return { remove: () => undefined };
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-build-memo-'));
  process.env.SANDBOX_BUILD_MEMO_DIR = dir;
  return {
    remove: () => {
      delete process.env.SANDBOX_BUILD_MEMO_DIR;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
