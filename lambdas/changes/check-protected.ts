import type { Octokit } from '@octokit/rest';
import * as z from 'zod';
import { type ProtectedGateVerdict, protectedGate } from './gate.ts';
import { ProtectedChangeHandling, type ProtectedPaths } from './protected-paths.ts';
import { readBranchDiff } from './read-branch-diff.ts';

/** Input of "Check protected changes" (the bug workflow's fix path). */
export const CheckProtectedChangesInput = z.object({
  conversationId: z.string().min(1),
  /** The work branch whose diff is judged. */
  branch: z.string().min(1),
  /** What the workflow does with a protected change (its `protectedChanges` setting). */
  handling: ProtectedChangeHandling,
});
export type CheckProtectedChangesInput = z.infer<typeof CheckProtectedChangesInput>;

/** The gate on the work branch's real diff against the repository's default branch (or `base`). */
export async function checkProtectedChanges(
  octokit: Octokit,
  repository: { owner: string; repo: string },
  input: { branch: string; base?: string; handling: ProtectedChangeHandling },
  rules: ProtectedPaths,
  maxApprovalChars?: number,
): Promise<ProtectedGateVerdict> {
  const base = input.base ?? (await octokit.rest.repos.get(repository)).data.default_branch;
  const diff = await readBranchDiff(octokit, repository, base, input.branch);
  return protectedGate(diff, rules, input.handling, maxApprovalChars);
}
