import { afterEach, describe, expect, it } from 'vitest';
import type { ExecutionSnapshot } from '../../local/stepfunctions/persisted-executions.ts';
import { LocalStepFunctions } from '../../local/stepfunctions/runtime.ts';
import { eventually } from '../support/eventually.ts';

/**
 * A sandbox that keeps its state: the executions saved when one Step Functions runtime stops
 * run on in the next, from the state each stood in, a callback Task with the token it handed
 * out before the stop.
 */

const MACHINE = 'arn:aws:states:us-east-1:000000000000:stateMachine:Conversation';
const ASK = 'arn:aws:lambda:us-east-1:000000000000:function:Ask';
const REGISTER_WAIT = 'arn:aws:lambda:us-east-1:000000000000:function:RegisterWait';

const definition = (waitName = 'Wait for reporter') => ({
  StartAt: 'Ask',
  States: {
    Ask: {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { FunctionName: ASK, 'Payload.$': '$' },
      ResultSelector: { 'asked.$': '$.Payload.asked' },
      ResultPath: '$.ask',
      Next: waitName,
    },
    [waitName]: {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
      Parameters: { FunctionName: REGISTER_WAIT, Payload: { 'token.$': '$$.Task.Token', 'id.$': '$.id' } },
      TimeoutSeconds: 7200,
      ResultPath: '$.wake',
      Next: 'Pause',
    },
    Pause: { Type: 'Wait', Seconds: 1, Next: 'Done' },
    Done: { Type: 'Pass', End: true },
  },
});

const runtimes: LocalStepFunctions[] = [];
afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.close();
});

/** A runtime with the conversation registered; it counts each function's invocations and keeps the tokens. */
function runtimeWith(waitName?: string) {
  const calls: string[] = [];
  const tokens: string[] = [];
  const runtime = new LocalStepFunctions({
    timeScale: 0.001,
    invokeLambda: async (arn, payload) => {
      calls.push(arn);
      if (arn === REGISTER_WAIT) tokens.push((payload as { token: string }).token);
      return { asked: 'which page?' };
    },
  });
  runtime.registerStateMachine({ arn: MACHINE, name: 'Conversation', definition: definition(waitName) });
  runtimes.push(runtime);
  return { runtime, calls, tokens };
}

/** Starts the conversation, waits until it waits, and saves what a stop would save (as JSON, like the file). */
async function savedWhileWaiting() {
  const first = runtimeWith();
  const { executionArn } = first.runtime.startExecution({
    stateMachineArn: MACHINE,
    name: 'bug-1',
    input: '{"id":"bug-1"}',
  });
  await eventually(
    () => first.runtime.getExecutionHistory(executionArn).map((event) => event.type),
    (types) => types.includes('TaskSubmitted'),
    'the wait to be registered',
  );
  const saved = JSON.parse(JSON.stringify(first.runtime.snapshot())) as ExecutionSnapshot[];
  await first.runtime.close();
  return { executionArn, saved, token: first.tokens[0] ?? '', calls: first.calls };
}

describe('executions across a restart', () => {
  it('a wait saved with its token is answered with that token after the restart, and runs to its end', async () => {
    const { executionArn, saved, token, calls } = await savedWhileWaiting();
    expect(saved[0]?.status).toBe('RUNNING');
    expect(saved[0]?.resume).toMatchObject({ stateName: 'Wait for reporter', token });

    const second = runtimeWith();
    second.runtime.restore(saved);
    expect(second.runtime.describeExecution(executionArn).status).toBe('RUNNING');
    await eventually(
      () => {
        second.runtime.sendTaskSuccess(token, '{"from":"U_REPORTER"}');
        return true;
      },
      (sent) => sent,
      'the restored wait to take its token',
    );
    const done = await second.runtime.waitForExecution(executionArn);

    expect(done.status).toBe('SUCCEEDED');
    expect(JSON.parse(done.output ?? '{}')).toEqual({
      id: 'bug-1',
      ask: { asked: 'which page?' },
      wake: { from: 'U_REPORTER' },
    });
    // The Lambdas ran once each, before the stop; the restored wait did not register again.
    expect(calls).toEqual([ASK, REGISTER_WAIT]);
    expect(second.calls).toEqual([]);
    const history = second.runtime.getExecutionHistory(executionArn);
    const entered = history.filter((event) => event.type === 'StateEntered').map((event) => event.stateName);
    expect(entered).toEqual(['Ask', 'Wait for reporter', 'Pause', 'Done']);
    expect(history.filter((event) => event.type === 'ExecutionStarted')).toHaveLength(1);
    expect(history.filter((event) => event.type === 'TaskScheduled')).toHaveLength(2);
  });

  it('an execution whose state the new definition no longer has fails, naming the state', async () => {
    const { executionArn, saved } = await savedWhileWaiting();
    const second = runtimeWith('Wait for the reporter');
    second.runtime.restore(saved);
    const failed = second.runtime.describeExecution(executionArn);
    expect(failed.status).toBe('FAILED');
    expect(failed.error).toBe('States.Runtime');
    expect(failed.cause).toContain(
      "the state 'Wait for reporter' it stood in no longer exists in Conversation",
    );
  });

  it('an ended execution comes back as it was; its spent token is unknown after the restart', async () => {
    const first = runtimeWith();
    const { executionArn } = first.runtime.startExecution({
      stateMachineArn: MACHINE,
      input: '{"id":"bug-2"}',
    });
    await eventually(
      () => first.tokens.length,
      (n) => n === 1,
      'the wait',
    );
    first.runtime.sendTaskSuccess(first.tokens[0] ?? '', '{}');
    await first.runtime.waitForExecution(executionArn);
    const saved = JSON.parse(JSON.stringify(first.runtime.snapshot())) as ExecutionSnapshot[];

    const second = runtimeWith();
    second.runtime.restore(saved);
    const restored = second.runtime.describeExecution(executionArn);
    expect(restored).toEqual(first.runtime.describeExecution(executionArn));
    expect(second.runtime.getExecutionHistory(executionArn)).toEqual(
      first.runtime.getExecutionHistory(executionArn),
    );
    expect(() => second.runtime.sendTaskSuccess(first.tokens[0] ?? '', '{}')).toThrow(/Invalid Token/i);
  });
});
