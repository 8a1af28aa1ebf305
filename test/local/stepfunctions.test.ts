import {
  DescribeExecutionCommand,
  DescribeStateMachineCommand,
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  GetExecutionHistoryCommand,
  InvalidArn,
  ListExecutionsCommand,
  ListStateMachinesCommand,
  StartExecutionCommand,
  StateMachineDoesNotExist,
} from '@aws-sdk/client-sfn';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalStepFunctions } from '../../local/stepfunctions/runtime.ts';
import { until } from '../support/eventually.ts';
import { lambdaArn, lambdaError, machineArn, settled, startStepFunctions } from './stepfunctions.harness.ts';

type Sandbox = Awaited<ReturnType<typeof startStepFunctions>>;
let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const GREET = lambdaArn('Greet');

/** A CDK-style LambdaInvoke: full response kept at $.raw, then $.Payload selected by a second call. */
const greetDefinition = {
  StartAt: 'Greet raw',
  States: {
    'Greet raw': {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { FunctionName: GREET, 'Payload.$': '$' },
      ResultPath: '$.raw',
      Next: 'Greet',
    },
    Greet: {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { FunctionName: GREET, Payload: { 'who.$': '$.who' } },
      OutputPath: '$.Payload',
      TimeoutSeconds: 10,
      End: true,
    },
  },
};

async function greeter() {
  const calls: Array<{ arn: string; payload: unknown }> = [];
  sandbox = await startStepFunctions({
    invokeLambda: async (arn, payload) => {
      calls.push({ arn, payload });
      return { greeting: `hello ${(payload as { who: string }).who}` };
    },
  });
  sandbox.runtime.registerStateMachine({
    arn: machineArn('Greeter'),
    name: 'Greeter',
    definition: greetDefinition,
  });
  return { ...sandbox, calls };
}

