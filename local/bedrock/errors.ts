/**
 * Bedrock Runtime's errors as the emulator answers them: the exception's name in the
 * `x-amzn-ErrorType` header, `{ "message": "..." }` as the body, and the HTTP status the
 * service model gives each exception (as `@aws-sdk/client-bedrock-runtime` declares them).
 */
export const BEDROCK_EXCEPTION_STATUS = {
  AccessDeniedException: 403,
  InternalServerException: 500,
  ModelErrorException: 424,
  ModelNotReadyException: 429,
  ModelTimeoutException: 408,
  ResourceNotFoundException: 404,
  ServiceQuotaExceededException: 400,
  ServiceUnavailableException: 503,
  ThrottlingException: 429,
  ValidationException: 400,
  /** Not in the service model: the signature layer in front of every AWS service. */
  MissingAuthenticationTokenException: 403,
  /** Not in the service model: an unknown operation path (API Gateway-style). */
  UnknownOperationException: 404,
} as const;

export type BedrockException = keyof typeof BEDROCK_EXCEPTION_STATUS;

/**
 * The Bedrock exception a Messages API error becomes: how Bedrock reports the same condition
 * of the model behind it (an overloaded model is 503 ServiceUnavailable, a rate limit 429 Throttling).
 */
export function bedrockExceptionFor(status: number): BedrockException {
  if (status === 429) return 'ThrottlingException';
  if (status === 529 || status === 503) return 'ServiceUnavailableException';
  if (status === 408 || status === 504) return 'ModelTimeoutException';
  if (status === 401 || status === 403) return 'AccessDeniedException';
  if (status === 404) return 'ResourceNotFoundException';
  if (status >= 500) return 'InternalServerException';
  return 'ValidationException';
}

export class BedrockEmulatorError extends Error {
  override readonly name = 'BedrockEmulatorError';
  constructor(
    readonly exception: BedrockException,
    message: string,
    options?: { cause: unknown },
  ) {
    super(message, options);
  }
}
