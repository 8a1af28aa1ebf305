/**
 * Errors of the agent runtime. Each sets `name`: a Lambda error's name is what a Step
 * Functions Retry or Catch matches. Model failures never leave AgentTurn as errors (the turn
 * returns `escalate` instead); these classes carry them from the adapter to the runtime.
 */

/** The model API failed after the client's own retries (HTTP 5xx, 529 overloaded, 429, timeouts, network). */
export class ModelCallError extends Error {
  override readonly name = 'ModelCallError';
  constructor(
    message: string,
    readonly details: { status?: number; errorType?: string; aborted?: boolean },
    options: { cause: unknown },
  ) {
    super(message, options);
  }
}

/** The model answered with something the runtime cannot use (not a message, no tool call, bad JSON). */
export class MalformedModelReplyError extends Error {
  override readonly name = 'MalformedModelReplyError';
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
  }
}

/** The stack asks for a model provider this build cannot serve: terminal configuration error. */
export class ModelProviderNotSupportedError extends Error {
  override readonly name = 'ModelProviderNotSupportedError';
  constructor(readonly provider: string) {
    super(
      provider === 'bedrock'
        ? 'MODEL_PROVIDER=bedrock is not supported yet: @anthropic-ai/bedrock-sdk is not part of this build; use MODEL_PROVIDER=anthropic'
        : `MODEL_PROVIDER=${provider} is not a known model provider (expected anthropic or bedrock)`,
    );
  }
}

/** AgentTurn was asked for a role its workflow does not have: a wiring error, not retried. */
export class ProfileNotFoundError extends Error {
  override readonly name = 'ProfileNotFoundError';
  constructor(
    readonly profile: string,
    readonly known: readonly string[],
  ) {
    super(`no agent profile "${profile}" here (this function serves: ${known.join(', ') || 'none'})`);
  }
}
