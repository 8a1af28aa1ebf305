import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import { MalformedModelReplyError, ModelCallError } from '../agents/errors.ts';

/**
 * Turns what a model SDK throws after its own retries into the agent runtime's errors. The
 * Anthropic and Bedrock clients share one error hierarchy (`@anthropic-ai/bedrock-sdk`
 * re-exports `@anthropic-ai/sdk`'s), so only how an HTTP error names its type and message
 * differs between providers: that part is the `describe` argument.
 */

/** The type and message an HTTP error carries, read the provider's way. */
export interface ApiErrorDescription {
  type?: string;
  message?: string;
}

/** A provider's reading of an HTTP error, e.g. the Anthropic API's `{type:'error', error:{type, message}}`. */
export type DescribeApiError = (error: APIError) => ApiErrorDescription;

/** The Anthropic API's error body: `{ "type": "error", "error": { "type": "...", "message": "..." } }`. */
export const describeAnthropicError: DescribeApiError = (error) => ({
  ...(error.type ? { type: error.type } : {}),
  ...(error.apiMessage ? { message: error.apiMessage } : {}),
});

/**
 * @param provider names the API in messages ("the model API", "Bedrock").
 */
export function translateModelError(
  error: unknown,
  describe: DescribeApiError = describeAnthropicError,
  provider = 'the model API',
): Error {
  if (error instanceof APIUserAbortError) {
    return new ModelCallError(
      'the model call was aborted at the turn deadline',
      { aborted: true },
      { cause: error },
    );
  }
  if (error instanceof APIConnectionTimeoutError) {
    return new ModelCallError(`${provider} timed out`, {}, { cause: error });
  }
  if (error instanceof APIConnectionError) {
    return new ModelCallError(`could not reach ${provider}: ${error.message}`, {}, { cause: error });
  }
  if (error instanceof APIError) {
    const { type, message } = describe(error);
    return new ModelCallError(
      `${provider} answered HTTP ${error.status ?? '?'}${type ? ` ${type}` : ''}: ${message ?? error.message}`,
      {
        ...(error.status !== undefined ? { status: error.status } : {}),
        ...(type ? { errorType: type } : {}),
      },
      { cause: error },
    );
  }
  if (error instanceof SyntaxError) {
    return new MalformedModelReplyError(`${provider} answered with invalid JSON`, { cause: error });
  }
  return error instanceof Error ? error : new ModelCallError(String(error), {}, { cause: error });
}
