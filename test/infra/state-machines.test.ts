import { Template } from 'aws-cdk-lib/assertions';
import { StateMachine } from 'aws-local-stepfunctions';
import { describe, expect, it } from 'vitest';
import { KERNEL_APPROVAL_PROBE_MODULE } from '../fixtures/approval-probe.ts';
import {
  type AslState,
  allKeys,
  allStates,
  definitions,
  probeStack,
  probeTemplate,
  publishedVersionOf,
  templateOf,
} from './template.ts';

const template = probeTemplate();
const probeDefinitions = definitions(template);
/** The probe's and the production stack's state machines: the workflows and their children. */
// With a repository configured, so the bug workflow's fix path is checked too.
const all = new Map([
  ...probeDefinitions,
  ...definitions(
    templateOf({
      config: {
        bugInvestigation: { repository: 'demo/webshop' },
        issuePipeline: { repository: 'demo/webshop' },
      },
    }),
  ),
  // The approval wait fragment, in its test-only workflow.
  ...definitions(
    templateOf({
      modules: [KERNEL_APPROVAL_PROBE_MODULE],
      config: { channels: { approvalProbe: 'C_APPROVALS' } },
    }),
  ),
]);

describe('the checked definitions', () => {
  it('are the probe, the production workflows and their children', () => {
    expect([...all.keys()].sort()).toEqual([
      'bug_investigation',
      'incident_investigation',
      'issue_pipeline',
      'kernel_approval_probe',
      'kernel_probe',
      'kernel_probe_agent',
      'requirements_interview',
      'sla_tracking',
    ]);
  });
});

