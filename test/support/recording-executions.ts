import type { Executions, StartResult, WakeResult } from '../../lambdas/kernel/ports.ts';
import type { WakeOutput } from '../../lambdas/kernel/tasks.ts';

/**
 * Step Functions as the Router's unit tests see it: starts are recorded (a second start under
 * a name answers `already_started`, as StartExecution does), wakes are recorded and succeed.
 */
export class RecordingExecutions implements Executions {
  readonly starts: { name: string; input: unknown }[] = [];
  readonly wakes: { token: string; output: WakeOutput }[] = [];
  async start(arn: string, name: string, input: unknown): Promise<StartResult> {
    const executionArn = `${arn}:${name}`;
    if (this.starts.some((s) => s.name === name)) return { status: 'already_started', executionArn };
    this.starts.push({ name, input });
    return { status: 'started', executionArn };
  }
  async wake(token: string, output: WakeOutput): Promise<WakeResult> {
    this.wakes.push({ token, output });
    return 'woken';
  }
}
