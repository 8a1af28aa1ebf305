import { Validations } from 'aws-cdk-lib';
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
