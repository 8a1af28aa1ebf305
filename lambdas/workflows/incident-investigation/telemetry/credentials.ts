import * as z from 'zod';
import { readJsonSecret } from '../../../adapters/secret-json.ts';
import { TELEMETRY_ENV } from './environment.ts';
import { InvalidTelemetryConfigurationError } from './errors.ts';

/**
 * Datadog's and PagerDuty's API credentials: the local overrides when set (sandbox, tests),
 * otherwise the JSON secret in Secrets Manager the stack created, cached by Powertools for
 * five minutes. Never logged.
 */

const DatadogSecret = z.object({ apiKey: z.string().min(1), appKey: z.string().min(1) });
export type DatadogCredentials = z.infer<typeof DatadogSecret>;
const PagerDutySecret = z.object({ token: z.string().min(1) });

async function readSecret<S extends z.ZodType>(
  arn: string | undefined,
  variable: string,
  schema: S,
): Promise<z.infer<S>> {
  if (!arn) throw new InvalidTelemetryConfigurationError(`${variable} is not set`);
  const raw = await readJsonSecret(arn);
  const parsed = schema.safeParse(raw);
  if (!parsed.success)
    throw new InvalidTelemetryConfigurationError(`secret ${arn} does not hold the expected JSON fields`, {
      cause: parsed.error,
    });
  return parsed.data;
}

export async function datadogCredentials(env: NodeJS.ProcessEnv = process.env): Promise<DatadogCredentials> {
  const apiKey = env[TELEMETRY_ENV.datadogApiKey];
  const appKey = env[TELEMETRY_ENV.datadogAppKey];
  if (apiKey && appKey) return { apiKey, appKey };
  return readSecret(env[TELEMETRY_ENV.datadogSecretArn], TELEMETRY_ENV.datadogSecretArn, DatadogSecret);
}

export async function pagerdutyToken(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const token = env[TELEMETRY_ENV.pagerdutyToken];
  if (token) return token;
  return (
    await readSecret(env[TELEMETRY_ENV.pagerdutySecretArn], TELEMETRY_ENV.pagerdutySecretArn, PagerDutySecret)
  ).token;
}
