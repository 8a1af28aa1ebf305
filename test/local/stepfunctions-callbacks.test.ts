import {
  GetExecutionHistoryCommand,
  InvalidToken,
  SendTaskFailureCommand,
  SendTaskSuccessCommand,
  StopExecutionCommand,
  TaskTimedOut,
} from '@aws-sdk/client-sfn';
import { describe, it } from 'vitest';
import { lambdaError, settled, type startStepFunctions } from './stepfunctions.harness.ts';
import {
  conversationDefinition,
  conversationSandbox,
  MACHINE,
  ownStepFunctions,
  waitState,
} from './stepfunctions-callback.harness.ts';

/**
 * A callback task (`waitForTaskToken`) woken, failed or stopped through the SFN API: the token
 * each wait mints, what SendTaskSuccess and SendTaskFailure do with it, and the callback Lambda's
 * own part. Its timeouts and heartbeats are in stepfunctions-callback-timeouts.test.ts.
 */

describe.concurrent('waitForTaskToken', () => {
  it('resumes the wait with the output given to SendTaskSuccess', async (context) => {
    const { expect } = context;
    const { client, registerWait, start } = await conversationSandbox(context);
    const executionArn = await start('conv-1');
    const wait = await registerWait.next();

    await client.send(
      new SendTaskSuccessCommand({ taskToken: wait.taskToken, output: '{"woken":"message"}' }),
    );
    const execution = await settled(client, executionArn);

    expect(wait.payload).toMatchObject({ conversationId: 'conv-1', accepts: ['reporter'] });
    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output as string)).toEqual({
      conversationId: 'conv-1',
      wake: { woken: 'message' },
    });
  });

  it('records the wait as scheduled, started, submitted and succeeded, with the minted token in its parameters', async (context) => {
    const { expect } = context;
    const { client, registerWait, start } = await conversationSandbox(context);
    const executionArn = await start('conv-h');
    const wait = await registerWait.next();
    await client.send(new SendTaskSuccessCommand({ taskToken: wait.taskToken, output: '{"woken":"close"}' }));
    await settled(client, executionArn);

    const { events = [] } = await client.send(new GetExecutionHistoryCommand({ executionArn }));

    expect(events.map((event) => event.type)).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskSubmitted',
      'TaskSucceeded',
      'TaskStateExited',
      'ExecutionSucceeded',
    ]);
    const scheduled = events[2]?.taskScheduledEventDetails;
    expect(scheduled).toMatchObject({ resourceType: 'lambda', resource: 'invoke.waitForTaskToken' });
    expect(JSON.parse(scheduled?.parameters as string).Payload.taskToken).toBe(wait.taskToken);
    expect(events[5]?.taskSucceededEventDetails?.output).toBe('{"woken":"close"}');
  });

  it('mints a different token for each of two concurrent waits and wakes each its own execution', async (context) => {
    const { expect } = context;
    const { client, registerWait, start } = await conversationSandbox(context);
    const first = await start('conv-a');
    const second = await start('conv-b');
    const waits = [await registerWait.next(), await registerWait.next()];
    const tokenOf = (conversationId: string) =>
      waits.find((wait) => wait.payload.conversationId === conversationId)?.taskToken as string;

    expect(tokenOf('conv-a')).not.toBe(tokenOf('conv-b'));
    await client.send(new SendTaskSuccessCommand({ taskToken: tokenOf('conv-b'), output: '{"n":"b"}' }));
    await client.send(new SendTaskSuccessCommand({ taskToken: tokenOf('conv-a'), output: '{"n":"a"}' }));

    expect(JSON.parse((await settled(client, first)).output as string).wake).toEqual({ n: 'a' });
    expect(JSON.parse((await settled(client, second)).output as string).wake).toEqual({ n: 'b' });
  });

  it('mints a fresh token for each wait of the same execution, in parallel branches too', async (context) => {
    const { expect } = context;
    const branch = (name: string) => ({
      StartAt: name,
      States: { [name]: { ...waitState(), Catch: undefined, ResultPath: '$.wake' } },
    });
    const { client, registerWait, start } = await conversationSandbox(context, {
      definition: {
        StartAt: 'Both',
        States: { Both: { Type: 'Parallel', Branches: [branch('A'), branch('B')], End: true } },
      },
    });
    const executionArn = await start('conv-p');
    const waits = [await registerWait.next(), await registerWait.next()];

    expect(waits[0]?.taskToken).not.toBe(waits[1]?.taskToken);
    for (const [index, wait] of waits.entries()) {
      await client.send(new SendTaskSuccessCommand({ taskToken: wait.taskToken, output: String(index) }));
    }
    const execution = await settled(client, executionArn);

    expect(execution.status).toBe('SUCCEEDED');
    expect(
      JSON.parse(execution.output as string)
        .map((branchOutput: { wake: number }) => branchOutput.wake)
        .sort(),
    ).toEqual([0, 1]);
  });

  it('answers a second SendTaskSuccess on the same token with TaskTimedOut', async (context) => {
    const { expect } = context;
    const { client, registerWait, start } = await conversationSandbox(context);
    const executionArn = await start('conv-2');
    const { taskToken } = await registerWait.next();
    await client.send(new SendTaskSuccessCommand({ taskToken, output: '{}' }));

    const again = client.send(new SendTaskSuccessCommand({ taskToken, output: '{}' }));

    await expect(again).rejects.toBeInstanceOf(TaskTimedOut);
    expect((await settled(client, executionArn)).status).toBe('SUCCEEDED');
  });

  it('answers a token it never issued with InvalidToken', async (context) => {
    const { expect } = context;
    const { client } = await conversationSandbox(context);

    const unknown = client.send(new SendTaskSuccessCommand({ taskToken: 'AQnot-a-token', output: '{}' }));

    await expect(unknown).rejects.toBeInstanceOf(InvalidToken);
  });

  it('rejects an output that is not JSON and keeps the wait open', async (context) => {
    const { expect } = context;
    const { client, registerWait, start } = await conversationSandbox(context);
    const executionArn = await start('conv-j');
    const { taskToken } = await registerWait.next();

    await expect(
      client.send(new SendTaskSuccessCommand({ taskToken, output: '{oops' })),
    ).rejects.toMatchObject({
      name: 'InvalidOutput',
    });
    await client.send(new SendTaskSuccessCommand({ taskToken, output: '{"ok":true}' }));
    expect((await settled(client, executionArn)).status).toBe('SUCCEEDED');
  });

  it('routes SendTaskFailure to the Catch of its error name', async (context) => {
    const { expect } = context;
    const { client, registerWait, start } = await conversationSandbox(context);
    const executionArn = await start('conv-3');
    const { taskToken } = await registerWait.next();

    await client.send(
      new SendTaskFailureCommand({ taskToken, error: 'ReporterLeft', cause: 'left the channel' }),
    );
    const execution = await settled(client, executionArn);

    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output as string).failure).toEqual({
      Error: 'ReporterLeft',
      Cause: 'left the channel',
    });
    const { events = [] } = await client.send(new GetExecutionHistoryCommand({ executionArn }));
    expect(events.find((event) => event.type === 'TaskFailed')?.taskFailedEventDetails).toMatchObject({
      error: 'ReporterLeft',
      cause: 'left the channel',
    });
  });

  it('fails the wait with the Lambda error when the callback Lambda itself fails', async (context) => {
    const { expect } = context;
    const sandbox = await ownStepFunctions(context, {
      invokeLambda: async () => {
        throw lambdaError('ReporterLeft', 'no such conversation');
      },
    });
    sandbox.runtime.registerStateMachine({
      arn: MACHINE,
      name: 'Conversation',
      definition: conversationDefinition(),
    });

    const { executionArn } = sandbox.runtime.startExecution({
      stateMachineArn: MACHINE,
      input: '{"conversationId":"c"}',
    });
    const execution = await sandbox.runtime.waitForExecution(executionArn);

    expect(JSON.parse(execution.output as string).failure.Error).toBe('ReporterLeft');
  });

  it('lets the callback Lambda answer its own wait during its invocation (a message was already pending)', async (context) => {
    const { expect } = context;
    const sandbox: Awaited<ReturnType<typeof startStepFunctions>> = await ownStepFunctions(context, {
      invokeLambda: async (_arn, payload) => {
        const { taskToken } = payload as { taskToken: string };
        sandbox.runtime.sendTaskSuccess(taskToken, '{"woken":"message"}');
        return { registered: true };
      },
    });
    sandbox.runtime.registerStateMachine({
      arn: MACHINE,
      name: 'Conversation',
      definition: conversationDefinition(),
    });

    const { executionArn } = sandbox.runtime.startExecution({
      stateMachineArn: MACHINE,
      input: '{"conversationId":"c"}',
    });
    const execution = await sandbox.runtime.waitForExecution(executionArn);

    expect(JSON.parse(execution.output as string).wake).toEqual({ woken: 'message' });
  });
});

describe.concurrent('StopExecution', () => {
  it('aborts a waiting execution and retires its token', async (context) => {
    const { expect } = context;
    const { client, registerWait, runtime, start } = await conversationSandbox(context);
    const executionArn = await start('conv-5');
    const { taskToken } = await registerWait.next();

    const { stopDate } = await client.send(
      new StopExecutionCommand({ executionArn, error: 'Closed', cause: 'closed by an operator' }),
    );
    const execution = await settled(client, executionArn);

    expect(stopDate).toBeInstanceOf(Date);
    expect(execution).toMatchObject({ status: 'ABORTED', error: 'Closed', cause: 'closed by an operator' });
    await expect(client.send(new SendTaskSuccessCommand({ taskToken, output: '{}' }))).rejects.toBeInstanceOf(
      TaskTimedOut,
    );
    await runtime.waitForExecution(executionArn);
    const { events = [] } = await client.send(new GetExecutionHistoryCommand({ executionArn }));
    expect(events.at(-1)).toMatchObject({
      type: 'ExecutionAborted',
      executionAbortedEventDetails: { error: 'Closed', cause: 'closed by an operator' },
    });
  });
});
