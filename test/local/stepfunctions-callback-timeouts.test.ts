import {
  GetExecutionHistoryCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  TaskTimedOut,
} from '@aws-sdk/client-sfn';
import { describe, it } from 'vitest';
import { elapsedSince, settled } from './stepfunctions.harness.ts';
import { conversationDefinition, conversationSandbox, waitState } from './stepfunctions-callback.harness.ts';

/**
 * The timeouts of a callback task (`waitForTaskToken`): `TimeoutSeconds` scaled by the time
 * scale into its `States.Timeout` Catch, and `HeartbeatSeconds` re-armed by each
 * SendTaskHeartbeat until the beats stop. Sending, failing and stopping a wait are in
 * stepfunctions-callbacks.test.ts.
 */

describe.concurrent('waitForTaskToken timeouts', () => {
  it('times out a 2-hour wait in about 3.6 s at time scale 0.0005, into the States.Timeout Catch', async (context) => {
    const { expect } = context;
    const { client, registerWait, start } = await conversationSandbox(context, { timeScale: 0.0005 });
    const began = Date.now();
    const executionArn = await start('conv-4');
    const { taskToken } = await registerWait.next();

    const execution = await settled(client, executionArn);
    const elapsed = elapsedSince(began);

    expect(elapsed).toBeGreaterThanOrEqual(3000);
    // Only that the 2-hour wait was scaled: a thirtieth of it, whatever the machine's load.
    expect(elapsed).toBeLessThan((2 * 3600_000) / 30);
    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output as string).timedOut.Error).toBe('States.Timeout');
    await expect(client.send(new SendTaskSuccessCommand({ taskToken, output: '{}' }))).rejects.toBeInstanceOf(
      TaskTimedOut,
    );
    const { events = [] } = await client.send(new GetExecutionHistoryCommand({ executionArn }));
    const types = events.map((event) => event.type);
    expect(types.indexOf('TaskTimedOut')).toBeGreaterThan(types.indexOf('TaskSubmitted'));
    expect(types).toContain('PassStateEntered');
  });

  it('does not let States.TaskFailed catch a timeout (regression: the library exempts only its own error class)', async (context) => {
    const { expect } = context;
    const wait = {
      ...waitState({ timeoutSeconds: 1 }),
      Catch: [
        { ErrorEquals: ['States.TaskFailed'], Next: 'Reporter left' },
        { ErrorEquals: ['States.Timeout'], ResultPath: '$.timedOut', Next: 'Timed out' },
      ],
    };
    const { runtime, start } = await conversationSandbox(context, {
      timeScale: 0.05,
      definition: conversationDefinition(wait),
    });

    const execution = await runtime.waitForExecution(await start('conv-tf'));

    expect(JSON.parse(execution.output as string).timedOut.Error).toBe('States.Timeout');
  });

  it('keeps a wait with HeartbeatSeconds alive while heartbeats arrive, then fails it with States.HeartbeatTimeout', async (context) => {
    const { expect } = context;
    const wait = {
      ...waitState({ heartbeatSeconds: 20 }),
      Catch: [
        { ErrorEquals: ['States.HeartbeatTimeout'], ResultPath: '$.timedOut', Next: 'Timed out' },
        { ErrorEquals: ['ReporterLeft'], Next: 'Reporter left' },
      ],
    };
    // HeartbeatSeconds 20 -> 2 s; TimeoutSeconds 7200 -> 720 s.
    const { client, registerWait, start } = await conversationSandbox(context, {
      timeScale: 0.1,
      definition: conversationDefinition(wait),
    });
    const began = Date.now();
    const executionArn = await start('conv-hb');
    const { taskToken } = await registerWait.next();

    for (let beat = 0; beat < 16; beat++) {
      // Beats paced in real time, four to a 2 s heartbeat period, over two periods: the pacing
      // is what is tested, and a busy machine may hold a beat back 1.75 s before one is missed.
      await new Promise((resolve) => setTimeout(resolve, 250));
      await client.send(new SendTaskHeartbeatCommand({ taskToken }));
    }
    const execution = await settled(client, executionArn);

    // Alive for two periods and more: the beats re-armed its heartbeat.
    expect(elapsedSince(began)).toBeGreaterThanOrEqual(4000);
    expect(JSON.parse(execution.output as string).timedOut.Error).toBe('States.HeartbeatTimeout');
    await expect(client.send(new SendTaskHeartbeatCommand({ taskToken }))).rejects.toBeInstanceOf(
      TaskTimedOut,
    );
  });
});