describe('lambda tasks', () => {
  it('wraps a lambda:invoke result like the service, so OutputPath $.Payload selects the handler result', async () => {
    const { client, calls } = await greeter();

    const { executionArn } = await client.send(
      new StartExecutionCommand({
        stateMachineArn: machineArn('Greeter'),
        name: 'c-1',
        input: '{"who":"ada"}',
      }),
    );
    const execution = await settled(client, executionArn as string);

    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output as string)).toEqual({ greeting: 'hello ada' });
    expect(calls).toEqual([
      { arn: GREET, payload: { who: 'ada' } },
      { arn: GREET, payload: { who: 'ada' } },
    ]);
    const history = await client.send(new GetExecutionHistoryCommand({ executionArn }));
    const exited = history.events?.find(
      (event) => event.type === 'TaskStateExited' && event.stateExitedEventDetails?.name === 'Greet raw',
    );
    expect(JSON.parse(exited?.stateExitedEventDetails?.output as string).raw).toEqual({
      ExecutedVersion: '$LATEST',
      Payload: { greeting: 'hello ada' },
      StatusCode: 200,
    });
  });

  it('returns the handler result itself for a Task on a plain Lambda ARN', async () => {
    sandbox = await startStepFunctions({ invokeLambda: async (_arn, payload) => ({ echoed: payload }) });
    sandbox.runtime.registerStateMachine({
      arn: machineArn('Plain'),
      name: 'Plain',
      definition: {
        StartAt: 'Echo',
        States: { Echo: { Type: 'Task', Resource: lambdaArn('Echo'), End: true } },
      },
    });

    const { executionArn } = sandbox.runtime.startExecution({
      stateMachineArn: machineArn('Plain'),
      input: '[1]',
    });
    const execution = await sandbox.runtime.waitForExecution(executionArn);

    expect(JSON.parse(execution.output as string)).toEqual({ echoed: [1] });
    const types = (await sandbox.client.send(new GetExecutionHistoryCommand({ executionArn }))).events?.map(
      (event) => event.type,
    );
    expect(types).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'LambdaFunctionScheduled',
      'LambdaFunctionStarted',
      'LambdaFunctionSucceeded',
      'TaskStateExited',
      'ExecutionSucceeded',
    ]);
  });

  it('runs the Tasks of a Map item processor, each with its own item', async () => {
    sandbox = await startStepFunctions({
      invokeLambda: async (_arn, payload) => ({ doubled: (payload as { n: number }).n * 2 }),
    });
    sandbox.runtime.registerStateMachine({
      arn: machineArn('Mapping'),
      name: 'Mapping',
      definition: {
        StartAt: 'Each',
        States: {
          Each: {
            Type: 'Map',
            ItemsPath: '$.items',
            ItemSelector: { 'n.$': '$$.Map.Item.Value' },
            ItemProcessor: {
              StartAt: 'Double',
              States: {
                Double: {
                  Type: 'Task',
                  Resource: 'arn:aws:states:::lambda:invoke',
                  Parameters: { FunctionName: GREET, 'Payload.$': '$' },
                  OutputPath: '$.Payload',
                  End: true,
                },
              },
            },
            End: true,
          },
        },
      },
    });

    const { executionArn } = sandbox.runtime.startExecution({
      stateMachineArn: machineArn('Mapping'),
      input: '{"items":[1,2,3]}',
    });
    const execution = await sandbox.runtime.waitForExecution(executionArn);

    expect(JSON.parse(execution.output as string)).toEqual([{ doubled: 2 }, { doubled: 4 }, { doubled: 6 }]);
  });

  it('retries a named Lambda error and then takes the success', async () => {
    let attempts = 0;
    sandbox = await startStepFunctions({
      timeScale: 0.001,
      invokeLambda: async () => {
        attempts += 1;
        if (attempts < 3) throw lambdaError('Lambda.TooManyRequestsException', 'slow down');
        return 'done';
      },
    });
    sandbox.runtime.registerStateMachine({
      arn: machineArn('Retrying'),
      name: 'Retrying',
      definition: {
        StartAt: 'Call',
        States: {
          Call: {
            Type: 'Task',
            Resource: 'arn:aws:states:::lambda:invoke',
            Parameters: { FunctionName: GREET, 'Payload.$': '$' },
            OutputPath: '$.Payload',
            // 30 s, then 60 s: 30 ms and 60 ms at this time scale.
            Retry: [
              { ErrorEquals: ['Lambda.TooManyRequestsException'], IntervalSeconds: 30, MaxAttempts: 3 },
            ],
            TimeoutSeconds: 60,
            End: true,
          },
        },
      },
    });

    const { executionArn } = sandbox.runtime.startExecution({ stateMachineArn: machineArn('Retrying') });
    const execution = await sandbox.runtime.waitForExecution(executionArn);

    expect(execution.status).toBe('SUCCEEDED');
    expect(execution.output).toBe('"done"');
    expect(attempts).toBe(3);
    const history = sandbox.runtime.getExecutionHistory(executionArn).map((event) => event.type);
    expect(history.filter((type) => type === 'StateRetried')).toHaveLength(2);
    expect(history.filter((type) => type === 'TaskFailed')).toHaveLength(2);
  });

  it('catches a Lambda error by its name, with the error payload as Cause', async () => {
    sandbox = await startStepFunctions({
      invokeLambda: async () => {
        throw lambdaError('TranscriptMissing', 'no transcript for session s-1');
      },
    });
    sandbox.runtime.registerStateMachine({
      arn: machineArn('Catching'),
      name: 'Catching',
      definition: {
        StartAt: 'Investigate',
        States: {
          Investigate: {
            Type: 'Task',
            Resource: 'arn:aws:states:::lambda:invoke',
            Parameters: { FunctionName: GREET, 'Payload.$': '$' },
            TimeoutSeconds: 60,
            Catch: [
              { ErrorEquals: ['Other'], Next: 'Wrong' },
              { ErrorEquals: ['TranscriptMissing'], ResultPath: '$.failure', Next: 'Escalate' },
            ],
            End: true,
          },
          Wrong: { Type: 'Fail', Error: 'Wrong' },
          Escalate: { Type: 'Pass', End: true },
        },
      },
    });

    const { executionArn } = sandbox.runtime.startExecution({
      stateMachineArn: machineArn('Catching'),
      input: '{"id":7}',
    });
    const execution = await sandbox.runtime.waitForExecution(executionArn);

    expect(execution.status).toBe('SUCCEEDED');
    const output = JSON.parse(execution.output as string);
    expect(output.id).toBe(7);
    expect(output.failure.Error).toBe('TranscriptMissing');
    expect(JSON.parse(output.failure.Cause)).toMatchObject({
      errorType: 'TranscriptMissing',
      errorMessage: 'no transcript for session s-1',
    });
  });

  it('fails the execution with the Lambda error when nothing catches it', async () => {
    const { client } = await greeter();
    sandbox?.runtime.registerStateMachine({
      arn: machineArn('Uncaught'),
      name: 'Uncaught',
      definition: {
        StartAt: 'Boom',
        States: { Boom: { Type: 'Task', Resource: lambdaArn('Boom'), End: true } },
      },
    });
    // The greeter's fake cannot read `who` of an empty payload: a TypeError from the handler.
    const { executionArn } = await client.send(
      new StartExecutionCommand({ stateMachineArn: machineArn('Uncaught'), input: 'null' }),
    );

    const execution = await settled(client, executionArn as string);

    expect(execution.status).toBe('FAILED');
    expect(execution.error).toBe('TypeError');
    expect(JSON.parse(execution.cause as string).errorType).toBe('TypeError');
  });
});

