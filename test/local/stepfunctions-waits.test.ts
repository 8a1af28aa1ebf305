import { GetExecutionHistoryCommand } from '@aws-sdk/client-sfn';
import { afterEach, describe, expect, it } from 'vitest';
import { elapsedSince, machineArn, startStepFunctions } from './stepfunctions.harness.ts';

type Sandbox = Awaited<ReturnType<typeof startStepFunctions>>;
let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function runWait(wait: Record<string, unknown>, input: unknown, timeScale: number) {
  sandbox = await startStepFunctions({ timeScale, invokeLambda: async () => null });
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

describe('Wait states at a time scale', () => {
  it('waits an hour in about 1.8 s at time scale 0.0005', async () => {
    const { execution, elapsed, executionArn, client } = await runWait({ Seconds: 3600 }, { a: 1 }, 0.0005);

    expect(execution.status).toBe('SUCCEEDED');
    expect(execution.output).toBe('{"a":1}');
    expect(elapsed).toBeGreaterThanOrEqual(1500);
    expect(elapsed).toBeLessThan(10_000);
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

  it('scales a SecondsPath wait read from the input, keeping the Wait in the history', async () => {
    const { execution, elapsed, executionArn, client } = await runWait(
      { SecondsPath: '$.delay', OutputPath: '$.keep' },
      { delay: 3600, keep: { x: 1 } },
      0.0005,
    );

    expect(execution.output).toBe('{"x":1}');
    expect(elapsed).toBeGreaterThanOrEqual(1500);
    expect(elapsed).toBeLessThan(10_000);
    const { events = [] } = await client.send(new GetExecutionHistoryCommand({ executionArn }));
    expect(events.map((event) => event.type).slice(1, 3)).toEqual(['WaitStateEntered', 'WaitStateExited']);
  });

  it('fails the execution with States.Runtime when SecondsPath is not a number', async () => {
    const { execution } = await runWait({ SecondsPath: '$.delay' }, { delay: 'soon' }, 0.001);

    expect(execution).toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
  });

  it('scales the time left until a TimestampPath', async () => {
    const inAnHour = new Date(Date.now() + 3600_000).toISOString();

    const { execution, elapsed } = await runWait({ TimestampPath: '$.until' }, { until: inAnHour }, 0.0005);

    expect(execution.status).toBe('SUCCEEDED');
    expect(elapsed).toBeGreaterThanOrEqual(1400);
    expect(elapsed).toBeLessThan(10_000);
  });

  it('scales the time left until a fixed Timestamp, measured when the state runs', async () => {
    const inAnHour = new Date(Date.now() + 3600_000).toISOString();

    const { execution, elapsed } = await runWait({ Timestamp: inAnHour }, {}, 0.0005);

    expect(execution.status).toBe('SUCCEEDED');
    expect(elapsed).toBeGreaterThanOrEqual(1400);
    expect(elapsed).toBeLessThan(10_000);
  });

  it('passes a Timestamp already past at once', async () => {
    const { execution, elapsed } = await runWait({ Timestamp: '2001-01-01T00:00:00Z' }, {}, 1);

    expect(execution.status).toBe('SUCCEEDED');
    expect(elapsed).toBeLessThan(5_000);
  });

  it('times out the whole execution after its scaled TimeoutSeconds', async () => {
    sandbox = await startStepFunctions({ timeScale: 0.001, invokeLambda: async () => null });
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

  it('stops a waiting execution at once', async () => {
    sandbox = await startStepFunctions({ timeScale: 1, invokeLambda: async () => null });
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
