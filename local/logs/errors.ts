/**
 * CloudWatch Logs API errors as the JSON 1.1 protocol sends them: HTTP 400 with
 * `{"__type": "<code>", "message": "..."}`; the AWS SDK turns `__type` into the error's name.
 * `MalformedQueryException` also carries `queryCompileError`, as Logs Insights sends it.
 */
export type LogsErrorCode =
  | 'InvalidParameterException'
  | 'MalformedQueryException'
  | 'ResourceNotFoundException'
  | 'ResourceAlreadyExistsException'
  | 'SerializationException'
  | 'UnknownOperationException';

export class LogsApiError extends Error {
  override readonly name = 'LogsApiError';
  constructor(
    readonly code: LogsErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
    options?: { cause: unknown },
  ) {
    super(message, options);
  }
}

export const invalidParameter = (message: string) => new LogsApiError('InvalidParameterException', message);

/** A Logs Insights query this emulator cannot compile: the real service's error shape, with where it stopped. */
export function malformedQuery(message: string, start: number, end: number): LogsApiError {
  return new LogsApiError('MalformedQueryException', message, {
    queryCompileError: { location: { startCharOffset: start, endCharOffset: end }, message },
  });
}
