/**
 * Errors of the conversation kernel. Each sets `name`: a Lambda error's name is what a
 * Step Functions Retry or Catch matches, so these names are part of the state machines' contract.
 */

/** Input that does not match the task's schema: a defect in the caller, never retried. */
export class InvalidTaskInputError extends Error {
  override readonly name = 'InvalidTaskInputError';
  constructor(
    readonly task: string,
    options: { cause: unknown },
  ) {
    super(`invalid input for ${task}`, options);
  }
}

/** A conversation the task names does not exist: terminal. */
export class ConversationNotFoundError extends Error {
  override readonly name = 'ConversationNotFoundError';
  constructor(readonly conversationId: string) {
    super(`conversation ${conversationId} not found`);
  }
}

/** A stored item failed validation on read: the table holds something this code cannot read. */
export class CorruptItemError extends Error {
  override readonly name = 'CorruptItemError';
  constructor(
    readonly key: string,
    options: { cause: unknown },
  ) {
    super(`stored item ${key} does not match its schema`, options);
  }
}

/**
 * An approval wait names an approval that is no longer the one open of its kind (a later
 * post replaced it): nobody can decide it any more, so waiting would be in vain. Terminal.
 */
export class ApprovalNotOpenError extends Error {
  override readonly name = 'ApprovalNotOpenError';
  constructor(
    readonly conversationId: string,
    readonly kind: string,
  ) {
    super(`conversation ${conversationId}: the ${kind} approval this wait is for is no longer open`);
  }
}

/**
 * A stored record says a schema version this code cannot read: newer than it knows (written by
 * a later release, read after a rollback) or older than its oldest upgrade. Terminal: reading it
 * as if it were current would misread its fields.
 */
export class RecordVersionNotReadableError extends Error {
  override readonly name = 'RecordVersionNotReadableError';
  constructor(
    readonly key: string,
    readonly version: unknown,
    readonly readable: readonly number[],
  ) {
    super(
      `stored item ${key} has schema version ${String(version)}; this release reads ${readable.join(', ')}`,
    );
  }
}

/** A write names a key that belongs to no record kind of the table: a defect in the writer. */
export class UnknownRecordKindError extends Error {
  override readonly name = 'UnknownRecordKindError';
  constructor(readonly key: string) {
    super(`no record kind has the key ${key}: add it to kernel/record-versions.ts`);
  }
}
