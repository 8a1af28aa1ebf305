import { DescribedError } from '../../shared/errors.ts';

/** The issue pipeline's errors: each sets `name`, which a state machine's Retry/Catch matches. */

/** The conversation has no pipeline document (a wrong id, or a start that never ran). */
export class DocumentNotFoundError extends Error {
  override readonly name = 'DocumentNotFoundError';
  constructor(
    readonly conversationId: string,
    options?: { cause: unknown },
  ) {
    super(`conversation ${conversationId} has no issue pipeline document`, options);
  }
}

/** A document that does not match the design's schema: never stored, never used. */
export class InvalidDocumentError extends Error {
  override readonly name = 'InvalidDocumentError';
  constructor(
    readonly conversationId: string,
    readonly issues: string,
    options?: { cause: unknown },
  ) {
    super(`the issue pipeline document of ${conversationId} is invalid:\n${issues}`, options);
  }
}

/** The pipeline's start was given something that is not an issue of its repository. */
export class NotAnIssueError extends DescribedError {
  override readonly name = 'NotAnIssueError';
}

/** The base commit's build finished, but the change's own results were not kept before it. */
export class BranchResultsMissingError extends Error {
  override readonly name = 'BranchResultsMissingError';
  constructor(readonly conversationId: string) {
    super(`the change's build results of ${conversationId} were not kept while the base commit built`);
  }
}
