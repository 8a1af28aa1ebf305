/**
 * Errors of the log analysis engine. Each sets `name`, which is what a caller (a tool Lambda,
 * a Step Functions Catch) matches on.
 */

/** The input to an analysis function did not have the expected shape: the caller's mistake, not retryable. */
export class InvalidLogInputError extends Error {
  override readonly name = 'InvalidLogInputError';
  constructor(
    readonly what: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`invalid ${what}: ${message}`, options);
  }
}

/** A message was asked for the template of a group that does not hold it: a caller's mix-up of ids. */
export class UnknownTemplateGroupError extends Error {
  override readonly name = 'UnknownTemplateGroupError';
  constructor(
    readonly group: number,
    message: string,
  ) {
    super(message);
  }
}
