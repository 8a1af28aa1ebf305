import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';

let provider: SecretsProvider | undefined;

/**
 * A JSON secret from Secrets Manager, cached for five minutes so a warm Lambda does not call
 * Secrets Manager per request. The provider is this module's own, built on first use from the
 * environment of that moment, rather than Powertools' process-wide default: a module evaluated
 * anew (a test file's, a restarted sandbox's handlers) then never reads through a client built
 * for another endpoint. The value is never logged.
 */
export function readJsonSecret(arn: string): Promise<unknown> {
  provider ??= new SecretsProvider();
  return provider.get(arn, { transform: 'json', maxAge: 300 });
}
