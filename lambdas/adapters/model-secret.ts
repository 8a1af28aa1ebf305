import * as z from 'zod';
import { ENV, MissingConfigurationError } from '../shared/env.ts';
import { readJsonSecret } from './secret-json.ts';
import { InvalidSecretError } from './secrets.ts';

const ModelSecret = z.object({ apiKey: z.string().min(1) });

/**
 * The model API key: from `ANTHROPIC_API_KEY` when set (sandbox and local development),
 * otherwise from the Secrets Manager secret `MODEL_SECRET_ARN` (`{ "apiKey": "..." }`),
 * cached by Powertools for five minutes. The value is never logged.
 */
export async function getModelApiKey(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const apiKey = env[ENV.anthropicApiKey];
  if (apiKey) return apiKey;
  const arn = env[ENV.modelSecretArn];
  if (!arn) throw new MissingConfigurationError(`${ENV.modelSecretArn} (or ${ENV.anthropicApiKey})`);
  const raw = await readJsonSecret(arn);
  const parsed = ModelSecret.safeParse(raw);
  if (!parsed.success) throw new InvalidSecretError(arn, { cause: parsed.error });
  return parsed.data.apiKey;
}
