import { DescribedError } from '../shared/errors.ts';

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
    readonly details: {
      status?: number;
      errorType?: string;
      aborted?: boolean;
      /** The call timed out or could not connect. */
      unreachable?: boolean;
      /** Seconds the API asked to wait (`retry-after`), when it asked for more than the client waits. */
      retryAfterSeconds?: number;
      /** The API marked the failure as not worth retrying (`x-should-retry: false`). */
      doNotRetry?: boolean;
    },
    options: { cause: unknown },
  ) {
    super(message, options);
  }
}

/** The model answered with something the runtime cannot use (not a message, no tool call, bad JSON). */
export class MalformedModelReplyError extends DescribedError {
  override readonly name = 'MalformedModelReplyError';
}

/** The stack names a model provider this build does not know: terminal configuration error. */
export class ModelProviderNotSupportedError extends Error {
  override readonly name = 'ModelProviderNotSupportedError';
  constructor(readonly provider: string) {
    super(`MODEL_PROVIDER=${provider} is not a known model provider (expected anthropic or bedrock)`);
  }
}

/**
 * The model stayed unavailable (5xx, 529 overloaded, 429, a timeout, no connection) after the
 * client's own retries, or asked for a longer wait than a turn may spend. The turn ends with
 * this error, unsaved, so the state machine retries it with a backoff of minutes (the
 * `modelRetry` limits) before its Catch ends the conversation.
 */
export class ModelUnavailableError extends Error {
  override readonly name = 'ModelUnavailableError';
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}

/** `AGENT_LIMITS` is not valid JSON of `AgentLimits`: a deployment defect, never retried. */
export class InvalidAgentLimitsError extends Error {
  override readonly name = 'InvalidAgentLimitsError';
  constructor(options: { cause: unknown }) {
    super('AGENT_LIMITS is not a valid agent limits configuration', options);
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

/**
 * No price is known for the configured model (neither `modelPrices` nor the defaults of
 * pricing.ts): a configuration error, raised at synth, so no stack deploys whose cost
 * limits could not be held.
 */
export class InvalidModelPriceError extends Error {
  override readonly name = 'InvalidModelPriceError';
  constructor(
    readonly modelId: string,
    options?: { cause: unknown },
  ) {
    super(
      `no price is known for model "${modelId}": add it to modelPrices, e.g. "modelPrices": { "${modelId}": { "inputPerMillion": 3, "outputPerMillion": 15, "cacheWritePerMillion": 3.75, "cacheReadPerMillion": 0.3 } } (USD per million tokens)`,
      options,
    );
  }
}

/** `MODEL_PRICE` is not a valid `ModelPrice` (JSON): a deployment error, not retryable. */
export class InvalidModelPriceSettingError extends Error {
  override readonly name = 'InvalidModelPriceSettingError';
  constructor(options: { cause: unknown }) {
    super('MODEL_PRICE is not a valid model price (JSON, USD per million tokens)', options);
  }
}
