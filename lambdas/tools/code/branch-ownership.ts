import { createHash } from 'node:crypto';
import { BranchRefusedError } from './errors.ts';

/**
 * Which work branches a conversation owns, decided from what the code knows, never from what
 * an invocation names: the branch derived from the conversation id
 * (`<prefix>bug-<first 12 hex digits of the id's SHA-256>`, the bug workflow's), and the branch
 * its workflow's own code recorded for it when it started (the issue pipeline's
 * `<prefix>issue-<n>`, recorded by its start step). A tool context naming any other branch,
 * another conversation's included, is refused before anything is read or written.
 */

/** The branch a workflow's code recorded as a conversation's own. */
export interface WorkBranchRecords {
  /** The recorded work branch, or undefined when none was. */
  recorded(conversationId: string): Promise<string | undefined>;
}

/** The first 12 hex digits of the conversation id's SHA-256: a short id stable across retries. */
export function conversationDigest(conversationId: string): string {
  return createHash('sha256').update(conversationId).digest('hex').slice(0, 12);
}

/** The work branch derived from a conversation id (the bug workflow's). */
function derivedWorkBranch(prefix: string, conversationId: string): string {
  return `${prefix}bug-${conversationDigest(conversationId)}`;
}

/**
 * Checks that `branch` is one `conversationId` owns; throws `BranchRefusedError` naming the
 * branches it does own otherwise. Without `records`, only the derived branch is owned.
 */
export async function assertOwnedBranch(
  branch: string,
  conversationId: string,
  prefix: string,
  records?: WorkBranchRecords,
): Promise<void> {
  const derived = derivedWorkBranch(prefix, conversationId);
  if (branch === derived) return;
  const recorded = await records?.recorded(conversationId);
  if (recorded !== undefined && branch === recorded) return;
  const own = [derived, ...(recorded === undefined ? [] : [recorded])].map((b) => JSON.stringify(b));
  throw new BranchRefusedError(
    branch,
    `it is not a work branch of conversation ${JSON.stringify(conversationId)} (its own: ${own.join(' or ')})`,
  );
}
