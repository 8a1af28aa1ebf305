import { Aws, CfnOutput, Duration, Stack } from 'aws-cdk-lib';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { type IQueue, Queue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct, type IConstruct } from 'constructs';
import * as z from 'zod';
import { AGENT_METRIC, AGENT_METRICS_SERVICE, METRICS_NAMESPACE } from '../../lambdas/shared/metric-names.ts';

/**
 * The stack configuration's `monitoring` section (infra/config-kernel.ts): who is mailed when an
 * alarm fires, and the model latency that counts as an outage.
 */
export const MonitoringSettingsSchema = z.strictObject({
  /**
   * Addresses subscribed to the alarm topic (each confirms the subscription from its mail).
   * @default [] (the topic `AlarmTopicArn` exists anyway: subscribe a pager or chat tool to it)
   */
  alarmEmails: z.array(z.email()).default([]),
  /**
   * The model calls' 90th percentile latency, in milliseconds, above which (for 15 minutes)
   * the model latency alarm fires.
   * @default 60000
   */
  modelLatencyP90Ms: z.number().int().positive().default(60_000),
});
export type MonitoringSettings = z.infer<typeof MonitoringSettingsSchema>;

export interface MonitoringProps {
  readonly settings: MonitoringSettings;
  /** Every function of the stack by id: errors and throttles of each. */
  readonly functions: ReadonlyMap<string, IFunction>;
  /** Every state machine by workflow name: failed, timed-out and aborted executions of each. */
  readonly stateMachines: ReadonlyMap<string, IStateMachine>;
  /** Dead-letter queues by the name of the queue they serve (see `deadLetterQueuesIn`). */
  readonly deadLetterQueues: ReadonlyMap<string, IQueue>;
  /** The function behind the Slack request URL (its Function URL's 5xx answers). */
  readonly ingress: IFunction;
}

/** Five minutes: the period of every alarm (Lambda and Step Functions publish each minute). */
const PERIOD = Duration.minutes(5);

/**
 * Alarms and a dashboard for the stack (plain aws-cdk-lib CloudWatch): a message in any
 * dead-letter queue, failed, timed-out or aborted executions per state machine, errors and
 * throttles per function, 5xx answers of the ingress's Function URL, model API errors and
 * latency and agent turns that failed (custom metrics in the `SlackAgents` namespace, see
 * lambdas/adapters/model-metrics.ts). Every alarm notifies one SNS topic (KMS-encrypted, TLS
 * only), with the configured e-mail subscriptions. Missing data is not breaching: the
 * metrics are sparse, a quiet hour is not an outage.
 */
