import * as z from 'zod';
import { ENV, type EnvName, MissingConfigurationError } from '../shared/env.ts';
import { readJsonSecret } from './secret-json.ts';

const SlackSecret = z.object({ signingSecret: z.string().min(1), botToken: z.string().min(1) });
export type SlackSecret = z.infer<typeof SlackSecret>;

export class InvalidSecretError extends Error {
  override readonly name = 'InvalidSecretError';
  constructor(
    readonly secretArn: string,
    options: { cause: unknown },
  ) {
    super(`secret ${secretArn} does not hold the expected JSON fields`, options);
  }
}

/**
 * Slack credentials: from the environment when both overrides are set (sandbox and local
 * development), otherwise from Secrets Manager, cached by Powertools for five minutes so a
 * warm Lambda does not call Secrets Manager per request. The values are never logged.
 */
export async function getSlackSecret(env: NodeJS.ProcessEnv = process.env): Promise<SlackSecret> {
  const signingSecret = env[ENV.slackSigningSecret];
  const botToken = env[ENV.slackBotToken];
  if (signingSecret && botToken) return { signingSecret, botToken };
  const arn = env[ENV.slackSecretArn];
  if (!arn)
    throw new MissingConfigurationError(
      `${ENV.slackSecretArn} (or ${ENV.slackSigningSecret} and ${ENV.slackBotToken})`,
    );
  const raw = await readJsonSecret(arn);
  const parsed = SlackSecret.safeParse(raw);
  if (!parsed.success) throw new InvalidSecretError(arn, { cause: parsed.error });
  return parsed.data;
}

const WebhookSecret = z.object({ secret: z.string().min(1) });

/**
 * A webhook signing secret (GitHub's, PagerDuty's): the local override when set, otherwise
 * the `{ "secret": "..." }` secret in Secrets Manager, cached for five minutes. Never logged.
 */
export async function getWebhookSecret(
  names: { override: EnvName; arn: EnvName },
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const override = env[names.override];
  if (override) return override;
  const arn = env[names.arn];
  if (!arn) throw new MissingConfigurationError(`${names.arn} (or ${names.override})`);
  const raw = await readJsonSecret(arn);
  const parsed = WebhookSecret.safeParse(raw);
  if (!parsed.success) throw new InvalidSecretError(arn, { cause: parsed.error });
  return parsed.data.secret;
}