describe('the context object', () => {
  it('gives each Task its own $$.State.EnteredTime from the sandbox clock and its $$.State.Name, the same on a retry', async () => {
    // The sandbox clock ticks a second each time it is read, so every event has its own time.
    let tick = Date.parse('2015-03-01T12:00:00.000Z');
    const payloads: Array<Record<string, string>> = [];
    sandbox = await startStepFunctions({
      timeScale: 0.001,
      now: () => {
        tick += 1_000;
        return new Date(tick);
      },
      invokeLambda: async (_arn, payload) => {
        payloads.push(payload as Record<string, string>);
        if (payloads.length === 1) throw lambdaError('Lambda.TooManyRequestsException', 'slow down');
        return null;
      },
    });
    const stamped = {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: {
        FunctionName: GREET,
        Payload: {
          'at.$': '$$.State.EnteredTime',
          'state.$': '$$.State.Name',
          'line.$': "States.Format('{} entered at {}', $$.State.Name, $$.State.EnteredTime)",
        },
      },
      Retry: [{ ErrorEquals: ['Lambda.TooManyRequestsException'], IntervalSeconds: 1, MaxAttempts: 1 }],
      TimeoutSeconds: 10,
    };
    sandbox.runtime.registerStateMachine({
      arn: machineArn('Stamped'),
      name: 'Stamped',
      definition: {
        StartAt: 'First',
        States: { First: { ...stamped, Next: 'Second' }, Second: { ...stamped, End: true } },
      },
    });

    const { executionArn } = sandbox.runtime.startExecution({ stateMachineArn: machineArn('Stamped') });
    const execution = await sandbox.runtime.waitForExecution(executionArn);

    expect(execution.status).toBe('SUCCEEDED');
    const entered = (name: string) =>
      sandbox?.runtime
        .getExecutionHistory(executionArn)
        .find((event) => event.type === 'StateEntered' && event.stateName === name)
        ?.timestamp.toISOString();
    const [firstAttempt, retried, second] = payloads;
    expect(firstAttempt).toEqual({
      at: entered('First'),
      state: 'First',
      line: `First entered at ${entered('First')}`,
    });
    expect(retried).toEqual(firstAttempt);
    expect(second).toMatchObject({ at: entered('Second'), state: 'Second' });
    expect(Date.parse(second?.at ?? '')).toBeGreaterThan(Date.parse(firstAttempt?.at ?? ''));
  });
});

describe('execution names', () => {
  it('rejects a second start with the same name and another input as ExecutionAlreadyExists', async () => {
    const { client } = await greeter();
    const start = (input: string) =>
      client.send(
        new StartExecutionCommand({ stateMachineArn: machineArn('Greeter'), name: 'conv-1', input }),
      );
    await start('{"who":"ada"}');

    const duplicate = start('{"who":"bob"}');

    await expect(duplicate).rejects.toBeInstanceOf(ExecutionAlreadyExists);
    await expect(duplicate).rejects.toMatchObject({ name: 'ExecutionAlreadyExists' });
  });

  it('rejects the same name and input once the first execution has closed', async () => {
    const { client } = await greeter();
    const start = () =>
      client.send(
        new StartExecutionCommand({
          stateMachineArn: machineArn('Greeter'),
          name: 'conv-2',
          input: '{"who":"a"}',
        }),
      );
    const { executionArn } = await start();
    await settled(client, executionArn as string);

    await expect(start()).rejects.toBeInstanceOf(ExecutionAlreadyExists);
  });

  it('answers a repeated start with the same name and input while running with the same execution, as AWS does', async () => {
    sandbox = await startStepFunctions({ invokeLambda: () => new Promise(() => {}) });
    sandbox.runtime.registerStateMachine({
      arn: machineArn('Slow'),
      name: 'Slow',
      definition: greetDefinition,
    });
    const start = () =>
      sandbox?.client.send(
        new StartExecutionCommand({
          stateMachineArn: machineArn('Slow'),
          name: 'conv-3',
          input: '{"who":"a"}',
        }),
      );

    const first = await start();
    const second = await start();

    expect(second?.executionArn).toBe(first?.executionArn);
    expect(second?.startDate).toEqual(first?.startDate);
    expect(sandbox.runtime.listExecutions({ stateMachineArn: machineArn('Slow') })).toHaveLength(1);
  });
});

