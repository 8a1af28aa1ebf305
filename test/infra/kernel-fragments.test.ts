import { App, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import {
  type Chain,
  DefinitionBody,
  type IChainable,
  JsonPath,
  StateMachine,
  Succeed,
} from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { scratchDirectory } from '../../infra/scratch.ts';
import { buildStack } from '../../infra/synth.ts';
import { WorkflowRegistrations } from '../../lambdas/kernel/workflows.ts';
import { drain, LAMBDA_TRANSIENT_ERRORS, nextTurn, waitForPeople } from '../../statemachines/kernel.ts';
import { setConversationFields } from '../../statemachines/kernel-records.ts';
import { KERNEL_PROBE } from '../../statemachines/probe.ts';
import { slackPost } from '../../statemachines/slack-post.ts';
import { type ChildWorkflowDefinition, defineWorkflow } from '../../statemachines/workflow-module.ts';
import { validatedMachine } from '../support/local-machine.ts';
import {
  type AslDefinition,
  type AslState,
  definitions,
  registrationsText,
  renderIntrinsics,
  resourcesOfType,
  testModule,
} from './template.ts';

/** A workflow, as defineWorkflow makes it. */
type WorkflowDefinition = ReturnType<typeof defineWorkflow>;

const FN_ARN = 'arn:aws:lambda:eu-west-1:123456789012:function:';

/** Renders the definition of one fragment chain, built against imported functions and table. */
function render(build: (scope: Construct, resources: ReturnType<typeof imports>) => IChainable | Chain) {
  const stack = new Stack(
    new App({ builtinCloudFormationValidation: false, outdir: scratchDirectory('cdk.out-') }),
    'Fragments',
  );
  const chain = build(stack, imports(stack));
  new StateMachine(stack, 'Machine', { definitionBody: DefinitionBody.fromChainable(chain) });
  const [machine] = Object.values(
    resourcesOfType(Template.fromStack(stack), 'AWS::StepFunctions::StateMachine'),
  );
  return JSON.parse(renderIntrinsics(machine?.Properties.DefinitionString)) as AslDefinition;
}

function imports(scope: Construct) {
  return {
    fn: LambdaFunction.fromFunctionArn(scope, 'Fn', `${FN_ARN}kernel`),
    table: Table.fromTableName(scope, 'Table', 'Conversations'),
  };
}

function only(definition: AslDefinition): AslState {
  const state = definition.States[definition.StartAt];
  if (state === undefined) throw new Error('no start state');
  return state;
}

async function runLocally(
  definition: AslDefinition,
  input: object,
  handlers: Record<string, (i: unknown) => unknown> = {},
) {
  const machine = validatedMachine(definition);
  return machine.run(input as never, { overrides: { taskResourceLocalHandlers: handlers as never } }).result;
}

describe('nextTurn', () => {
  it('adds one to $.turn and keeps the rest of the state', async () => {
    const definition = render((scope) => nextTurn(scope, 'Next turn'));

    const output = await runLocally(definition, { conversationId: 'c-1', turn: 2, drained: { count: 1 } });

    expect(output).toEqual({ conversationId: 'c-1', turn: 3, drained: { count: 1 } });
  });
});

describe('drain', () => {
  it('passes DrainInput and keeps only DrainOutput at $.drained', async () => {
    const definition = render((scope, { fn }) => drain(scope, 'Drain messages', { drainFn: fn }));
    const calls: unknown[] = [];
    const drained = { turn: 1, closeRequested: false, count: 0, messages: [] };

    const output = await runLocally(
      definition,
      { conversationId: 'c-1', turn: 1 },
      {
        'Drain messages': (input) => {
          calls.push(input);
          return { StatusCode: 200, Payload: drained };
        },
      },
    );

    expect(calls).toEqual([{ FunctionName: `${FN_ARN}kernel`, Payload: { conversationId: 'c-1', turn: 1 } }]);
    expect(output).toEqual({ conversationId: 'c-1', turn: 1, drained });
  });
});

describe('waitForPeople', () => {
  it('waits for a task token with the accepted senders and the phase', () => {
    const state = only(
      render((scope, { fn }) =>
        waitForPeople(scope, 'Wait for developers', {
          registerWait: fn,
          accepts: 'any',
          phase: 'awaiting_dev',
          timeout: Duration.hours(48),
        }),
      ),
    );

    expect(state).toMatchObject({
      Resource: 'arn:<AWS::Partition>:states:::lambda:invoke.waitForTaskToken',
      TimeoutSeconds: 172_800,
      ResultPath: '$.wake',
      Parameters: { Payload: { 'taskToken.$': '$$.Task.Token', accepts: 'any', phase: 'awaiting_dev' } },
    });
    expect(state.Retry).toEqual([
      expect.objectContaining({
        ErrorEquals: [...LAMBDA_TRANSIENT_ERRORS],
      }),
    ]);
  });
});

describe('slackPost', () => {
  it('makes a retried post idempotent per state and turn by default', () => {
    const state = only(
      render((scope, { fn }) =>
        slackPost(scope, 'Post summary', { slackPostFn: fn, channel: 'C0SUMMARY', text: 'hi' }),
      ),
    );

    expect(state.Parameters).toMatchObject({
      Payload: {
        channel: 'C0SUMMARY',
        text: 'hi',
        'idempotencyKey.$': "States.Format('{}:{}:{}', $.conversationId, 'Post summary', $.turn)",
      },
    });
    expect(state.ResultPath).toBeNull();
  });

  it('registers the posted thread as an anchor when asked, null roles included', async () => {
    const definition = render((scope, { fn }) =>
      slackPost(scope, 'Post summary', {
        slackPostFn: fn,
        channel: 'C0SUMMARY',
        text: 'hi',
        anchor: { name: 'summary', ownerRole: null, othersRole: 'developer' },
        idempotencyKey: null,
        resultPath: '$.summary',
      }),
    );
    const calls: unknown[] = [];
    const posted = { channel: 'C0SUMMARY', ts: '2.0', threadTs: '2.0' };

    const output = await runLocally(
      definition,
      { conversationId: 'c-1', turn: 1 },
      {
        'Post summary': (input) => {
          calls.push(input);
          return { StatusCode: 200, Payload: posted };
        },
      },
    );

    expect(calls).toEqual([
      {
        FunctionName: `${FN_ARN}kernel`,
        Payload: {
          conversationId: 'c-1',
          channel: 'C0SUMMARY',
          text: 'hi',
          anchor: { name: 'summary', ownerRole: null, othersRole: 'developer' },
        },
      },
    ]);
    expect(output).toEqual({ conversationId: 'c-1', turn: 1, summary: posted });
  });
});

describe('slackPost with a template', () => {
  it('passes the template and its data, for SlackPost to render', () => {
    const state = only(
      render((scope, { fn }) =>
        slackPost(scope, 'Post findings', {
          slackPostFn: fn,
          channel: 'C0SUMMARY',
          template: {
            name: 'bug_findings',
            data: { result: JsonPath.objectAt('$.result'), executionArn: 'arn' },
          },
        }),
      ),
    );

    expect(state.Parameters).toMatchObject({
      Payload: { template: { name: 'bug_findings', data: { 'result.$': '$.result', executionArn: 'arn' } } },
    });
    expect(state.Parameters).not.toHaveProperty('Payload.text');
  });

  it('needs either a text or a template, not both', () => {
    const template = { name: 'bug_question', data: {} } as const;
    expect(() =>
      render((scope, { fn }) =>
        slackPost(scope, 'Post', { slackPostFn: fn, channel: 'C0', text: 'hi', template }),
      ),
    ).toThrow(/either a text or a template/);
    expect(() =>
      render((scope, { fn }) => slackPost(scope, 'Post', { slackPostFn: fn, channel: 'C0' })),
    ).toThrow(/either a text or a template/);
  });
});

describe('setConversationFields', () => {
  it('updates the conversation item in place, only if it exists', () => {
    const state = only(
      render((scope, { table }) =>
        setConversationFields(scope, 'Mark escalated', { table, status: 'active', phase: 'awaiting_dev' }),
      ),
    );

    expect(state).toMatchObject({
      Resource: 'arn:<AWS::Partition>:states:::dynamodb:updateItem',
      Parameters: {
        Key: { pk: { 'S.$': "States.Format('CONV#{}', $.conversationId)" }, sk: { S: 'META' } },
        UpdateExpression: `SET #status = :status, #phase = :phase, #schemaVersion = if_not_exists(#schemaVersion, :schemaVersion)`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: {
          '#status': 'status',
          '#phase': 'phase',
          '#schemaVersion': 'schemaVersion',
        },
        ExpressionAttributeValues: {
          ':status': { S: 'active' },
          ':phase': { S: 'awaiting_dev' },
          ':schemaVersion': { N: '1' },
        },
      },
    });
  });

  it('refuses to build an update that sets nothing', () => {
    expect(() => render((scope, { table }) => setConversationFields(scope, 'Noop', { table }))).toThrow(
      /needs a status or a phase/,
    );
  });
});

describe('workflow definitions', () => {
  it('must have lower snake case names, as the Router registration requires', () => {
    expect(() => defineWorkflow({ ...KERNEL_PROBE, name: 'KernelProbe' })).toThrow(/lower snake case/);
  });

  it('cannot be deployed twice under one name', () => {
    const config = { channels: { probe: 'C_PROBE' } };
    expect(() => buildStack({ modules: [testModule(KERNEL_PROBE, KERNEL_PROBE)], config })).toThrow(
      /defined twice/,
    );
  });

  it('get their own scope, so two workflows may use the same state names', () => {
    const copy: WorkflowDefinition = { ...KERNEL_PROBE, name: 'kernel_probe_copy' };
    const template = Template.fromStack(
      buildStack({ modules: [testModule(KERNEL_PROBE, copy)], config: { channels: { probe: 'C_PROBE' } } })
        .stack,
    );
    expect([...definitions(template).keys()].sort()).toEqual(['kernel_probe', 'kernel_probe_copy']);
  });

  it('deploy a child shared by two workflows once, and never register it with the Router', () => {
    const child: ChildWorkflowDefinition = {
      name: 'probe_child',
      build: (scope) => new Succeed(scope, 'Done'),
    };
    const parents = [
      { ...KERNEL_PROBE, children: [child] },
      { ...KERNEL_PROBE, name: 'kernel_probe_copy', children: [child] },
    ];
    const template = Template.fromStack(
      buildStack({ modules: [testModule(...parents)], config: { channels: { probe: 'C_PROBE' } } }).stack,
    );

    expect([...definitions(template).keys()].sort()).toEqual([
      'kernel_probe',
      'kernel_probe_copy',
      'probe_child',
    ]);
    const registered = WorkflowRegistrations.parse(JSON.parse(registrationsText(template)));
    expect(registered.map((registration) => registration.workflow)).toEqual([
      'kernel_probe',
      'kernel_probe_copy',
    ]);
  });

  it('cannot have two different children under one name', () => {
    const child = (): ChildWorkflowDefinition => ({
      name: 'probe_child',
      build: (scope) => new Succeed(scope, 'Done'),
    });
    const parents = [
      { ...KERNEL_PROBE, children: [child()] },
      { ...KERNEL_PROBE, name: 'kernel_probe_copy', children: [child()] },
    ];
    expect(() =>
      buildStack({ modules: [testModule(...parents)], config: { channels: { probe: 'C_PROBE' } } }),
    ).toThrow(/"probe_child" is defined twice/);
  });

  it('check the names of their children too', () => {
    const child: ChildWorkflowDefinition = {
      name: 'ProbeChild',
      build: (scope) => new Succeed(scope, 'Done'),
    };
    expect(() => defineWorkflow({ ...KERNEL_PROBE, children: [child] })).toThrow(
      /"ProbeChild" must be lower snake case/,
    );
  });

  it('explain a missing probe channel instead of registering an empty trigger', () => {
    expect(() => buildStack({ modules: [testModule(KERNEL_PROBE)] })).toThrow(/channels\.probe/);
  });
});
