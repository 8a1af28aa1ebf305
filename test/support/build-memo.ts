import { scratchDirectory } from '../../infra/scratch.ts';

/**
 * The sandbox option that turns on the CodeBuild emulator's build memo
 * (local/codebuild/build-memo.ts) for a harness asked for it: the run's memo
 * (SANDBOX_BUILD_MEMO_DIR, made by test/global-setup.ts), or one of its own outside a Vitest run.
 */
export function buildMemoOption(on: boolean | undefined): { buildMemo?: string } {
  if (on !== true) return {};
  return { buildMemo: process.env.SANDBOX_BUILD_MEMO_DIR ?? scratchDirectory('sandbox-build-memo-') };
}
