import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../infra/config.ts';
import { buildStack } from '../../infra/synth.ts';
import {
  createAgentMetrics,
  recordFailedTurn,
  withModelMetrics,
} from '../../lambdas/adapters/model-metrics.ts';
import { ModelCallError } from '../../lambdas/agents/errors.ts';
import type { ModelClient } from '../../lambdas/agents/ports.ts';
import { resourcesOfType } from './template.ts';

type Alarm = { Properties: Record<string, unknown> };

let stack: ReturnType<typeof buildStack>['stack'];
let template: Template;
let alarms: Alarm[];
let topicId: string;

beforeAll(() => {
  stack = buildStack().stack;
  template = Template.fromStack(stack);
  alarms = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm')) as Alarm[];
  topicId = Object.keys(resourcesOfType(template, 'AWS::SNS::Topic'))[0] ?? '';
});

/** The alarms watching `metricName` (alone or inside a math expression) with these dimension values. */
function alarmsOn(metricName: string, dimension?: unknown): Alarm[] {
  return alarms.filter((alarm) => {
    const text = JSON.stringify(alarm.Properties);
    return (
      text.includes(`"MetricName":"${metricName}"`) &&
      (dimension === undefined || text.includes(JSON.stringify(dimension)))
    );
  });
}

/** An alarm's one metric, in whichever form the template holds it (top level, or `Metrics` when labelled). */
function metricOf(alarm: Alarm | undefined): Record<string, unknown> {
  if (alarm === undefined) throw new Error('no such alarm');
  const p = alarm.Properties;
  const metrics = p.Metrics as
    | { MetricStat?: { Metric: Record<string, unknown>; Period: number; Stat: string } }[]
    | undefined;
  const stat = metrics?.[0]?.MetricStat;
  const common = {
    Threshold: p.Threshold,
    EvaluationPeriods: p.EvaluationPeriods,
    ComparisonOperator: p.ComparisonOperator,
  };
  if (stat !== undefined) return { ...stat.Metric, Period: stat.Period, Stat: stat.Stat, ...common };
  return {
    Namespace: p.Namespace,
    MetricName: p.MetricName,
    Dimensions: p.Dimensions,
    Period: p.Period,
    Stat: p.ExtendedStatistic ?? p.Statistic,
    ...common,
  };
}

function logicalIdOf(construct: { node: { defaultChild?: unknown } } | object): string {
  const child = (construct as { node: { defaultChild?: unknown } }).node.defaultChild ?? construct;
  return stack.getLogicalId(child as never);
}

describe('alarms', () => {
  it('every alarm notifies the alarm topic and treats missing data as fine', () => {
    expect(alarms.length).toBeGreaterThan(20);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
      expect(alarm.Properties.TreatMissingData).toBe('notBreaching');
      expect(alarm.Properties.AlarmDescription).toEqual(expect.any(String));
    }
  });

  it('fires on one message visible in any dead-letter queue', () => {
    const dlqs = Object.entries(resourcesOfType(template, 'AWS::SQS::Queue')).filter(([id]) =>
      Object.values(resourcesOfType(template, 'AWS::SQS::Queue')).some((queue) =>
        JSON.stringify(queue.Properties.RedrivePolicy ?? {}).includes(`"${id}"`),
      ),
    );
    // The inbox's and the channel replies queue's.
    expect(dlqs.length).toBeGreaterThanOrEqual(2);
    for (const [id] of dlqs) {
      const [alarm, ...others] = alarmsOn('ApproximateNumberOfMessagesVisible', {
        Name: 'QueueName',
        Value: { 'Fn::GetAtt': [id, 'QueueName'] },
      });
      expect(others).toEqual([]);
      expect(metricOf(alarm)).toMatchObject({
        Stat: 'Maximum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Period: 300,
      });
    }
  });

  it('fires on a failed, timed-out or aborted execution of each state machine', () => {
    expect(stack.stateMachines.size).toBeGreaterThanOrEqual(3);
    for (const stateMachine of stack.stateMachines.values()) {
      const dimension = { Name: 'StateMachineArn', Value: { Ref: logicalIdOf(stateMachine) } };
      const [alarm, ...others] = alarmsOn('ExecutionsFailed', dimension);
      expect(others).toEqual([]);
      const text = JSON.stringify(alarm?.Properties);
      for (const metric of ['ExecutionsFailed', 'ExecutionsTimedOut', 'ExecutionsAborted'])
        expect(text).toContain(`"MetricName":"${metric}"`);
      expect(alarm?.Properties).toMatchObject({ Threshold: 1, EvaluationPeriods: 1 });
    }
  });

  it('fires on errors and on throttles of each function', () => {
    expect(stack.functions.size).toBeGreaterThanOrEqual(8);
    for (const fn of stack.functions.values()) {
      const dimension = { Name: 'FunctionName', Value: { Ref: logicalIdOf(fn) } };
      expect(alarmsOn('Errors', dimension)).toHaveLength(1);
      expect(alarmsOn('Throttles', dimension)).toHaveLength(1);
    }
  });

  it("fires on a 5xx answer of the ingress's Function URL", () => {
    const ingress = stack.functions.get('Ingress');
    if (ingress === undefined) throw new Error('no ingress');
    const [alarm] = alarmsOn('Url5xxCount', { Name: 'FunctionName', Value: { Ref: logicalIdOf(ingress) } });
    expect(metricOf(alarm)).toMatchObject({ Namespace: 'AWS/Lambda', Stat: 'Sum', Threshold: 1 });
  });

  it('fires on model API errors, a slow model and failed agent turns (the SlackAgents metrics)', () => {
    const service = { Name: 'service', Value: 'agents' };
    expect(metricOf(alarmsOn('ModelErrors', service)[0])).toMatchObject({
      Namespace: 'SlackAgents',
      Stat: 'Sum',
      Threshold: 1,
    });
    expect(metricOf(alarmsOn('ModelLatency', service)[0])).toMatchObject({
      Namespace: 'SlackAgents',
      Stat: 'p90',
      Threshold: 60_000,
      EvaluationPeriods: 3,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(metricOf(alarmsOn('AgentTurnsFailed', service)[0])).toMatchObject({
      Namespace: 'SlackAgents',
      Threshold: 1,
    });
  });

  it('takes the model latency threshold from monitoring.modelLatencyP90Ms', () => {
    const configured = Template.fromStack(
      buildStack({ config: { monitoring: { modelLatencyP90Ms: 20_000 } } }).stack,
    );
    configured.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: [Match.objectLike({ MetricStat: Match.objectLike({ Stat: 'p90' }) })],
      Threshold: 20_000,
    });
  });
});

