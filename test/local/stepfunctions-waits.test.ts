import { GetExecutionHistoryCommand } from '@aws-sdk/client-sfn';
import { describe, it, type TestContext } from 'vitest';
import { elapsedSince, machineArn, startStepFunctions } from './stepfunctions.harness.ts';

/**
 * An upper bound only shows that a wait was scaled (or not made at all), never how fast the
 * machine is: an hour at time scale 0.0005 takes 1.8 s, and the bound is a sixtieth of the
 * unscaled hour, so a machine thirty times slower than usual still passes.
 */
const SCALED_BOUND_MS = 60_000;

/**
 * The tests run at once (`describe.concurrent`): most of their time is the scaled waits they
 * measure, and each has a Step Functions runtime of its own, closed when it finishes.
 */
async function ownStepFunctions(context: TestContext, timeScale: number) {
  const sandbox = await startStepFunctions({ timeScale, invokeLambda: async () => null });
  context.onTestFinished(() => sandbox.close());
  return sandbox;
}

async function runWait(
  context: TestContext,
  wait: Record<string, unknown>,
  input: unknown,
  timeScale: number,
) {
  const sandbox = await ownStepFunctions(context, timeScale);
  sandbox.runtime.registerStateMachine({
    arn: machineArn('Waiting'),
    name: 'Waiting',
    definition: {
      StartAt: 'Pause',
      States: { Pause: { Type: 'Wait', ...wait, Next: 'After' }, After: { Type: 'Pass', End: true } },
    },
  });
  const began = Date.now();
  const { executionArn } = sandbox.runtime.startExecution({
    stateMachineArn: machineArn('Waiting'),
    input: JSON.stringify(input),
  });
  const execution = await sandbox.runtime.waitForExecution(executionArn);
  return { execution, elapsed: elapsedSince(began), executionArn, client: sandbox.client };
}

describe.concurrent('Wait states at a time scale', () => {
  it('waits an hour in about 1.8 s at time scale 0.0005', async (context) => {
    const { expect } = context;
    const { execution, elapsed, executionArn, client } = await runWait(
      context,
      { Seconds: 3600 },
      { a: 1 },
      0.0005,
    );

    expect(execution.status).toBe('SUCCEEDED');
    expect(execution.output).toBe('{"a":1}');
    expect(elapsed).toBeGreaterThanOrEqual(1500);
    expect(elapsed).toBeLessThan(SCALED_BOUND_MS);
    const { events = [] } = await client.send(new GetExecutionHistoryCommand({ executionArn }));
    expect(events.map((event) => event.type)).toEqual([
      'ExecutionStarted',
      'WaitStateEntered',
      'WaitStateExited',
      'PassStateEntered',
      'PassStateExited',
      'ExecutionSucceeded',
    ]);
  });

  it('scales a SecondsPath wait read from the input, keeping the Wait in the history', async (context) => {
    const { expect } = context;
    const { execution, elapsed, executionArn, client } = await runWait(
      context,
      { SecondsPath: '$.delay', OutputPath: '$.keep' },
      { delay: 3600, keep: { x: 1 } },
      0.0005,
    );

    expect(execution.output).toBe('{"x":1}');
    expect(elapsed).toBeGreaterThanOrEqual(1500);
    expect(elapsed).toBeLessThan(SCALED_BOUND_MS);
    const { events = [] } = await client.send(new GetExecutionHistoryCommand({ executionArn }));
    expect(events.map((event) => event.type).slice(1, 3)).toEqual(['WaitStateEntered', 'WaitStateExited']);
  });

  it('fails the execution with States.Runtime when SecondsPath is not a number', async (context) => {
    const { expect } = context;
    const { execution } = await runWait(context, { SecondsPath: '$.delay' }, { delay: 'soon' }, 0.001);

    expect(execution).toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
  });

  it('scales the time left until a TimestampPath', async (context) => {
    const { expect } = context;
    const inAnHour = new Date(Date.now() + 3600_000).toISOString();

    const { execution, elapsed } = await runWait(
      context,
      { TimestampPath: '$.until' },
      { until: inAnHour },
      0.0005,
    );

    expect(execution.status).toBe('SUCCEEDED');
    expect(elapsed).toBeGreaterThanOrEqual(1400);
    expect(elapsed).toBeLessThan(SCALED_BOUND_MS);
  });

  it('scales the time left until a fixed Timestamp, measured when the state runs', async (context) => {
    const { expect } = context;
    const inAnHour = new Date(Date.now() + 3600_000).toISOString();

    const { execution, elapsed } = await runWait(context, { Timestamp: inAnHour }, {}, 0.0005);

    expect(execution.status).toBe('SUCCEEDED');
    expect(elapsed).toBeGreaterThanOrEqual(1400);
    expect(elapsed).toBeLessThan(SCALED_BOUND_MS);
  });

  it('passes a Timestamp already past at once', async (context) => {
    const { expect } = context;
    const { execution, elapsed } = await runWait(context, { Timestamp: '2001-01-01T00:00:00Z' }, {}, 1);

    expect(execution.status).toBe('SUCCEEDED');
    expect(elapsed).toBeLessThan(SCALED_BOUND_MS);
  });

  it('times out the whole execution after its scaled TimeoutSeconds', async (context) => {
    const { expect } = context;
    const sandbox = await ownStepFunctions(context, 0.001);
    sandbox.runtime.registerStateMachine({
      arn: machineArn('Slow'),
      name: 'Slow',
      definition: {
        TimeoutSeconds: 600,
        StartAt: 'Pause',
        States: { Pause: { Type: 'Wait', Seconds: 86400, End: true } },
      },
    });

    const { executionArn } = sandbox.runtime.startExecution({ stateMachineArn: machineArn('Slow') });
    const execution = await sandbox.runtime.waitForExecution(executionArn);

    expect(execution).toMatchObject({ status: 'TIMED_OUT', error: 'States.Timeout' });
    expect(sandbox.runtime.getExecutionHistory(executionArn).at(-1)?.type).toBe('ExecutionTimedOut');
  });

  it('stops a waiting execution at once', async (context) => {
    const { expect } = context;
    const sandbox = await ownStepFunctions(context, 1);
    sandbox.runtime.registerStateMachine({
      arn: machineArn('Long'),
      name: 'Long',
      definition: { StartAt: 'Pause', States: { Pause: { Type: 'Wait', Seconds: 86400, End: true } } },
    });
    const { executionArn } = sandbox.runtime.startExecution({ stateMachineArn: machineArn('Long') });

    sandbox.runtime.stopExecution(executionArn);
    const execution = await sandbox.runtime.waitForExecution(executionArn);

    expect(execution.status).toBe('ABORTED');
  });
});
