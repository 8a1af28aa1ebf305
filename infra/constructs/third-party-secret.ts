import { CfnOutput, Stack, Validations } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';

export interface ThirdPartySecretProps {
  /** What the secret holds, for the console. */
  readonly description: string;
  /**
   * Fields the operator fills in after deploying, with their placeholder text, e.g.
   * `{ botToken: 'REPLACE_WITH_SLACK_BOT_TOKEN' }`.
   */
  readonly placeholders: Record<string, string>;
  /** The field that gets a random value until the operator replaces it (nothing usable is in code). */
  readonly generatedField: string;
  /** Where the credential is issued and rotated, for the cdk-nag acknowledgment. */
  readonly issuedBy: string;
}

/**
 * A secret holding credentials issued by a third party (Slack, Anthropic). Secrets Manager
 * cannot rotate them: they are regenerated in the issuer's console and pasted in. The
 * template only has placeholders plus one random field, so no credential is in code.
 */
export class ThirdPartySecret extends Secret {
  constructor(scope: Construct, id: string, props: ThirdPartySecretProps) {
    super(scope, id, {
      description: props.description,
      generateSecretString: {
        secretStringTemplate: JSON.stringify(props.placeholders),
        generateStringKey: props.generatedField,
        excludePunctuation: true,
        passwordLength: 32,
      },
    });
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: `Issued by ${props.issuedBy}; Secrets Manager cannot rotate it, so it is rotated in that console and pasted here.`,
    });
  }
}

const secrets = new WeakMap<Stack, Map<string, ThirdPartySecret>>();

/**
 * The stack's third-party secret `id`, created on first request with its ARN as an output (to
 * put the credentials in): functions of several modules asking for one secret share it.
 */
export function thirdPartySecretOnce(
  scope: Construct,
  id: string,
  props: ThirdPartySecretProps,
): ThirdPartySecret {
  const stack = Stack.of(scope);
  let byId = secrets.get(stack);
  if (byId === undefined) {
    byId = new Map();
    secrets.set(stack, byId);
  }
  let secret = byId.get(id);
  if (secret === undefined) {
    secret = new ThirdPartySecret(stack, id, props);
    new CfnOutput(stack, `${id}SecretArn`, {
      value: secret.secretArn,
      description: `Put the ${id} credentials in this secret`,
    });
    byId.set(id, secret);
  }
  return secret;
}
