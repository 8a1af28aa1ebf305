import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import type { ModelClient } from '../agents/ports.ts';
import { type DescribeApiError, translateModelError } from './model-errors.ts';
import { cappedRetryAfterFetch } from './model-retry-after.ts';
import { sdkModelClient } from './sdk-model-client.ts';

export interface BedrockModelOptions {
  /** The Bedrock Runtime region. @default the SDK's: `AWS_REGION` (set by Lambda), else us-east-1 */
  region?: string;
  /**
   * The Bedrock Runtime endpoint (the sandbox's emulator, a VPC endpoint). The SDK itself reads
   * only `ANTHROPIC_BEDROCK_BASE_URL`; the wiring passes the AWS convention
   * `AWS_ENDPOINT_URL_BEDROCK_RUNTIME` here.
   * @default the SDK's: `https://bedrock-runtime.<region>.amazonaws.com`
   */
  baseURL?: string;
  /** Retries of transient failures (408, 409, 429, 5xx, timeouts, network), with the SDK's backoff. @default 2 */
  maxRetries?: number;
  /** Milliseconds one attempt may take. @default 120000 */
  timeoutMs?: number;
  /** The longest `retry-after` the client waits out before a retry (see anthropic-model.ts). @default 30 */
  maxRetryAfterSeconds?: number;
  /**
   * A Bedrock Guardrail applied to every call: InvokeModel reads it from the
   * `X-Amzn-Bedrock-GuardrailIdentifier` and `X-Amzn-Bedrock-GuardrailVersion` headers.
   * @default - none
   */
  guardrail?: { id: string; version: string };
}

/**
 * Bedrock's error body is `{ "message": "..." }`; the exception's name (`ThrottlingException`,
 * `ValidationException`, `AccessDeniedException`...) is in the `x-amzn-ErrorType` header,
 * sometimes followed by `:<namespace>`.
 */
export const describeBedrockError: DescribeApiError = (error) => {
  const header = error.headers?.get('x-amzn-errortype') ?? undefined;
  const type = header?.split(':')[0];
  const body = error.error as { message?: unknown; Message?: unknown } | undefined;
  const message = body?.message ?? body?.Message;
  return {
    ...(type ? { type } : {}),
    ...(typeof message === 'string' ? { message } : {}),
  };
};

/**
 * The model port over `@anthropic-ai/bedrock-sdk` (Bedrock Runtime's InvokeModel with the
 * Messages API body). Requests are signed with SigV4 from the default AWS credential chain:
 * in Lambda, the function role's credentials in the environment; no API key is involved, so
 * a stray `AWS_BEARER_TOKEN_BEDROCK` never replaces the role. Errors after the SDK's retries
 * become the same `ModelCallError`s as the Anthropic adapter's.
 */
export function createBedrockModel(options: BedrockModelOptions = {}): ModelClient {
  const client = new AnthropicBedrock({
    apiKey: null,
    ...(options.region ? { awsRegion: options.region } : {}),
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    maxRetries: options.maxRetries ?? 2,
    timeout: options.timeoutMs ?? 120_000,
    fetch: cappedRetryAfterFetch(options.maxRetryAfterSeconds ?? 30),
    ...(options.guardrail
      ? {
          defaultHeaders: {
            'X-Amzn-Bedrock-GuardrailIdentifier': options.guardrail.id,
            'X-Amzn-Bedrock-GuardrailVersion': options.guardrail.version,
          },
        }
      : {}),
  });
  return sdkModelClient(client, (error) => translateModelError(error, describeBedrockError, 'Bedrock'));
}
