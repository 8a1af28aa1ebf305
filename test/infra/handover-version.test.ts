import { ExecutionAlreadyExists } from '@aws-sdk/client-sfn';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { DefinitionBody, StateMachine, Succeed } from 'aws-cdk-lib/aws-stepfunctions';
import { ExecutionError } from 'aws-local-stepfunctions';
import { describe, expect, it } from 'vitest';
import { scratchDirectory } from '../../infra/scratch.ts';
import { SfnExecutions } from '../../lambdas/adapters/sfn-executions.ts';
import { acceptHandover, HANDOVER_VERSION_NOT_ACCEPTED } from '../../statemachines/continue-as-new.ts';
import { HANDOVER_VERSION } from '../../statemachines/workflow-versions.ts';
import { validatedMachine } from '../support/local-machine.ts';
import { type AslDefinition, renderIntrinsics, resourcesOfType } from './template.ts';

/** The hand-over check in front of a Succeed state, as a definition the local runtime runs. */
function handoverCheck(): AslDefinition {
  const stack = new Stack(
    new App({ builtinCloudFormationValidation: false, outdir: scratchDirectory('cdk.out-') }),
    'Handover',
  );
  const chain = acceptHandover(stack, 'Accept handover', new Succeed(stack, 'Resumed'));
  new StateMachine(stack, 'Machine', { definitionBody: DefinitionBody.fromChainable(chain) });
  const [machine] = Object.values(
    resourcesOfType(Template.fromStack(stack), 'AWS::StepFunctions::StateMachine'),
  );
  return JSON.parse(renderIntrinsics(machine?.Properties.DefinitionString)) as AslDefinition;
}

const run = (input: object) => validatedMachine(handoverCheck()).run(input as never).result;

describe('a handed-over execution', () => {
  it('resumes a hand-over of the current shape version', async () => {
    await expect(run({ handedOverFrom: 'arn:x', handoverVersion: HANDOVER_VERSION })).resolves.toMatchObject({
      handoverVersion: HANDOVER_VERSION,
    });
  });

  it('resumes a hand-over written before hand-overs said their version', async () => {
    await expect(run({ handedOverFrom: 'arn:x', turn: 4 })).resolves.toEqual({
      handedOverFrom: 'arn:x',
      turn: 4,
    });
  });

  it('fails, naming the field, on a shape version it does not read', async () => {
    const failure = await run({ handedOverFrom: 'arn:x', handoverVersion: HANDOVER_VERSION + 1 }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ExecutionError);
    expect(String((failure as ExecutionError).message)).toContain("the input's handoverVersion");
    expect(handoverCheck().States['Hand-over version not accepted']).toMatchObject({
      Type: 'Fail',
      Error: HANDOVER_VERSION_NOT_ACCEPTED,
    });
  });

  it('fails on a shape version that is not a number', async () => {
    await expect(run({ handedOverFrom: 'arn:x', handoverVersion: '1' })).rejects.toBeInstanceOf(
      ExecutionError,
    );
  });
});

describe('the execution ARN of a start', () => {
  /** The ARN a start answers when Step Functions says the execution exists already (a redelivery). */
  const arnOfRedeliveredStart = async (stateMachineArn: string, name: string) => {
    const client = {
      send: async () => {
        throw new ExecutionAlreadyExists({ message: 'Execution Already Exists', $metadata: {} });
      },
    };
    return new SfnExecutions(client as never).start(stateMachineArn, name, {});
  };

  it('names an execution started through an alias or a version under the state machine itself', async () => {
    const machine = 'arn:aws:states:eu-west-1:123456789012:stateMachine:BugInvestigation';
    const expected = {
      status: 'already_started',
      executionArn: 'arn:aws:states:eu-west-1:123456789012:execution:BugInvestigation:c-1',
    };
    expect(await arnOfRedeliveredStart(`${machine}:live`, 'c-1')).toEqual(expected);
    expect(await arnOfRedeliveredStart(`${machine}:3`, 'c-1')).toEqual(expected);
    expect(await arnOfRedeliveredStart(machine, 'c-1')).toEqual(expected);
  });
});