/** The checks every workflow's definition must pass, run against every state machine. */
describe.each([...all])('the %s definition', (_name, definition) => {
  const tasks = allStates(definition).filter(([, state]) => state.Type === 'Task');

  it('uses no Assign (the local runtime would silently ignore it)', () => {
    expect(allKeys(definition)).not.toContain('Assign');
  });

  it('uses JSONPath only, never JSONata', () => {
    const languages = allStates(definition).map(
      ([, state]) => state.QueryLanguage ?? definition.QueryLanguage,
    );
    expect(new Set(languages)).toEqual(new Set(['JSONPath']));
    expect(JSON.stringify(definition)).not.toMatch(/JSONata|\{%/);
  });

  it('gives every Task an explicit TimeoutSeconds', () => {
    const missing = tasks
      .filter(([, state]) => typeof state.TimeoutSeconds !== 'number')
      .map(([name]) => name);
    expect(missing).toEqual([]);
  });

  it('gives every Task a Retry, for named transient errors only', () => {
    for (const [name, state] of tasks) {
      const retriers = (state.Retry as { ErrorEquals: string[] }[] | undefined) ?? [];
      expect(retriers.length, name).toBeGreaterThan(0);
      const errors = retriers.flatMap((retrier) => retrier.ErrorEquals);
      expect(errors, name).not.toContain('States.ALL');
      expect(errors, name).not.toContain('States.TaskFailed');
    }
  });

  it('gives every Task a Catch, so no failure leaves the conversation without an end', () => {
    const missing = tasks.filter(([, state]) => !Array.isArray(state.Catch)).map(([name]) => name);
    expect(missing).toEqual([]);
  });

  it('bounds every wait for a task token and catches its timeout', () => {
    const waits = tasks.filter(([, state]) => String(state.Resource).endsWith('.waitForTaskToken'));
    for (const [name, state] of waits) {
      expect(state.TimeoutSeconds, name).toBeGreaterThan(0);
      const catchers = state.Catch as { ErrorEquals: string[] }[];
      expect(catchers[0]?.ErrorEquals, name).toEqual(['States.Timeout']);
    }
  });

  it('is valid Amazon States Language', () => {
    expect(
      () => new StateMachine(definition as never, { validationOptions: { checkArn: false } }),
    ).not.toThrow();
  });
});

describe('the kernel_probe graph', () => {
  const probe = probeDefinitions.get('kernel_probe');
  if (probe === undefined) throw new Error('kernel_probe is not in the template');
  const state = (name: string): AslState => {
    const found = probe.States[name];
    if (found === undefined) throw new Error(`no state "${name}"`);
    return found;
  };

  it('marks the conversation, then drains and replies each turn', () => {
    expect(probe.StartAt).toBe('Mark investigating');
    expect(state('Mark investigating').Next).toBe('Started outside Slack?');
    expect(state('Started outside Slack?')).toMatchObject({
      Choices: [{ Variable: '$.origin', IsPresent: true, Next: 'Open report thread' }],
      Default: 'Report in its thread',
    });
    expect(state('Open report thread').Next).toBe('Next turn');
    expect(state('Report in its thread').Next).toBe('Next turn');
    expect(state('Next turn').Next).toBe('Drain messages');
    expect(state('Drain messages').Next).toBe('Reply');
    expect(state('Reply').Next).toBe('Close requested?');
  });

  it('ends on a close request and otherwise finishes the turn and waits for the reporter, then loops', () => {
    expect(state('Close requested?')).toMatchObject({
      Choices: [{ Variable: '$.drained.closeRequested', BooleanEquals: true, Next: 'Mark resolved' }],
      Default: 'Finish turn',
    });
    expect(state('Finish turn')).toMatchObject({ Type: 'Wait', Seconds: 3000, Next: 'Wait for reporter' });
    expect(state('Wait for reporter').Next).toBe('Next turn');
    expect(state('Mark resolved').Next).toBe('Done');
    expect(state('Done').Type).toBe('Succeed');
  });

  it('waits through RegisterWait with a task token, accepting the reporter only', () => {
    const registerWaitVersion = publishedVersionOf(template, 'RegisterWait');
    expect(state('Wait for reporter')).toMatchObject({
      Resource: 'arn:<AWS::Partition>:states:::lambda:invoke.waitForTaskToken',
      Parameters: {
        FunctionName: `<${registerWaitVersion}>`,
        Payload: {
          'conversationId.$': '$.conversationId',
          'taskToken.$': '$$.Task.Token',
          accepts: ['reporter'],
          phase: 'awaiting_reporter',
        },
      },
      ResultPath: '$.wake',
      TimeoutSeconds: 7200,
    });
  });

  it('takes the timeout path when the reporter does not answer', () => {
    expect(state('Wait for reporter').Catch).toEqual([
      { ErrorEquals: ['States.Timeout'], ResultPath: '$.timedOut', Next: 'Reply timed out' },
      { ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: 'Mark failed' },
    ]);
    expect(state('Reply timed out').Next).toBe('Mark resolved');
  });

  it('marks the conversation failed and fails the execution when a task fails for good', () => {
    expect(state('Drain messages').Catch).toEqual([
      { ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: 'Mark failed' },
    ]);
    expect(state('Mark failed').Next).toBe('Failed');
    expect(state('Failed')).toMatchObject({
      Type: 'Fail',
      ErrorPath: '$.failure.Error',
      CausePath: '$.failure.Cause',
    });
  });

  it('waits as long as the configuration says', () => {
    const configured = definitions(
      Template.fromStack(probeStack({ config: { reporterWaitSeconds: 5 } }).stack),
    );
    expect(configured.get('kernel_probe')?.States['Wait for reporter']?.TimeoutSeconds).toBe(5);
  });

  it('replies with the turn and the number of drained messages', () => {
    expect(state('Reply')).toMatchObject({
      Parameters: {
        Payload: {
          'channel.$': '$.report.channel',
          'threadTs.$': '$.report.threadTs',
          'text.$': "States.Format('probe turn {} got {} message(s)', $.turn, $.drained.count)",
        },
      },
    });
  });
});

describe('state machine resources', () => {
  it('are Standard, traced, and log every event without execution data', () => {
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      StateMachineType: 'STANDARD',
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: { Level: 'ALL', IncludeExecutionData: false },
    });
  });

  it('carry their workflow name as metadata and in their logical id', () => {
    const ids = Object.keys(template.findResources('AWS::StepFunctions::StateMachine'));
    expect([...probeDefinitions.keys()]).toEqual(['kernel_probe', 'kernel_probe_agent']);
    expect(ids.sort()).toEqual([
      expect.stringMatching(/^KernelProbe[0-9A-F]{8}$/),
      expect.stringMatching(/^KernelProbeAgent[0-9A-F]{8}$/),
    ]);
  });
});
