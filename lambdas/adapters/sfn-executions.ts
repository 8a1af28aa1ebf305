import {
  ExecutionAlreadyExists,
  InvalidToken,
  SendTaskSuccessCommand,
  type SFNClient,
  StartExecutionCommand,
  TaskDoesNotExist,
  TaskTimedOut,
} from '@aws-sdk/client-sfn';
import type { TaskCompleter } from '../kernel/approval-wait.ts';
import type { Executions, StartResult, WakeResult } from '../kernel/ports.ts';
import type { WakeOutput } from '../kernel/tasks.ts';

/**
 * `arn:aws:states:r:a:stateMachine:Name` + `exec` -> `arn:aws:states:r:a:execution:Name:exec`.
 * An execution started through an alias or a version (`...:stateMachine:Name:live`) is named
 * under the state machine itself: the qualifier is not part of its ARN.
 */
function executionArnFor(stateMachineArn: string, name: string): string {
  const unqualified = stateMachineArn.split(':').slice(0, 7).join(':');
  return `${unqualified.replace(':stateMachine:', ':execution:')}:${name}`;
}

/** Step Functions calls of the kernel, with the "already done" answers translated to results. */
export class SfnExecutions implements Executions, TaskCompleter {
  constructor(private readonly client: SFNClient) {}

  async start(stateMachineArn: string, name: string, input: unknown): Promise<StartResult> {
    try {
      const out = await this.client.send(
        new StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify(input) }),
      );
      return { status: 'started', executionArn: out.executionArn ?? executionArnFor(stateMachineArn, name) };
    } catch (error) {
      // The execution is named after the conversation: a second start of it is a redelivery.
      if (error instanceof ExecutionAlreadyExists) {
        return { status: 'already_started', executionArn: executionArnFor(stateMachineArn, name) };
      }
      throw error;
    }
  }

  async wake(taskToken: string, output: WakeOutput): Promise<WakeResult> {
    return (await this.complete(taskToken, output)) === 'completed' ? 'woken' : 'already_woken';
  }

  async complete(taskToken: string, output: unknown): Promise<'completed' | 'already_ended'> {
    try {
      await this.client.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(output) }));
      return 'completed';
    } catch (error) {
      // The other side of the protocol (or a timeout) ended the wait first: completing twice is harmless.
      if (
        error instanceof TaskTimedOut ||
        error instanceof InvalidToken ||
        error instanceof TaskDoesNotExist
      ) {
        return 'already_ended';
      }
      throw error;
    }
  }
}
