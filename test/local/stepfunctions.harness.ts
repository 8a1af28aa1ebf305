import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  DescribeExecutionCommand,
  type DescribeExecutionCommandOutput,
  SFNClient,
} from '@aws-sdk/client-sfn';
import { createStepFunctionsApi } from '../../local/stepfunctions/api.ts';
import { LocalStepFunctions } from '../../local/stepfunctions/runtime.ts';
import { eventually } from '../support/eventually.ts';

/** What the Step Functions emulator is built with. */
type LocalStepFunctionsOptions = ConstructorParameters<typeof LocalStepFunctions>[0];

/** The sandbox's Step Functions behind a real HTTP server, and a real SFN client pointed at it. */
export async function startStepFunctions(
  options: Partial<LocalStepFunctionsOptions> & Pick<LocalStepFunctionsOptions, 'invokeLambda'>,
) {
  const runtime = new LocalStepFunctions({ timeScale: 1, ...options });
  const api = createStepFunctionsApi(runtime);
  const server = createServer((req, res) => void api(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const client = new SFNClient({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${port}`,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
  return {
    runtime,
    client,
    close: async () => {
      await runtime.close();
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const machineArn = (name: string) => `arn:aws:states:us-east-1:000000000000:stateMachine:${name}`;
export const lambdaArn = (name: string) => `arn:aws:lambda:us-east-1:000000000000:function:${name}`;

/** Polls DescribeExecution until the execution has left RUNNING. */
export async function settled(
  client: SFNClient,
  executionArn: string,
  stallMs = 20_000,
): Promise<DescribeExecutionCommandOutput> {
  return eventually(
    () => client.send(new DescribeExecutionCommand({ executionArn })),
    (execution) => execution.status !== 'RUNNING',
    `${executionArn} to leave RUNNING`,
    { stallMs, intervalMs: 20 },
  );
}

/** What a fake RegisterWait was called with: the token of a wait, and the rest of its payload. */
export interface WaitCall {
  readonly taskToken: string;
  readonly payload: Record<string, unknown>;
}

/**
 * A fake RegisterWait Lambda: records each wait's token; `next()` resolves with the next call,
 * whether it already happened or not.
 */
export function registerWaitFake() {
  const calls: WaitCall[] = [];
  const waiters: Array<(call: WaitCall) => void> = [];
  let delivered = 0;
  return {
    calls,
    invoke(payload: unknown): void {
      const record = payload as Record<string, unknown>;
      const call = { taskToken: String(record.taskToken), payload: record };
      calls.push(call);
      waiters.shift()?.(call);
    },
    next(): Promise<WaitCall> {
      const index = delivered++;
      const call = calls[index];
      if (call) return Promise.resolve(call);
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}

/** An error whose `name` is the Lambda error type, as the in-process Lambda invoker throws. */
export function lambdaError(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

export const elapsedSince = (start: number) => Date.now() - start;