describe('the alarm topic and the dashboard', () => {
  it('encrypts the topic with a rotated key CloudWatch may use, and outputs its ARN', () => {
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          }),
        ]),
      },
    });
    template.hasOutput('AlarmTopicArn', { Value: { Ref: topicId } });
    template.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it('subscribes each address of monitoring.alarmEmails', () => {
    const mailed = Template.fromStack(
      buildStack({ config: { monitoring: { alarmEmails: ['oncall@example.com', 'lead@example.com'] } } })
        .stack,
    );
    mailed.resourceCountIs('AWS::SNS::Subscription', 2);
    mailed.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
    });
  });

  it('refuses an address that is not one, naming the field', () => {
    expect(() => parseConfig({ monitoring: { alarmEmails: ['oncall'] } })).toThrow(
      /slackAgents\.monitoring\.alarmEmails\.0/,
    );
    expect(() => parseConfig({ monitoring: { alarmEmail: [] } })).toThrow(
      /monitoring\.alarmEmail: unknown key; did you mean monitoring\.alarmEmails\?/,
    );
  });

  it('draws the same metrics on a dashboard, with the alarms', () => {
    const [dashboard] = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboard?.Properties.DashboardBody);
    for (const metric of [
      'ApproximateNumberOfMessagesVisible',
      'ExecutionsFailed',
      'Errors',
      'Throttles',
      'Url5xxCount',
      'ModelLatency',
      'ModelErrors',
      'AgentTurnsFailed',
    ])
      expect(body).toContain(metric);
    expect(body).toContain('alarms');
    template.hasOutput('DashboardUrl', Match.anyValue());
  });
});

describe('model and agent metrics (embedded metric format on stdout)', () => {
  const emitted: string[] = [];
  const message = { id: 'msg_1', content: [] } as unknown as Awaited<
    ReturnType<ModelClient['createMessage']>
  >;
  const params = { model: 'claude-test', max_tokens: 10, messages: [] };

  function metricsOnStdout() {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    // Powertools writes EMF with the global console in dev mode (as here), else to stdout.
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => {
      emitted.push(String(line));
    });
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      emitted.push(String(chunk));
      return true;
    });
    return createAgentMetrics();
  }
  const records = () =>
    emitted.flatMap((line) => {
      const record = JSON.parse(line) as { _aws?: { CloudWatchMetrics: { Namespace: string }[] } } & Record<
        string,
        unknown
      >;
      return record._aws === undefined ? [] : [record];
    });

  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
    emitted.length = 0;
  });

  it('emits the latency of a call that succeeded, in the SlackAgents namespace with service=agents', async () => {
    const metrics = metricsOnStdout();
    let clock = 1_000;
    const model = withModelMetrics(
      {
        createMessage: async () => {
          clock += 250;
          return message;
        },
      },
      { metrics, provider: 'anthropic', now: () => clock },
    );
    await model.createMessage(params);
    const [record] = records();
    expect(record).toMatchObject({
      service: 'agents',
      ModelLatency: 250,
      provider: 'anthropic',
      model: 'claude-test',
    });
    expect(record?._aws?.CloudWatchMetrics[0]?.Namespace).toBe('SlackAgents');
  });

  it('counts a call that failed after the retries, and not one aborted at the turn deadline', async () => {
    const metrics = metricsOnStdout();
    const failing = (details: { status?: number; aborted?: boolean }): ModelClient => ({
      createMessage: async () => {
        throw new ModelCallError('failed', details, { cause: undefined });
      },
    });
    await expect(
      withModelMetrics(failing({ status: 529 }), { metrics, provider: 'anthropic' }).createMessage(params),
    ).rejects.toThrow(ModelCallError);
    await expect(
      withModelMetrics(failing({ aborted: true }), { metrics, provider: 'anthropic' }).createMessage(params),
    ).rejects.toThrow(ModelCallError);
    const counted = records().filter((record) => 'ModelErrors' in record);
    expect(counted).toHaveLength(1);
    expect(counted[0]).toMatchObject({ ModelErrors: 1, status: '529' });
  });

  it('counts an agent turn that escalated because it failed, not one that escalated by decision', () => {
    const metrics = metricsOnStdout();
    expect(recordFailedTurn(metrics, { action: 'escalate' })).toBe(false);
    expect(recordFailedTurn(metrics, { action: 'continue' })).toBe(false);
    expect(recordFailedTurn(metrics, { action: 'escalate', error: 'the model API answered HTTP 500' })).toBe(
      true,
    );
    expect(records()).toEqual([expect.objectContaining({ AgentTurnsFailed: 1, service: 'agents' })]);
  });
});
