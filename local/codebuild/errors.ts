/**
 * CodeBuild API errors as the JSON protocol sends them: HTTP 400 with
 * `{"__type": "<code>", "message": "..."}`; the AWS SDK turns `__type` into the error's name.
 */
export type CodeBuildErrorCode =
  | 'InvalidInputException'
  | 'ResourceNotFoundException'
  | 'ResourceAlreadyExistsException'
  | 'UnknownOperationException';

export class CodeBuildApiError extends Error {
  override readonly name = 'CodeBuildApiError';
  constructor(
    readonly code: CodeBuildErrorCode,
    message: string,
    options?: { cause: unknown },
  ) {
    super(message, options);
  }
}

export const invalidInput = (message: string, options?: { cause: unknown }) =>
  new CodeBuildApiError('InvalidInputException', message, options);
