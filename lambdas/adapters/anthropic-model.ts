import Anthropic from '@anthropic-ai/sdk';
import type { ModelClient } from '../agents/ports.ts';
import { translateModelError } from './model-errors.ts';
import { cappedRetryAfterFetch } from './model-retry-after.ts';
import { sdkModelClient } from './sdk-model-client.ts';

export interface AnthropicModelOptions {
  apiKey: string;
  /** The Messages API's base URL (a test's scripted model, the sandbox's demo model). @default the SDK's (ANTHROPIC_BASE_URL, else api.anthropic.com) */
  baseURL?: string;
  /**
   * Retries of transient failures (408, 409, 429, 5xx, 529 overloaded, timeouts, network), with the SDK's backoff.
   * @default 2
   */
  maxRetries?: number;
  /** Milliseconds one attempt may take. @default 120000 */
  timeoutMs?: number;
  /**
   * The longest `retry-after` (or `retry-after-ms`) the client waits out before a retry. The
   * SDK would wait whatever the API asks (an hour, for a 429 with `retry-after: 3600`); past
   * this, the call fails at once as unavailable with the asked wait, and the caller decides.
   * @default 30
   */
  maxRetryAfterSeconds?: number;
}

/**
 * The model port over `@anthropic-ai/sdk`. The SDK retries transient failures itself; what
 * is left after its retries becomes a `ModelCallError` (or a `MalformedModelReplyError` when
 * the API's answer is not JSON), which the agent runtime turns into `escalate`.
 */
export function createAnthropicModel(options: AnthropicModelOptions): ModelClient {
  const client = new Anthropic({
    apiKey: options.apiKey,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    maxRetries: options.maxRetries ?? 2,
    timeout: options.timeoutMs ?? 120_000,
    fetch: cappedRetryAfterFetch(options.maxRetryAfterSeconds ?? 30),
  });
  return sdkModelClient(client, (error) => translateModelError(error));
}
