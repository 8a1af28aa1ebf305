/**
 * The base of an error that says what happened in its message and carries the error it rests
 * on (`cause`). Each subclass sets its own `name` (`override readonly name = '...'`): the name
 * is what a Step Functions Retry/Catch and the logs match on.
 */
export class DescribedError extends Error {
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
  }
}