describe('describe, history and list', () => {
  it('describes an execution with AWS field names and dates', async () => {
    const { client } = await greeter();
    const before = Date.now();
    const { executionArn, startDate } = await client.send(
      new StartExecutionCommand({
        stateMachineArn: machineArn('Greeter'),
        name: 'd-1',
        input: '{"who":"ada"}',
      }),
    );
    await settled(client, executionArn as string);

    const execution = await client.send(new DescribeExecutionCommand({ executionArn }));

    expect(executionArn).toBe('arn:aws:states:us-east-1:000000000000:execution:Greeter:d-1');
    expect(execution).toMatchObject({
      executionArn,
      stateMachineArn: machineArn('Greeter'),
      name: 'd-1',
      status: 'SUCCEEDED',
      input: '{"who":"ada"}',
      output: '{"greeting":"hello ada"}',
    });
    expect(execution.startDate).toBeInstanceOf(Date);
    expect(execution.startDate?.getTime()).toBe(startDate?.getTime());
    expect(execution.startDate?.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(execution.stopDate?.getTime()).toBeGreaterThanOrEqual(execution.startDate?.getTime() ?? 0);
  });

  it('gives the history in AWS event types, in order, with state names and data', async () => {
    const { client } = await greeter();
    const { executionArn } = await client.send(
      new StartExecutionCommand({
        stateMachineArn: machineArn('Greeter'),
        name: 'h-1',
        input: '{"who":"ada"}',
      }),
    );
    await settled(client, executionArn as string);

    const { events = [] } = await client.send(new GetExecutionHistoryCommand({ executionArn }));

    expect(events.map((event) => event.type)).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskSucceeded',
      'TaskStateExited',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskSucceeded',
      'TaskStateExited',
      'ExecutionSucceeded',
    ]);
    expect(events.map((event) => event.id)).toEqual(events.map((_, index) => index + 1));
    expect(events[0]?.timestamp).toBeInstanceOf(Date);
    expect(events[0]?.executionStartedEventDetails?.input).toBe('{"who":"ada"}');
    expect(events[1]?.stateEnteredEventDetails).toMatchObject({ name: 'Greet raw', input: '{"who":"ada"}' });
    expect(events[7]?.taskScheduledEventDetails).toMatchObject({
      resourceType: 'lambda',
      resource: 'invoke',
      region: 'us-east-1',
      timeoutInSeconds: 10,
    });
    expect(JSON.parse(events[7]?.taskScheduledEventDetails?.parameters as string)).toEqual({
      FunctionName: GREET,
      Payload: { who: 'ada' },
    });
    expect(events.at(-1)?.executionSucceededEventDetails?.output).toBe('{"greeting":"hello ada"}');

    const reversed = await client.send(
      new GetExecutionHistoryCommand({ executionArn, reverseOrder: true, maxResults: 2 }),
    );
    expect(reversed.events?.map((event) => event.type)).toEqual(['ExecutionSucceeded', 'TaskStateExited']);
    expect(reversed.nextToken).toBeDefined();
  });

  it('lists executions of a state machine, newest first, filtered by status', async () => {
    const { client, runtime } = await greeter();
    const first = runtime.startExecution({
      stateMachineArn: machineArn('Greeter'),
      name: 'l-1',
      input: '{"who":"a"}',
    });
    await runtime.waitForExecution(first.executionArn);
    // Newest first is by start date: the second starts on a later millisecond than the first.
    await until(() => Date.now() > first.startDate.getTime(), 'a millisecond after the first start');
    const second = runtime.startExecution({
      stateMachineArn: machineArn('Greeter'),
      name: 'l-2',
      input: '{"who":"b"}',
    });
    await runtime.waitForExecution(second.executionArn);

    const all = await client.send(new ListExecutionsCommand({ stateMachineArn: machineArn('Greeter') }));
    const running = await client.send(
      new ListExecutionsCommand({ stateMachineArn: machineArn('Greeter'), statusFilter: 'RUNNING' }),
    );

    expect(all.executions?.map((execution) => execution.name)).toEqual(['l-2', 'l-1']);
    expect(all.executions?.[0]).toMatchObject({
      executionArn: second.executionArn,
      stateMachineArn: machineArn('Greeter'),
      status: 'SUCCEEDED',
    });
    expect(all.executions?.[0]?.stopDate).toBeInstanceOf(Date);
    expect(running.executions).toEqual([]);
  });

  it('lists and describes the registered state machines', async () => {
    const { client } = await greeter();

    const list = await client.send(new ListStateMachinesCommand({}));
    const machine = await client.send(
      new DescribeStateMachineCommand({ stateMachineArn: machineArn('Greeter') }),
    );

    expect(list.stateMachines).toEqual([
      expect.objectContaining({ stateMachineArn: machineArn('Greeter'), name: 'Greeter', type: 'STANDARD' }),
    ]);
    expect(machine).toMatchObject({ name: 'Greeter', status: 'ACTIVE', type: 'STANDARD' });
    expect(JSON.parse(machine.definition as string)).toEqual(greetDefinition);
  });
});

