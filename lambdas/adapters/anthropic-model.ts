import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import { MalformedModelReplyError, ModelCallError } from '../agents/errors.ts';
import type { ModelClient } from '../agents/ports.ts';

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

/** Marks a response whose asked wait was over the cap: its seconds. */
const CAPPED_HEADER = 'x-agent-retry-after-capped';

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
  return {
    async createMessage(params, requestOptions = {}) {
      try {
        return await client.messages.create(params, {
          ...(requestOptions.signal ? { signal: requestOptions.signal } : {}),
        });
      } catch (error) {
        throw translate(error);
      }
    },
  };
}

/**
 * `fetch` that turns an asked wait over `capSeconds` into "do not retry" for the SDK
 * (`x-should-retry: false`), keeping the asked seconds in a header `translate` reads.
 */
function cappedRetryAfterFetch(capSeconds: number): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const asked = askedWaitSeconds(response.headers);
    if (asked === undefined || asked <= capSeconds) return response;
    const headers = new Headers(response.headers);
    headers.set('x-should-retry', 'false');
    headers.set(CAPPED_HEADER, String(Math.ceil(asked)));
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}

function askedWaitSeconds(headers: Headers): number | undefined {
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms)) return ms / 1000;
  const raw = headers.get('retry-after');
  if (raw === null) return undefined;
  const seconds = Number.parseFloat(raw);
  if (Number.isFinite(seconds)) return seconds;
  const date = Date.parse(raw);
  return Number.isFinite(date) ? (date - Date.now()) / 1000 : undefined;
}

function translate(error: unknown): Error {
  if (error instanceof APIUserAbortError) {
    return new ModelCallError(
      'the model call was aborted at the turn deadline',
      { aborted: true },
      { cause: error },
    );
  }
  if (error instanceof APIConnectionTimeoutError) {
    return new ModelCallError('the model API timed out', { unreachable: true }, { cause: error });
  }
  if (error instanceof APIConnectionError) {
    return new ModelCallError(
      `could not reach the model API: ${error.message}`,
      { unreachable: true },
      { cause: error },
    );
  }
  if (error instanceof APIError) {
    const type = error.type ?? undefined;
    const capped = Number(error.headers?.get(CAPPED_HEADER) ?? Number.NaN);
    return new ModelCallError(
      `the model API answered HTTP ${error.status ?? '?'}${type ? ` ${type}` : ''}: ${error.apiMessage ?? error.message}${Number.isFinite(capped) ? ` (it asked to wait ${capped} s)` : ''}`,
      {
        ...(error.status !== undefined ? { status: error.status } : {}),
        ...(type ? { errorType: type } : {}),
        ...(Number.isFinite(capped) ? { retryAfterSeconds: capped } : {}),
        // The server said not to retry this one (and it was not our cap that said so).
        ...(!Number.isFinite(capped) && error.headers?.get('x-should-retry') === 'false'
          ? { doNotRetry: true }
          : {}),
      },
      { cause: error },
    );
  }
  if (error instanceof SyntaxError) {
    return new MalformedModelReplyError('the model API answered with invalid JSON', { cause: error });
  }
  return error instanceof Error ? error : new ModelCallError(String(error), {}, { cause: error });
}