export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly dashboard: Dashboard;
  /** Every alarm by a readable key, e.g. `dlq:Inbox`, `executions:bug_investigation`. */
  readonly alarms: ReadonlyMap<string, Alarm>;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    // CloudWatch cannot publish to a topic encrypted with the AWS managed SNS key: our own key,
    // usable by CloudWatch alarms.
    const key = new Key(this, 'AlarmTopicKey', {
      description: 'Encrypts the Slack agents alarm topic',
      enableKeyRotation: true,
    });
    key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    this.topic = new Topic(this, 'AlarmTopic', {
      displayName: 'Slack agents alarms',
      masterKey: key,
      enforceSSL: true,
    });
    for (const email of props.settings.alarmEmails) this.topic.addSubscription(new EmailSubscription(email));

    const alarms = new Map<string, Alarm>();
    const alarm = (key: string, metric: IMetric, options: AlarmOptions) => {
      const created = new Alarm(this, alarmId(key), {
        metric,
        threshold: options.threshold ?? 1,
        evaluationPeriods: options.evaluationPeriods ?? 1,
        comparisonOperator: options.comparison ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: options.description,
      });
      created.addAlarmAction(new SnsAction(this.topic));
      alarms.set(key, created);
      return created;
    };

    const dlqDepth = [...props.deadLetterQueues].map(([name, queue]) => {
      const metric = queue.metricApproximateNumberOfMessagesVisible({
        period: PERIOD,
        statistic: 'Maximum',
        label: name,
      });
      alarm(`dlq:${name}`, metric, {
        description: `Messages in the dead-letter queue of ${name}: a message could not be handled and waits for a redrive.`,
      });
      return metric;
    });

    const executionProblems = [...props.stateMachines].map(([name, stateMachine], index) => {
      // Ids unique across the dashboard's graph, which draws every state machine's expression.
      const [failed, timedOut, aborted] = ['failed', 'timedOut', 'aborted'].map((id) => `${id}${index}`);
      const metric = new MathExpression({
        expression: `FILL(${failed}, 0) + FILL(${timedOut}, 0) + FILL(${aborted}, 0)`,
        usingMetrics: {
          [`${failed}`]: stateMachine.metricFailed({ period: PERIOD, statistic: 'Sum' }),
          [`${timedOut}`]: stateMachine.metricTimedOut({ period: PERIOD, statistic: 'Sum' }),
          [`${aborted}`]: stateMachine.metricAborted({ period: PERIOD, statistic: 'Sum' }),
        },
        label: name,
        period: PERIOD,
      });
      alarm(`executions:${name}`, metric, {
        description: `Executions of ${name} that failed, timed out or were aborted.`,
      });
      return metric;
    });

    const errors: IMetric[] = [];
    const throttles: IMetric[] = [];
    for (const [name, fn] of props.functions) {
      const error = fn.metricErrors({ period: PERIOD, statistic: 'Sum', label: name });
      const throttle = fn.metricThrottles({ period: PERIOD, statistic: 'Sum', label: name });
      alarm(`errors:${name}`, error, { description: `Invocations of ${name} that failed.` });
      alarm(`throttles:${name}`, throttle, {
        description: `Invocations of ${name} throttled (concurrency limit reached).`,
      });
      errors.push(error);
      throttles.push(throttle);
    }

    const url = (metricName: string) =>
      new Metric({
        namespace: 'AWS/Lambda',
        metricName,
        dimensionsMap: { FunctionName: props.ingress.functionName },
        period: PERIOD,
        statistic: 'Sum',
        label: metricName,
      });
    alarm('ingress:5xx', url('Url5xxCount'), {
      description: 'The Slack request URL answered 5xx: Slack retries, then disables event delivery.',
    });

    const agentMetric = (metricName: string, statistic: string) =>
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName,
        dimensionsMap: { service: AGENT_METRICS_SERVICE },
        period: PERIOD,
        statistic,
        label: `${metricName} ${statistic}`,
      });
    const modelErrors = agentMetric(AGENT_METRIC.modelErrors, 'Sum');
    const modelLatency = agentMetric(AGENT_METRIC.modelLatency, 'p90');
    const turnsFailed = agentMetric(AGENT_METRIC.agentTurnsFailed, 'Sum');
    alarm('model:errors', modelErrors, {
      description: 'Model API calls that failed after the client retries.',
    });
    alarm('model:latency', modelLatency, {
      threshold: props.settings.modelLatencyP90Ms,
      evaluationPeriods: 3,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      description: `The model API's p90 latency stayed above ${props.settings.modelLatencyP90Ms} ms for 15 minutes.`,
    });
    alarm('agents:failed-turns', turnsFailed, {
      description: 'Agent turns that failed and escalated the conversation to people.',
    });

    this.alarms = alarms;
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `${Stack.of(this).stackName}-operations`,
      defaultInterval: Duration.hours(6),
    });
    const graph = (title: string, left: IMetric[], right: IMetric[] = []) =>
      new GraphWidget({ title, left, right, width: 12, height: 6 });
    this.dashboard.addWidgets(
      new AlarmStatusWidget({ title: 'Alarms', alarms: [...alarms.values()], width: 24, height: 4 }),
    );
    this.dashboard.addWidgets(
      graph('Dead-letter queues: messages visible', dlqDepth),
      graph('Executions failed, timed out or aborted', executionProblems),
    );
    this.dashboard.addWidgets(graph('Lambda errors', errors), graph('Lambda throttles', throttles));
    this.dashboard.addWidgets(
      graph('Slack request URL', [url('UrlRequestCount'), url('Url4xxCount'), url('Url5xxCount')]),
      graph('Model API', [agentMetric(AGENT_METRIC.modelLatency, 'p50'), modelLatency], [modelErrors]),
    );
    this.dashboard.addWidgets(graph('Agent turns that failed (escalated)', [turnsFailed]));

    new CfnOutput(Stack.of(this), 'AlarmTopicArn', {
      value: this.topic.topicArn,
      description:
        'SNS topic every alarm notifies: subscribe e-mail (monitoring.alarmEmails), chat or a pager',
    });
    new CfnOutput(Stack.of(this), 'DashboardUrl', {
      value: `https://${Aws.REGION}.console.aws.amazon.com/cloudwatch/home?region=${Aws.REGION}#dashboards:name=${this.dashboard.dashboardName}`,
      description: 'The CloudWatch dashboard of the alarms metrics',
    });
  }
}

interface AlarmOptions {
  readonly description: string;
  /** @default 1 */
  readonly threshold?: number;
  /** @default 1 */
  readonly evaluationPeriods?: number;
  /** @default GREATER_THAN_OR_EQUAL_TO_THRESHOLD */
  readonly comparison?: ComparisonOperator;
}

/**
 * Every dead-letter queue under `scope`, by the id of the queue it serves: found in the tree
 * rather than passed in, so a queue a module (or a later feature) adds is watched too.
 */
export function deadLetterQueuesIn(scope: IConstruct): Map<string, IQueue> {
  const found = new Map<string, IQueue>();
  for (const construct of scope.node.findAll()) {
    if (!(construct instanceof Queue) || construct.deadLetterQueue === undefined) continue;
    const owner = construct.node.scope;
    // InboxQueue-style constructs hold the queue as `Queue`: name it by its owner (`Inbox`).
    const name = construct.node.id === 'Queue' && owner !== undefined ? owner.node.id : construct.node.id;
    found.set(name, construct.deadLetterQueue.queue);
  }
  return found;
}

/** A construct id from an alarm key: `dlq:Inbox` -> `DlqInboxAlarm`. */
function alarmId(key: string): string {
  const words = key.split(/[^A-Za-z0-9]+/).filter((word) => word.length > 0);
  return `${words.map((word) => word[0]?.toUpperCase() + word.slice(1)).join('')}Alarm`;
}
