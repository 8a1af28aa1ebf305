import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../support/eventually.ts';
import { lambdaArn, machineArn, settled, startStepFunctions } from './stepfunctions.harness.ts';

/**
 * Map iterations in the sandbox's Step Functions: `$$.Map.Item.Index` and `$$.Map.Item.Value`
 * in the ItemSelector are each iteration's own (the runtime hands the library a static context
 * for `$$`, so this is what could go wrong), and MaxConcurrency bounds the Tasks in flight.
 */

type Sandbox = Awaited<ReturnType<typeof startStepFunctions>>;
let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const mapOver = (
  selector: Record<string, string>,
  field: 'ItemSelector' | 'Parameters' = 'ItemSelector',
) => ({
  StartAt: 'Each check',
  States: {
    'Each check': {
      Type: 'Map',
      ItemsPath: '$.checks',
      MaxConcurrency: 2,
      [field]: selector,
      [field === 'ItemSelector' ? 'ItemProcessor' : 'Iterator']: {
        ...(field === 'ItemSelector' ? { ProcessorConfig: { Mode: 'INLINE' } } : {}),
        StartAt: 'Run check',
        States: {
          'Run check': {
            Type: 'Task',
            Resource: 'arn:aws:states:::lambda:invoke',
            Parameters: { FunctionName: lambdaArn('Check'), 'Payload.$': '$' },
            OutputPath: '$.Payload',
            TimeoutSeconds: 10,
            End: true,
          },
        },
      },
      End: true,
    },
  },
});

async function run(definition: unknown, input: unknown, invoke: (payload: unknown) => Promise<unknown>) {
  sandbox = await startStepFunctions({ invokeLambda: (_arn, payload) => invoke(payload) });
  sandbox.runtime.registerStateMachine({ arn: machineArn('Map'), name: 'Map', definition });
  const { executionArn } = await sandbox.client.send(
    new StartExecutionCommand({ stateMachineArn: machineArn('Map'), input: JSON.stringify(input) }),
  );
  return settled(sandbox.client, executionArn ?? '');
}

describe('Map iterations', () => {
  it('gives each iteration its own $$.Map.Item.Index and $$.Map.Item.Value in the ItemSelector', async () => {
    const seen: unknown[] = [];
    const execution = await run(
      mapOver({ 'index.$': '$$.Map.Item.Index', 'check.$': '$$.Map.Item.Value', 'branch.$': '$.branch' }),
      { branch: 'agents/bug-1', checks: ['install', { name: 'test' }, 'lint', 'typecheck'] },
      async (payload) => {
        seen.push(payload);
        return { ran: payload };
      },
    );

    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output ?? 'null')).toEqual([
      { ran: { index: 0, check: 'install', branch: 'agents/bug-1' } },
      { ran: { index: 1, check: { name: 'test' }, branch: 'agents/bug-1' } },
      { ran: { index: 2, check: 'lint', branch: 'agents/bug-1' } },
      { ran: { index: 3, check: 'typecheck', branch: 'agents/bug-1' } },
    ]);
    expect(seen).toHaveLength(4);
  });

  it('gives each iteration its own item in the legacy Parameters and Iterator form too', async () => {
    const execution = await run(
      mapOver({ 'index.$': '$$.Map.Item.Index', 'value.$': '$$.Map.Item.Value' }, 'Parameters'),
      { checks: ['a', 'b', 'c'] },
      async (payload) => payload,
    );

    expect(JSON.parse(execution.output ?? 'null')).toEqual([
      { index: 0, value: 'a' },
      { index: 1, value: 'b' },
      { index: 2, value: 'c' },
    ]);
  });

  it('runs at most MaxConcurrency iterations at once', async () => {
    let running = 0;
    let started = 0;
    let most = 0;
    const execution = await run(
      mapOver({ 'index.$': '$$.Map.Item.Index' }),
      { checks: [1, 2, 3, 4, 5, 6] },
      async (payload) => {
        running += 1;
        started += 1;
        most = Math.max(most, running);
        // An iteration ends only once another runs beside it (or none is left to start): the
        // limit is reached, and a third would show in `most`.
        await until(() => running >= 2 || started === 6, 'a second iteration beside this one');
        running -= 1;
        return payload;
      },
    );

    expect(execution.status).toBe('SUCCEEDED');
    expect(most).toBe(2);
  });
});
