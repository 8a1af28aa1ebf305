/**
 * Errors of the Lambda Invoke emulator. The sandbox's `invoke` throws
 * `LambdaFunctionNotFoundError` for a name the template does not declare; the API answers it
 * as Lambda does, so the SDK raises `ResourceNotFoundException`.
 */
export class LambdaFunctionNotFoundError extends Error {
  override readonly name = 'LambdaFunctionNotFoundError';
  constructor(readonly functionName: string) {
    super(`Function not found: ${functionName}`);
  }
}
