import * as z from 'zod';
import type { BranchDiff } from './changed-files.ts';
import {
  describeProtected,
  findProtectedChanges,
  type ProtectedChangeHandling,
  type ProtectedPaths,
  protectedDiffExcerpt,
} from './protected-paths.ts';
import { testChanges, testChangesLine } from './test-changes.ts';

/**
 * The protected-paths gate before a pull request: on the branch's real diff, either nothing
 * protected changed (`clear`), or the change waits for an approver (`approval`, with the
 * message the approver sees: the files, why each is protected, and the start of their real
 * diff), or it is refused (`refused`, with the reason people are told).
 */

export const ProtectedGateVerdict = z.object({
  verdict: z.enum(['clear', 'approval', 'refused']),
  /** The head commit the verdict is about. */
  headSha: z.string(),
  /** The protected files, one line each (empty when clear). */
  files: z.array(z.string()),
  /** For people: why the change waits or was refused (empty when clear). */
  reason: z.string(),
  /** The approval request's text: the reason and the real diff of the protected files. */
  approvalText: z.string(),
  /**
   * The test files the branch adds, changes or deletes, one line (empty when none), whatever
   * the verdict: another approval (a failing check let through) shows it too.
   */
  tests: z.string().optional(),
});
export type ProtectedGateVerdict = z.infer<typeof ProtectedGateVerdict>;

/** A Slack section's text holds 3,000 characters: the request stays below it. */
const APPROVAL_TEXT_CHARS = 2_900;

export function protectedGate(
  diff: BranchDiff,
  rules: ProtectedPaths,
  handling: ProtectedChangeHandling,
  /** The longest approval text (the issue pipeline's hand-off carries at most 2,000 characters). */
  maxApprovalChars: number = APPROVAL_TEXT_CHARS,
): ProtectedGateVerdict {
  const found = findProtectedChanges(diff.files, rules);
  const files = found.map((c) => c.file.path);
  if (diff.incomplete) files.push('(more files than GitHub lists in one comparison)');
  const tests = testChangesLine(testChanges(diff));
  if (files.length === 0)
    return { verdict: 'clear', headSha: diff.headSha, files: [], reason: '', approvalText: '', tests };
  const listed = [
    describeProtected(found),
    ...(diff.incomplete
      ? ['• more files changed than GitHub lists in one comparison: they cannot all be checked']
      : []),
  ].join('\n');
  const what = `The change touches protected paths:\n${listed}`;
  if (handling === 'refuse') {
    return {
      verdict: 'refused',
      headSha: diff.headSha,
      files,
      reason: `${what}\nThis workflow refuses such changes, so no pull request is opened. A person can make this change themselves.`,
      approvalText: '',
      tests,
    };
  }
  const reason = `${what}\nAn approver must approve it before the pull request is opened.`;
  const excerpt = protectedDiffExcerpt(found);
  // The tests the branch changes come first: the diff excerpt below may be cut.
  const text = `${reason}${tests === '' ? '' : `\n${tests}`}\nThe diff of those files (commit ${diff.headSha.slice(0, 7)}):\n\`\`\`\n${excerpt}\n\`\`\``;
  return {
    verdict: 'approval',
    headSha: diff.headSha,
    files,
    reason,
    approvalText: text.length <= maxApprovalChars ? text : `${text.slice(0, maxApprovalChars - 6)}…\n\`\`\``,
    tests,
  };
}
