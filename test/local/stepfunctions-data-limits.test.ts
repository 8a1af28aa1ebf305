import { InvalidOutput, SendTaskSuccessCommand, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { afterEach, describe, expect, it } from 'vitest';
import {
  lambdaArn,
  machineArn,
  registerWaitFake,
  settled,
  startStepFunctions,
} from './stepfunctions.harness.ts';

/**
 * The sandbox is no kinder than AWS: `States.DataLimitExceeded` (over 256 KiB) and
 * `States.Runtime` end the execution, whatever the state's Retry and Catch say, and payloads
 * are held to the quota where Step Functions holds them.
 */

type Sandbox = Awaited<ReturnType<typeof startStepFunctions>>;
let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const KIB = 1024;
const FN = lambdaArn('Work');
/** Every error, retried and caught: what a kind runtime would let handle the failure. */
const RETRY_ALL = [{ ErrorEquals: ['States.ALL'], MaxAttempts: 2, IntervalSeconds: 0 }];
const CATCH_ALL = [{ ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: 'Handled' }];

async function run(
  definition: object,
  options: { input?: unknown; answer?: (payload: unknown) => unknown } = {},
) {
  const calls: unknown[] = [];
  sandbox = await startStepFunctions({
    invokeLambda: async (_arn, payload) => {
      calls.push(payload);
      return options.answer?.(payload) ?? {};
    },
  });
  sandbox.runtime.registerStateMachine({
    arn: machineArn('Limits'),
    name: 'Limits',
    // The Catch target, for definitions with a Catch.
    definition: JSON.stringify(definition).includes('"Handled"')
      ? {
          ...definition,
          States: { ...(definition as { States: object }).States, Handled: { Type: 'Pass', End: true } },
        }
      : definition,
  });
  const { executionArn } = await sandbox.client.send(
    new StartExecutionCommand({
      stateMachineArn: machineArn('Limits'),
      input: JSON.stringify(options.input ?? {}),
    }),
  );
  const execution = await settled(sandbox.client, executionArn as string);
  return { execution, calls };
}

const task = (extra: object = {}) => ({
  Type: 'Task',
  Resource: 'arn:aws:states:::lambda:invoke',
  Parameters: { FunctionName: FN, 'Payload.$': '$' },
  Retry: RETRY_ALL,
  Catch: CATCH_ALL,
  End: true,
  ...extra,
});

describe('States.DataLimitExceeded', () => {
  it('fails the execution when a task returns more than 256 KiB, past Retry and Catch on States.ALL', async () => {
    const { execution, calls } = await run(
      { StartAt: 'Fetch', States: { Fetch: task() } },
      { answer: () => ({ text: 'x'.repeat(300 * KIB) }) },
    );

    expect(execution.status).toBe('FAILED');
    expect(execution.error).toBe('States.DataLimitExceeded');
    expect(calls).toHaveLength(1);
  });

  it('fails the execution when a state’s output (its input with the result added) passes 256 KiB', async () => {
    const { execution } = await run(
      {
        StartAt: 'Fetch',
        States: { Fetch: task({ ResultPath: '$.fetched', ResultSelector: { 'text.$': '$.Payload.text' } }) },
      },
      { input: { kept: 'k'.repeat(150 * KIB) }, answer: () => ({ text: 'x'.repeat(150 * KIB) }) },
    );

    expect(execution.status).toBe('FAILED');
    expect(execution.error).toBe('States.DataLimitExceeded');
    expect(execution.cause).toContain("The output of state 'Fetch'");
  });

  it('fails the execution when a Pass state builds an output over 256 KiB', async () => {
    const { execution } = await run(
      {
        StartAt: 'Double',
        States: { Double: { Type: 'Pass', Parameters: { 'a.$': '$.big', 'b.$': '$.big' }, End: true } },
      },
      { input: { big: 'b'.repeat(150 * KIB) } },
    );

    expect(execution.status).toBe('FAILED');
    expect(execution.error).toBe('States.DataLimitExceeded');
  });

  it('fails the execution when a state inside a Map iteration outputs more than 256 KiB, past the Map’s Catch', async () => {
    const { execution } = await run(
      {
        StartAt: 'Each',
        States: {
          Each: {
            Type: 'Map',
            ItemsPath: '$.items',
            ItemProcessor: {
              ProcessorConfig: { Mode: 'INLINE' },
              StartAt: 'Work',
              States: {
                Work: task({
                  Catch: undefined,
                  ResultSelector: { 'text.$': '$.Payload.text' },
                  ResultPath: '$.r',
                }),
              },
            },
            ResultPath: null,
            Catch: CATCH_ALL,
            End: true,
          },
        },
      },
      { input: { items: [{ pad: 'p'.repeat(100 * KIB) }] }, answer: () => ({ text: 'x'.repeat(200 * KIB) }) },
    );

    expect(execution.status).toBe('FAILED');
    expect(execution.error).toBe('States.DataLimitExceeded');
    expect(execution.cause).toContain("The output of state 'Work'");
  });

  it('fails the execution when the results a Map gathers pass 256 KiB, past the Map’s Catch', async () => {
    const { execution } = await run(
      {
        StartAt: 'Each',
        States: {
          Each: {
            Type: 'Map',
            ItemsPath: '$.items',
            ItemProcessor: {
              ProcessorConfig: { Mode: 'INLINE' },
              StartAt: 'Work',
              States: { Work: task({ Catch: undefined, OutputPath: '$.Payload' }) },
            },
            Catch: CATCH_ALL,
            End: true,
          },
        },
      },
      { input: { items: [1, 2] }, answer: () => ({ text: 'x'.repeat(200 * KIB) }) },
    );

    expect(execution.status).toBe('FAILED');
    expect(execution.error).toBe('States.DataLimitExceeded');
    expect(execution.cause).toContain("The output of state 'Each'");
  });

  it('fails a task whose input after Parameters passes 256 KiB before its function runs', async () => {
    const { execution, calls } = await run(
      {
        StartAt: 'Send',
        States: {
          Send: task({ Parameters: { FunctionName: FN, Payload: { 'a.$': '$.big', 'b.$': '$.big' } } }),
        },
      },
      { input: { big: 'b'.repeat(150 * KIB) } },
    );

    expect(execution.status).toBe('FAILED');
    expect(execution.error).toBe('States.DataLimitExceeded');
    expect(execution.cause).toContain("The input of state 'Send'");
    expect(calls).toEqual([]);
  });

  it('lets a result just under the quota through', async () => {
    const { execution } = await run(
      { StartAt: 'Fetch', States: { Fetch: task({ OutputPath: '$.Payload' }) } },
      { answer: () => ({ text: 'x'.repeat(200 * KIB) }) },
    );

    expect(execution.status).toBe('SUCCEEDED');
  });
});

describe('States.Runtime', () => {
  it('fails the execution when a ResultSelector names a field the result lacks, past Retry and Catch on States.ALL', async () => {
    const { execution, calls } = await run(
      {
        StartAt: 'Post',
        States: { Post: task({ ResultSelector: { 'ts.$': '$.Payload.ts' }, ResultPath: '$.posted' }) },
      },
      { answer: () => ({ channel: 'C1' }) },
    );

    expect(execution.status).toBe('FAILED');
    expect(execution.error).toBe('States.Runtime');
    expect(calls).toHaveLength(1);
  });
});

describe('SendTaskSuccess', () => {
  it('refuses an output over 256 KiB and leaves the wait open for a valid answer', async () => {
    const registerWait = registerWaitFake();
    sandbox = await startStepFunctions({
      invokeLambda: async (_arn, payload) => {
        registerWait.invoke(payload);
        return {};
      },
    });
    sandbox.runtime.registerStateMachine({
      arn: machineArn('Wait'),
      name: 'Wait',
      definition: {
        StartAt: 'Wait',
        States: {
          Wait: {
            Type: 'Task',
            Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
            Parameters: { FunctionName: FN, Payload: { 'taskToken.$': '$$.Task.Token' } },
            TimeoutSeconds: 60,
            End: true,
          },
        },
      },
    });
    const { executionArn } = await sandbox.client.send(
      new StartExecutionCommand({ stateMachineArn: machineArn('Wait') }),
    );
    const { taskToken } = await registerWait.next();

    await expect(
      sandbox.client.send(
        new SendTaskSuccessCommand({ taskToken, output: JSON.stringify({ t: 'x'.repeat(257 * KIB) }) }),
      ),
    ).rejects.toBeInstanceOf(InvalidOutput);
    await sandbox.client.send(new SendTaskSuccessCommand({ taskToken, output: '{"ok":true}' }));

    const execution = await settled(sandbox.client, executionArn as string);
    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output as string)).toEqual({ ok: true });
  });
});
