import {
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  StartExecutionCommand,
  TaskTimedOut,
} from '@aws-sdk/client-sfn';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../local/stepfunctions/clock.ts';
import { eventually } from '../support/eventually.ts';
import {
  lambdaArn,
  machineArn,
  registerWaitFake,
  settled,
  startStepFunctions,
} from './stepfunctions.harness.ts';

/**
 * The manual clock: the waits the runtime runs itself (a callback task's TimeoutSeconds and
 * HeartbeatSeconds, a Wait on SecondsPath) fire when the clock is advanced, never on real time,
 * and a timeout they cause is the same `States.Timeout` the real clock's is.
 */

type Sandbox = Awaited<ReturnType<typeof startStepFunctions>>;
let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const REGISTER_WAIT = lambdaArn('RegisterWait');
const MACHINE = machineArn('Clocked');
const HOUR_MS = 3_600_000;

/** A two-hour wait for a person; `then` says where it goes after it (its End, or a Next). */
function waitState(
  catchers: unknown[],
  extra: Record<string, unknown> = {},
  then: Record<string, unknown> = { End: true },
) {
  return {
    Type: 'Task',
    Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
    Parameters: { FunctionName: REGISTER_WAIT, Payload: { 'taskToken.$': '$$.Task.Token' } },
    TimeoutSeconds: 7200,
    ResultPath: '$.wake',
    ...(catchers.length > 0 ? { Catch: catchers } : {}),
    ...extra,
    ...then,
  };
}

async function clockedSandbox(definition: Record<string, unknown>) {
  const clock = new ManualClock();
  const registerWait = registerWaitFake();
  sandbox = await startStepFunctions({
    clock,
    invokeLambda: async (arn, payload) => {
      if (arn === REGISTER_WAIT) registerWait.invoke(payload);
      return { registered: true };
    },
  });
  sandbox.runtime.registerStateMachine({ arn: MACHINE, name: 'Clocked', definition });
  const { client } = sandbox;
  const { executionArn } = await client.send(
    new StartExecutionCommand({ stateMachineArn: MACHINE, name: 'run-1', input: '{}' }),
  );
  const status = async () =>
    (await client.send(new DescribeExecutionCommand({ executionArn: executionArn as string }))).status;
  return { clock, client, registerWait, executionArn: executionArn as string, status };
}

const withTimeoutPath = (wait: Record<string, unknown>) => ({
  StartAt: 'Wait for reporter',
  States: { 'Wait for reporter': wait, 'Timed out': { Type: 'Pass', End: true } },
});

describe('the manual clock', () => {
  it('times a two-hour wait out when the clock passes two hours, not before, and takes its Catch', async () => {
    const { clock, client, registerWait, executionArn, status } = await clockedSandbox(
      withTimeoutPath(
        waitState(
          [{ ErrorEquals: ['States.Timeout'], ResultPath: '$.timedOut', Next: 'Timed out' }],
          {},
          { Next: 'Timed out' },
        ),
      ),
    );
    await registerWait.next();
    // One timer, two hours away (less the real milliseconds since the task was entered).
    expect(clock.pending()).toHaveLength(1);
    expect(clock.pending()[0]).toBeGreaterThan(2 * HOUR_MS - 60_000);
    expect(clock.armed()[0]?.owner?.state).toBe('Wait for reporter');

    await clock.advance(2 * HOUR_MS - 1_000);
    expect(await status()).toBe('RUNNING');
    await clock.advance(1_000);
    const execution = await settled(client, executionArn);

    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output as string).timedOut).toMatchObject({ Error: 'States.Timeout' });
    const { events = [] } = await client.send(new GetExecutionHistoryCommand({ executionArn }));
    const entered = events.find((event) => event.type === 'TaskStateEntered')?.timestamp as Date;
    const timedOut = events.find((event) => event.type === 'TaskTimedOut')?.timestamp as Date;
    // The history reads the same clock: the timeout comes two hours after the state was entered.
    expect(Math.abs(timedOut.getTime() - entered.getTime() - 2 * HOUR_MS)).toBeLessThan(1_000);
  });

  it('answers TaskTimedOut to an answer sent after the clock timed the wait out', async () => {
    const { clock, client, registerWait, executionArn } = await clockedSandbox(
      withTimeoutPath(
        waitState([{ ErrorEquals: ['States.Timeout'], Next: 'Timed out' }], {}, { Next: 'Timed out' }),
      ),
    );
    const wait = await registerWait.next();
    await clock.advance(2 * HOUR_MS);
    await settled(client, executionArn);

    await expect(
      client.send(new SendTaskSuccessCommand({ taskToken: wait.taskToken, output: '{"woken":"message"}' })),
    ).rejects.toBeInstanceOf(TaskTimedOut);
  });

  it('keeps its timeout out of a States.TaskFailed Catch, as the real clock does', async () => {
    const { clock, client, registerWait, executionArn } = await clockedSandbox(
      withTimeoutPath(waitState([{ ErrorEquals: ['States.TaskFailed'], Next: 'Timed out' }])),
    );
    await registerWait.next();
    await clock.advance(2 * HOUR_MS);
    const execution = await settled(client, executionArn);

    expect(execution).toMatchObject({ status: 'FAILED', error: 'States.Timeout' });
  });

  it('re-arms the heartbeat on each SendTaskHeartbeat and times out a silent task', async () => {
    const { clock, client, registerWait, executionArn, status } = await clockedSandbox({
      StartAt: 'Wait for reporter',
      States: { 'Wait for reporter': waitState([], { HeartbeatSeconds: 60 }) },
    });
    const wait = await registerWait.next();
    await clock.advance(59_000);
    await client.send(new SendTaskHeartbeatCommand({ taskToken: wait.taskToken }));
    await clock.advance(59_000);
    expect(await status()).toBe('RUNNING');

    await clock.advance(1_000);
    const execution = await settled(client, executionArn);

    expect(execution).toMatchObject({ status: 'FAILED', error: 'States.HeartbeatTimeout' });
  });

  it('holds a day-long Wait on SecondsPath until the clock is advanced past it', async () => {
    const { clock, client, executionArn, status } = await clockedSandbox({
      StartAt: 'Pause',
      States: {
        Pause: { Type: 'Pass', Result: 86_400, ResultPath: '$.seconds', Next: 'Sleep' },
        Sleep: { Type: 'Wait', SecondsPath: '$.seconds', End: true },
      },
    });
    const [armed] = await eventually(
      async () => clock.armed(),
      (timers) => timers.length === 1,
      'the Wait to arm its timer',
    );
    // The timer names the execution and the state that armed it.
    expect(armed?.owner).toEqual({ execution: executionArn.split(':').at(-1), state: 'Sleep' });
    expect(await status()).toBe('RUNNING');

    expect(await clock.fireNext()).toBe(true);
    const execution = await settled(client, executionArn);

    expect(execution.status).toBe('SUCCEEDED');
    expect(await clock.fireNext()).toBe(false);
  });
});
