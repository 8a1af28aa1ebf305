import { CfnOutput, type Stack } from 'aws-cdk-lib';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';

/**
 * The stack outputs the deploy guide (README, "Deploy") pastes from: every
 * URL to give Slack, GitHub and PagerDuty, the name of every secret to fill in, the dead-letter
 * queue to redrive from, and each workflow's state machine (to watch a first conversation).
 * Outputs sit on the stack itself, so their names are the plain ids below.
 */
/** What an output needs of a secret: its name (exactOptionalPropertyTypes keeps Secret from ISecret). */
type NamedSecret = Pick<Secret, 'secretName'>;

export interface DeployOutputsProps {
  /** The ingress's Function URL (ends with `/`). */
  readonly functionUrl: string;
  readonly secrets: {
    readonly slack: NamedSecret;
    /** Absent with Bedrock (the functions' roles authenticate). */
    readonly model: NamedSecret | undefined;
    readonly githubWebhook: NamedSecret;
    readonly pagerdutyWebhook: NamedSecret;
  };
  readonly inboxDeadLetterQueueUrl: string;
  /** By workflow name (`bug_investigation`). */
  readonly stateMachines: ReadonlyMap<string, StateMachine>;
}

/** The output ids the README and docs/deploy.md name (test/infra/deploy-outputs.test.ts holds them to it). */
const DEPLOY_OUTPUTS = {
  githubWebhookUrl: 'GitHubWebhookUrl',
  pagerdutyWebhookUrl: 'PagerDutyWebhookUrl',
  slackSecret: 'SlackCredentialsSecretName',
  modelSecret: 'ModelCredentialsSecretName',
  githubWebhookSecret: 'GitHubWebhookSecretName',
  pagerdutyWebhookSecret: 'PagerDutyWebhookSecretName',
  inboxDeadLetterQueueUrl: 'InboxDeadLetterQueueUrl',
} as const;

/** `bug_investigation` -> `BugInvestigationStateMachineArn`. */
function stateMachineOutputId(workflow: string): string {
  const pascal = workflow
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== '')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
  return `${pascal}StateMachineArn`;
}

export function addDeployOutputs(stack: Stack, props: DeployOutputsProps): void {
  const O = DEPLOY_OUTPUTS;
  new CfnOutput(stack, O.githubWebhookUrl, {
    value: `${props.functionUrl}github/events`,
    description:
      'GitHub webhook Payload URL (content type application/json; events: Issues, Issue comments, Pull request reviews)',
  });
  new CfnOutput(stack, O.pagerdutyWebhookUrl, {
    value: `${props.functionUrl}pagerduty/events`,
    description: 'PagerDuty V3 webhook subscription URL (incident events)',
  });
  new CfnOutput(stack, O.slackSecret, {
    value: props.secrets.slack.secretName,
    description:
      'Secret to fill with {"signingSecret": "<Signing Secret>", "botToken": "xoxb-..."} of the Slack app',
  });
  if (props.secrets.model !== undefined) {
    new CfnOutput(stack, O.modelSecret, {
      value: props.secrets.model.secretName,
      description: 'Secret to fill with {"apiKey": "<Anthropic API key>"}',
    });
  }
  new CfnOutput(stack, O.githubWebhookSecret, {
    value: props.secrets.githubWebhook.secretName,
    description:
      'Secret {"secret": "..."}: generated at deploy; paste its value as the GitHub webhook secret (or put yours here)',
  });
  new CfnOutput(stack, O.pagerdutyWebhookSecret, {
    value: props.secrets.pagerdutyWebhook.secretName,
    description: 'Secret to fill with {"secret": "<the PagerDuty subscription signing secret>"}',
  });
  new CfnOutput(stack, O.inboxDeadLetterQueueUrl, {
    value: props.inboxDeadLetterQueueUrl,
    description: "The inbox's dead-letter queue (redrive with scripts/redrive-dead-letters.ts)",
  });
  for (const [workflow, stateMachine] of props.stateMachines) {
    new CfnOutput(stack, stateMachineOutputId(workflow), {
      value: stateMachine.stateMachineArn,
      description: `The ${workflow} state machine (one execution per conversation)`,
    });
  }
}
