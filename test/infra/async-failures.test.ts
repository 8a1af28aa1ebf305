import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../infra/config.ts';
import { ALL_OPTIONS_CONFIG } from './all-options.ts';
import {
  functionResource,
  onlyResource,
  type Resource,
  renderIntrinsics,
  resourcesOfType,
  templateOf,
} from './template.ts';

/**
 * What keeps the stack's edges from failing silently: the ingress's reserved concurrency,
 * a failure destination or dead-letter queue (with its alarm) for every asynchronous
 * invocation, the Step Functions log groups' vended-logs names, and CodeBuild log reads
 * scoped to the stack's own projects.
 */
const template = templateOf({ config: ALL_OPTIONS_CONFIG });
const queues = resourcesOfType(template, 'AWS::SQS::Queue');
const alarms = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm'));

/** The logical id of the queue an ARN (Fn::GetAtt queue.Arn) names. */
function queueOf(arn: unknown): string {
  const id = (arn as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt']?.[0];
  if (id === undefined || !(id in queues))
    throw new Error(`not a queue of the stack: ${JSON.stringify(arn)}`);
  return id;
}

/** The alarm on a queue's visible messages (`dlq:<name>` of the monitoring), if any. */
function depthAlarmOf(queueId: string): Resource | undefined {
  return alarms.find((alarm) => {
    const text = JSON.stringify(alarm.Properties);
    return text.includes('ApproximateNumberOfMessagesVisible') && text.includes(`"${queueId}"`);
  });
}

describe('the ingress', () => {
  it('reserves 50 concurrent executions by default, and what is configured', () => {
    const [, byDefault] = functionResource(templateOf(), 'Ingress');
    expect(byDefault.Properties.ReservedConcurrentExecutions).toBe(50);
    const [, configured] = functionResource(
      templateOf({ config: { ingressReservedConcurrency: 20 } }),
      'Ingress',
    );
    expect(configured.Properties.ReservedConcurrentExecutions).toBe(20);
  });

  it('reserves none when told null, and refuses a reservation that is not a positive integer', () => {
    const [, none] = functionResource(
      templateOf({ config: { ingressReservedConcurrency: null } }),
      'Ingress',
    );
    expect(none.Properties).not.toHaveProperty('ReservedConcurrentExecutions');
    expect(() => parseConfig({ ingressReservedConcurrency: 0 })).toThrow(/ingressReservedConcurrency/);
    expect(() => parseConfig({ ingressReservedConcurrency: 2.5 })).toThrow(/ingressReservedConcurrency/);
  });
});

describe('asynchronous invocations', () => {
  const invokeConfigs = Object.values(resourcesOfType(template, 'AWS::Lambda::EventInvokeConfig'));
  const functionOf = (config: Resource) =>
    Object.entries(resourcesOfType(template, 'AWS::Lambda::Function')).find(
      ([id]) => (config.Properties.FunctionName as { Ref?: string }).Ref === id,
    )?.[1].Metadata?.['slack-agents:function'];

  it('keep what fails after Lambda’s retries in a queue with an alarm: SlackPost (the Router’s) and the ingress (EventBridge’s)', () => {
    expect(invokeConfigs.map(functionOf).sort()).toEqual(['Ingress', 'SlackPost']);
    for (const config of invokeConfigs) {
      const destination = (config.Properties.DestinationConfig as { OnFailure: { Destination: unknown } })
        .OnFailure.Destination;
      const queue = queueOf(destination);
      expect(depthAlarmOf(queue), `${String(functionOf(config))}'s failure queue`).toBeDefined();
      expect(config.Properties.MaximumRetryAttempts).toBe(2);
    }
  });

  it('let each failing function send to its failure queue', () => {
    for (const config of invokeConfigs) {
      const queue = queueOf(
        (config.Properties.DestinationConfig as { OnFailure: { Destination: unknown } }).OnFailure
          .Destination,
      );
      const sends = Object.values(resourcesOfType(template, 'AWS::IAM::Policy')).some((policy) =>
        JSON.stringify(policy.Properties.PolicyDocument).match(
          new RegExp(`"sqs:SendMessage".*?"Resource":\\{"Fn::GetAtt":\\["${queue}","Arn"\\]\\}`),
        ),
      );
      expect(sends, `${String(functionOf(config))} may send to ${queue}`).toBe(true);
    }
  });

  it('give the alarm rule’s ingress target a retry policy and a dead-letter queue with an alarm, which EventBridge may write', () => {
    const [ruleId, rule] = Object.entries(resourcesOfType(template, 'AWS::Events::Rule')).find(([id]) =>
      id.includes('AlarmStateChanges'),
    ) ?? [undefined, undefined];
    if (rule === undefined) throw new Error('no alarm rule');
    const [target] = rule.Properties.Targets as {
      RetryPolicy: unknown;
      DeadLetterConfig: { Arn: unknown };
    }[];
    expect(target?.RetryPolicy).toEqual({ MaximumRetryAttempts: 8, MaximumEventAgeInSeconds: 7200 });
    const queue = queueOf(target?.DeadLetterConfig.Arn);
    expect(depthAlarmOf(queue)).toBeDefined();
    const policy = Object.values(resourcesOfType(template, 'AWS::SQS::QueuePolicy')).find((p) =>
      JSON.stringify(p.Properties.Queues).includes(`"${queue}"`),
    );
    expect(JSON.stringify(policy?.Properties.PolicyDocument)).toContain('events.amazonaws.com');
    expect(JSON.stringify(policy?.Properties.PolicyDocument)).toContain(`"${ruleId}"`);
  });

  it('leave only the Reconciler’s schedule without a dead-letter queue: a lost tick carries nothing, the next sweep does its work', () => {
    const withoutDlq = Object.entries(resourcesOfType(template, 'AWS::Events::Rule')).flatMap(([id, rule]) =>
      (rule.Properties.Targets as { DeadLetterConfig?: unknown }[])
        .filter((target) => target.DeadLetterConfig === undefined)
        .map(() => id),
    );
    expect(withoutDlq).toHaveLength(1);
    expect(withoutDlq[0]).toMatch(/^ReconcilerSchedule/);
  });
});

describe('Step Functions log groups', () => {
  it('are named under /aws/vendedlogs/states/, by stack and workflow, ending in the stack’s own id', () => {
    const logGroups = resourcesOfType(template, 'AWS::Logs::LogGroup');
    const machines = Object.values(resourcesOfType(template, 'AWS::StepFunctions::StateMachine'));
    expect(machines).toHaveLength(5);
    for (const machine of machines) {
      const [destination] = (
        machine.Properties.LoggingConfiguration as {
          Destinations: { CloudWatchLogsLogGroup: { LogGroupArn: { 'Fn::GetAtt': [string, string] } } }[];
        }
      ).Destinations;
      const group = logGroups[destination?.CloudWatchLogsLogGroup.LogGroupArn['Fn::GetAtt'][0] ?? ''];
      const name = group?.Properties.LogGroupName as { 'Fn::Join': [string, unknown[]] };
      const [separator, parts] = name['Fn::Join'];
      expect(parts[0]).toBe(
        `/aws/vendedlogs/states/SlackAgents/${machine.Metadata?.['slack-agents:workflow']}-`,
      );
      expect(parts[1]).toEqual({ 'Fn::Select': [2, { 'Fn::Split': ['/', { Ref: 'AWS::StackId' }] }] });
      expect(separator).toBe('');
    }
  });
});

describe('CodeBuild log reads', () => {
  it('name the log groups of the stack’s own projects, never /aws/codebuild/*', () => {
    const projects = Object.keys(resourcesOfType(template, 'AWS::CodeBuild::Project')).sort();
    expect(projects.length).toBeGreaterThanOrEqual(2);
    const statements = Object.values(resourcesOfType(template, 'AWS::IAM::Policy')).flatMap(
      (policy) =>
        (
          policy.Properties.PolicyDocument as {
            Statement: { Action: string | string[]; Resource: unknown }[];
          }
        ).Statement,
    );
    const reads = statements.filter((s) => [s.Action].flat().includes('logs:GetLogEvents'));
    expect(reads.length).toBeGreaterThan(0);
    for (const read of reads) {
      const resources = [read.Resource].flat().map(renderIntrinsics);
      expect(resources.filter((r) => r.includes('/aws/codebuild/*'))).toEqual([]);
      const named = resources.map((r) => /\/aws\/codebuild\/<(\w+)>/.exec(r)?.[1]);
      expect(named.every((project) => project !== undefined && projects.includes(project))).toBe(true);
    }
    expect(JSON.stringify(statements)).not.toContain('/aws/codebuild/*');
  });

  it('are granted to no function when no project is deployed', () => {
    const plain = templateOf();
    expect(() => onlyResource(plain, 'AWS::CodeBuild::Project')).toThrow(/found 0/);
    expect(JSON.stringify(plain.toJSON())).not.toContain('logs:GetLogEvents');
  });
});