describe('API errors', () => {
  it('answers unknown state machines, unknown executions and malformed ARNs with the SDK exceptions', async () => {
    const { client } = await greeter();

    await expect(
      client.send(new StartExecutionCommand({ stateMachineArn: machineArn('Nope'), input: '{}' })),
    ).rejects.toBeInstanceOf(StateMachineDoesNotExist);
    await expect(
      client.send(
        new DescribeExecutionCommand({
          executionArn: 'arn:aws:states:us-east-1:000000000000:execution:Greeter:nope',
        }),
      ),
    ).rejects.toBeInstanceOf(ExecutionDoesNotExist);
    await expect(
      client.send(new DescribeExecutionCommand({ executionArn: 'not-an-arn' })),
    ).rejects.toBeInstanceOf(InvalidArn);
  });

  it('rejects an input that is not JSON and a name with forbidden characters', async () => {
    const { client } = await greeter();

    await expect(
      client.send(new StartExecutionCommand({ stateMachineArn: machineArn('Greeter'), input: '{oops' })),
    ).rejects.toMatchObject({ name: 'InvalidExecutionInput' });
    await expect(
      client.send(
        new StartExecutionCommand({ stateMachineArn: machineArn('Greeter'), name: 'a b', input: '{}' }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidName' });
  });
});

describe('registerStateMachine', () => {
  const runtime = () => new LocalStepFunctions({ timeScale: 1, invokeLambda: async () => null });
  const register = (definition: unknown) =>
    runtime().registerStateMachine({ arn: machineArn('M'), name: 'M', definition });

  it('refuses a resource the sandbox cannot run, naming the state and the resource', () => {
    const definition = {
      StartAt: 'Outer',
      States: {
        Outer: {
          Type: 'Parallel',
          Branches: [
            {
              StartAt: 'Send email',
              States: { 'Send email': { Type: 'Task', Resource: 'arn:aws:states:::sns:publish', End: true } },
            },
          ],
          End: true,
        },
      },
    };

    expect(() => register(definition)).toThrow(/'Send email'.*arn:aws:states:::sns:publish/);
  });

  it('refuses DynamoDB integrations when it was given no DynamoDB client', () => {
    const definition = {
      StartAt: 'Save',
      States: { Save: { Type: 'Task', Resource: 'arn:aws:states:::dynamodb:putItem', End: true } },
    };

    expect(() => register(definition)).toThrow(/no DynamoDB client/);
  });

  it('refuses Assign and JSONata, which the local interpreter would silently ignore', () => {
    const withAssign = { StartAt: 'P', States: { P: { Type: 'Pass', Assign: { x: 1 }, End: true } } };
    const withJsonata = {
      QueryLanguage: 'JSONata',
      StartAt: 'P',
      States: { P: { Type: 'Pass', End: true } },
    };

    expect(() => register(withAssign)).toThrow(/'P' uses 'Assign'/);
    expect(() => register(withJsonata)).toThrow(/JSONata/);
  });

  it('accepts the definition as the JSON string of a template DefinitionString', () => {
    const description = register(JSON.stringify(greetDefinition));

    expect(JSON.parse(description.definition)).toEqual(greetDefinition);
  });
});
