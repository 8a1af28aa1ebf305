import { createHash } from 'node:crypto';

/**
 * The bug workflow's work branch: `agents/bug-<short id>`, one per bug. The short
 * id is the first 12 hex digits of the conversation id's SHA-256: stable (a retried task, a
 * later turn get the same), short enough to read in a pull request, and unique in practice
 * (48 bits: for 10,000 bugs in one repository, a collision has odds of about 1 in 5 million).
 * Every place that names the branch asks this one function: "Check fix request" puts it in
 * the state, from where the fixer's tool context, the build and "Open pull request" take it,
 * and "Open pull request" checks it again.
 */

/** The code tools' default prefix, which the bug workflow keeps. */
export const WORK_BRANCH_PREFIX = 'agents/';

/** A bug's short id, derived from its conversation id. */
export function shortBugId(conversationId: string): string {
  return createHash('sha256').update(conversationId).digest('hex').slice(0, 12);
}

/** The work branch of the bug whose conversation this is. */
export function bugWorkBranch(conversationId: string): string {
  return `${WORK_BRANCH_PREFIX}bug-${shortBugId(conversationId)}`;
}
