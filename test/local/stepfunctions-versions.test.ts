import {
  DescribeExecutionCommand,
  StartExecutionCommand,
  StateMachineDoesNotExist,
} from '@aws-sdk/client-sfn';
import { App, Stack } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDirectory } from '../../infra/scratch.ts';
import { LambdaFunctionNotFoundError } from '../../local/lambda/errors.ts';
import { functionOfInvokedArn } from '../../local/sandbox-versions.ts';
import { resolveIntrinsics } from '../../local/template.ts';
import { ownAliasArn } from '../../statemachines/workflow-versions.ts';
import { machineArn, settled, startStepFunctions } from './stepfunctions.harness.ts';

/** The hand-over's alias ARN expression with the stack's partition, region and account resolved as the sandbox resolves them. */
function aliasExpression(): string {
  const resolved = new Stack(new App({ outdir: scratchDirectory('cdk.out-') })).resolve(ownAliasArn());
  return String(resolveIntrinsics(resolved, { Resources: {} }, { baseUrl: 'http://127.0.0.1' }));
}

const handOverTarget = {
  StartAt: 'Alias',
  States: {
    Alias: {
      Type: 'Pass',
      Parameters: { 'aliasArn.$': aliasExpression() },
      End: true,
    },
  },
};

describe('state machine versions and aliases in the sandbox', () => {
  let sfn: Awaited<ReturnType<typeof startStepFunctions>>;
  const arn = machineArn('Workflow');

  beforeAll(async () => {
    sfn = await startStepFunctions({ invokeLambda: async () => ({}) });
    sfn.runtime.registerStateMachine({ arn, name: 'Workflow', definition: handOverTarget });
  });
  afterAll(async () => {
    await sfn.close();
  });

  it('starts through an alias on the version it points at, naming the execution under the state machine', async () => {
    const versionArn = sfn.runtime.publishVersion(arn);
    const aliasArn = sfn.runtime.setAlias('live', versionArn);
    expect([versionArn, aliasArn]).toEqual([`${arn}:1`, `${arn}:live`]);

    const { executionArn } = await sfn.client.send(
      new StartExecutionCommand({ stateMachineArn: aliasArn, name: 'through-alias' }),
    );
    expect(executionArn).toBe(`${arn.replace(':stateMachine:', ':execution:')}:through-alias`);
    const execution = await settled(sfn.client, executionArn ?? '');
    expect(execution).toMatchObject({
      status: 'SUCCEEDED',
      stateMachineArn: arn,
      stateMachineVersionArn: versionArn,
      stateMachineAliasArn: aliasArn,
    });
    // What continue-as-new starts: the alias of the execution's own state machine.
    expect(JSON.parse(execution.output ?? '{}')).toEqual({ aliasArn });
  });

  it('refuses an alias or a version nobody published', async () => {
    await expect(
      sfn.client.send(new StartExecutionCommand({ stateMachineArn: `${arn}:canary`, name: 'nowhere' })),
    ).rejects.toBeInstanceOf(StateMachineDoesNotExist);
    await expect(
      sfn.client.send(new StartExecutionCommand({ stateMachineArn: `${arn}:7`, name: 'nowhere' })),
    ).rejects.toBeInstanceOf(StateMachineDoesNotExist);
  });

  it('reports no version or alias for an execution started on the unqualified ARN', async () => {
    const { executionArn } = await sfn.client.send(
      new StartExecutionCommand({ stateMachineArn: arn, name: 'unqualified' }),
    );
    const execution = await sfn.client.send(new DescribeExecutionCommand({ executionArn }));
    expect(execution.stateMachineVersionArn).toBeUndefined();
    expect(execution.stateMachineAliasArn).toBeUndefined();
  });
});

describe('invoking a qualified function ARN in the sandbox', () => {
  const published = new Set(['arn:aws:lambda:us-east-1:000000000000:function:Drain1A2B:1']);

  it('runs the function of a published version, of $LATEST and of an unqualified ARN', () => {
    for (const arn of [
      'arn:aws:lambda:us-east-1:000000000000:function:Drain1A2B:1',
      'arn:aws:lambda:us-east-1:000000000000:function:Drain1A2B:$LATEST',
      'arn:aws:lambda:us-east-1:000000000000:function:Drain1A2B',
    ]) {
      expect(functionOfInvokedArn(arn, published)).toBe('Drain1A2B');
    }
  });

  it('fails a version the template does not publish, as Lambda does', () => {
    expect(() =>
      functionOfInvokedArn('arn:aws:lambda:us-east-1:000000000000:function:Drain1A2B:2', published),
    ).toThrow(LambdaFunctionNotFoundError);
  });
});
