import { Duration } from 'aws-cdk-lib';
import { Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { SlashCommandUsage } from '../../lambdas/kernel/slash-command-help.ts';
import { ENV } from '../../lambdas/shared/env.ts';
import { FailureQueue } from './failure-queue.ts';
import { ThirdPartySecret } from './third-party-secret.ts';

export interface IngressSourcesProps {
  /** The ingress function: it verifies every source's requests and enqueues them. */
  readonly ingress: IFunction & { addEnvironment(key: string, value: string): unknown };
  /** The slash commands some workflow handles: any other is answered "not a command this app handles". */
  readonly slashCommands: readonly string[];
  /**
   * What each slash command takes: `help`, an empty text or one the command cannot use is
   * answered with the command's usage at once.
   * @default - none: every command is passed on as typed
   */
  readonly slashCommandUsage?: readonly SlashCommandUsage[];
  /**
   * CloudWatch alarms whose state changes reach the ingress through an EventBridge rule: exact
   * names and name prefixes. With neither, no rule is created.
   * @default { names: [], namePrefixes: [] }
   */
  readonly alarms?: { readonly names: readonly string[]; readonly namePrefixes: readonly string[] };
}

/**
 * What the ingress takes besides Slack: the GitHub and PagerDuty webhook secrets,
 * the list of slash commands it passes on, and the EventBridge rule that invokes it with the
 * configured alarms' state changes. Kept apart from the stack so the stack only wires it.
 */
export class IngressSources extends Construct {
  readonly githubWebhookSecret: ThirdPartySecret;
  readonly pagerdutyWebhookSecret: ThirdPartySecret;
  readonly alarmRule: Rule | undefined;
  /**
   * With the alarm rule: the rule target's dead-letter queue (`AlarmEvents`: events EventBridge
   * could not deliver in its retries) and the ingress's asynchronous on-failure destination
   * (`IngressAsyncInvocations`: delivered events the ingress failed on after Lambda's retries).
   */
  readonly failureQueues: ReadonlyMap<string, IQueue>;

  constructor(scope: Construct, id: string, props: IngressSourcesProps) {
    super(scope, id);
    // The generated value is usable as it is: paste it into the repository's webhook settings.
    this.githubWebhookSecret = new ThirdPartySecret(this, 'GithubWebhookSecret', {
      description: 'GitHub webhook secret: { "secret": "..." } (also set in the webhook settings)',
      placeholders: {},
      generatedField: 'secret',
      issuedBy: "the operator, in GitHub's webhook settings",
    });
    this.pagerdutyWebhookSecret = new ThirdPartySecret(this, 'PagerdutyWebhookSecret', {
      description: 'PagerDuty V3 webhook signing secret: { "secret": "..." } (from the subscription)',
      placeholders: {},
      generatedField: 'secret',
      issuedBy: 'PagerDuty (the webhook subscription shows its signing secret once)',
    });
    const { ingress } = props;
    this.githubWebhookSecret.grantRead(ingress);
    this.pagerdutyWebhookSecret.grantRead(ingress);
    ingress.addEnvironment(ENV.githubWebhookSecretArn, this.githubWebhookSecret.secretArn);
    ingress.addEnvironment(ENV.pagerdutyWebhookSecretArn, this.pagerdutyWebhookSecret.secretArn);
    ingress.addEnvironment(ENV.slashCommands, JSON.stringify([...new Set(props.slashCommands)].sort()));
    if (props.slashCommandUsage !== undefined && props.slashCommandUsage.length > 0)
      ingress.addEnvironment(ENV.slashCommandUsage, JSON.stringify(props.slashCommandUsage));

    const names = props.alarms?.names ?? [];
    const prefixes = props.alarms?.namePrefixes ?? [];
    if (names.length + prefixes.length === 0) {
      this.alarmRule = undefined;
      this.failureQueues = new Map();
      return;
    }
    // An alarm's state change is delivered once: what fails for good is kept, not lost.
    const undelivered = new FailureQueue(this, 'AlarmEvents', {
      holds: 'alarm state changes EventBridge could not deliver to the ingress',
    });
    const failed = new FailureQueue(this, 'IngressAsyncInvocations', {
      holds:
        "the ingress's asynchronous invocations (alarm state changes) that failed after Lambda's retries",
    });
    // Only EventBridge invokes the ingress asynchronously; the Function URL's requests are synchronous.
    ingress.configureAsyncInvoke({
      onFailure: new SqsDestination(failed.queue),
      retryAttempts: 2,
      maxEventAge: Duration.hours(2),
    });
    this.alarmRule = new Rule(this, 'AlarmStateChanges', {
      description: 'CloudWatch alarm state changes of the configured alarms, to the ingress',
      eventPattern: {
        source: ['aws.cloudwatch'],
        detailType: ['CloudWatch Alarm State Change'],
        detail: { alarmName: [...names, ...prefixes.map((prefix) => ({ prefix }))] },
      },
      // The ingress throws only when the inbox failed it: worth retrying for a while.
      targets: [
        new LambdaFunction(ingress, {
          retryAttempts: 8,
          maxEventAge: Duration.hours(2),
          deadLetterQueue: undelivered.queue,
        }),
      ],
    });
    this.failureQueues = new Map([
      ['AlarmEvents', undelivered.queue],
      ['IngressAsyncInvocations', failed.queue],
    ]);
  }
}
