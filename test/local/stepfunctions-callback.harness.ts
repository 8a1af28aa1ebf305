import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { TestContext } from 'vitest';
import { lambdaArn, machineArn, registerWaitFake, startStepFunctions } from './stepfunctions.harness.ts';

/**
 * The kernel's wait for a human as a callback task (`waitForTaskToken`), in a Step Functions
 * runtime of a test's own: what stepfunctions-callbacks.test.ts and
 * stepfunctions-callback-timeouts.test.ts both start their conversations with.
 */

/**
 * The tests run at once (`describe.concurrent`): the slow ones spend their time in the scaled
 * timeouts they measure, and each has a Step Functions runtime of its own, closed when it finishes.
 */
export async function ownStepFunctions(
  context: TestContext,
  options: Parameters<typeof startStepFunctions>[0],
) {
  const sandbox = await startStepFunctions(options);
  context.onTestFinished(() => sandbox.close());
  return sandbox;
}

const REGISTER_WAIT = lambdaArn('RegisterWait');
export const MACHINE = machineArn('Conversation');

/** The kernel's wait for a human, as CDK renders `waitForPeople` plus its timeout Catch. */
export function waitState(
  options: { timeoutSeconds?: number; heartbeatSeconds?: number; next?: string } = {},
) {
  return {
    Type: 'Task',
    Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
    Parameters: {
      FunctionName: REGISTER_WAIT,
      Payload: {
        'conversationId.$': '$.conversationId',
        'taskToken.$': '$$.Task.Token',
        accepts: ['reporter'],
      },
    },
    TimeoutSeconds: options.timeoutSeconds ?? 7200,
    ...(options.heartbeatSeconds !== undefined && { HeartbeatSeconds: options.heartbeatSeconds }),
    ResultPath: '$.wake',
    Catch: [
      { ErrorEquals: ['States.Timeout'], ResultPath: '$.timedOut', Next: 'Timed out' },
      { ErrorEquals: ['ReporterLeft'], ResultPath: '$.failure', Next: 'Reporter left' },
    ],
    ...(options.next ? { Next: options.next } : { End: true }),
  };
}

export const conversationDefinition = (wait: Record<string, unknown> = waitState()) => ({
  StartAt: 'Wait for reporter',
  States: {
    'Wait for reporter': wait,
    'Timed out': { Type: 'Pass', End: true },
    'Reporter left': { Type: 'Pass', End: true },
  },
});

export async function conversationSandbox(
  context: TestContext,
  options: { timeScale?: number; definition?: unknown } = {},
) {
  const registerWait = registerWaitFake();
  const sandbox = await ownStepFunctions(context, {
    timeScale: options.timeScale ?? 1,
    invokeLambda: async (arn, payload) => {
      if (arn === REGISTER_WAIT) registerWait.invoke(payload);
      return { registered: true };
    },
  });
  sandbox.runtime.registerStateMachine({
    arn: MACHINE,
    name: 'Conversation',
    definition: options.definition ?? conversationDefinition(),
  });
  const start = async (name: string) => {
    const started = await sandbox.client.send(
      new StartExecutionCommand({
        stateMachineArn: MACHINE,
        name,
        input: JSON.stringify({ conversationId: name }),
      }),
    );
    return started?.executionArn as string;
  };
  return { ...sandbox, registerWait, start };
}
