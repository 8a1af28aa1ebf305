import { ModelProviderNotSupportedError } from '../agents/errors.ts';
import type { ModelClient } from '../agents/ports.ts';
import { redactionSettings } from '../redaction/index.ts';
import { ENV, MissingConfigurationError } from '../shared/env.ts';
import { redactingModel } from './redacting-model.ts';

/**
 * The model client the stack's configuration asks for (MODEL_PROVIDER), shared by AgentTurn
 * and the ChannelResponder so both honour the provider:
 * - `anthropic`: the Anthropic API with the key from MODEL_SECRET_ARN (or ANTHROPIC_API_KEY),
 *   at ANTHROPIC_BASE_URL when set;
 * - `bedrock`: Bedrock Runtime in the function's region (AWS_REGION) with the role's
 *   credentials, at AWS_ENDPOINT_URL_BEDROCK_RUNTIME when set. No secret is read.
 * Each provider's SDK (and the secret reader) is imported only when that provider is chosen:
 * a function's cold start does not pay for the providers it does not use. Every request passes
 * the redaction layer on its way out (redacting-model.ts).
 */
export async function modelClientFromEnv(
  env: NodeJS.ProcessEnv,
  options: { timeoutMs?: number; maxRetryAfterSeconds?: number } = {},
): Promise<ModelClient> {
  return redactingModel(await providerClient(env, options), redactionSettings(env), 'model');
}

async function providerClient(
  env: NodeJS.ProcessEnv,
  options: { timeoutMs?: number; maxRetryAfterSeconds?: number } = {},
): Promise<ModelClient> {
  const provider = env[ENV.modelProvider] ?? 'anthropic';
  const maxRetries = retriesFromEnv(env);
  const timeout = {
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.maxRetryAfterSeconds !== undefined
      ? { maxRetryAfterSeconds: options.maxRetryAfterSeconds }
      : {}),
  };
  if (provider === 'bedrock') {
    const baseURL = env[ENV.bedrockEndpointUrl];
    const { createBedrockModel } = await import('./bedrock-model.ts');
    const guardrail = guardrailFromEnv(env);
    return createBedrockModel({
      ...(baseURL ? { baseURL } : {}),
      ...(guardrail ? { guardrail } : {}),
      maxRetries,
      ...timeout,
    });
  }
  if (provider !== 'anthropic') throw new ModelProviderNotSupportedError(provider);
  const baseURL = env[ENV.anthropicBaseUrl];
  const [{ createAnthropicModel }, { getModelApiKey }] = await Promise.all([
    import('./anthropic-model.ts'),
    import('./model-secret.ts'),
  ]);
  return createAnthropicModel({
    apiKey: await getModelApiKey(env),
    ...(baseURL ? { baseURL } : {}),
    maxRetries,
    ...timeout,
    ...(options.maxRetryAfterSeconds !== undefined
      ? { maxRetryAfterSeconds: options.maxRetryAfterSeconds }
      : {}),
  });
}

function retriesFromEnv(env: NodeJS.ProcessEnv): number {
  const raw = env[ENV.modelMaxRetries];
  if (raw === undefined || raw === '') return 2;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new MissingConfigurationError(`${ENV.modelMaxRetries} (an integer >= 0)`);
  }
  return value;
}

function guardrailFromEnv(env: NodeJS.ProcessEnv): { id: string; version: string } | undefined {
  const raw = env[ENV.bedrockGuardrail];
  if (raw === undefined || raw === '') return undefined;
  try {
    const { id, version } = JSON.parse(raw) as { id?: unknown; version?: unknown };
    if (typeof id === 'string' && typeof version === 'string') return { id, version };
  } catch {
    // Reported below with the variable's name.
  }
  throw new MissingConfigurationError(`${ENV.bedrockGuardrail} (JSON { "id", "version" })`);
}
