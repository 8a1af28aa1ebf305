import { App, Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { describe, expect, it } from 'vitest';
import type { handler as DefineChecks } from '../../lambdas/handlers/define-checks.ts';
import { recordsTask } from '../../statemachines/incident-investigation/tasks.ts';
import { lambdaTask, type TaskInputOf } from '../../statemachines/lambda-task.ts';

/**
 * The task builders' payloads are typed by their Lambda's input schema: the `@ts-expect-error`
 * lines below are what `tsc` (which checks the tests too) must refuse; were the types loose,
 * the directive itself would fail the type check.
 */

function scope() {
  const stack = new Stack(new App({ builtinCloudFormationValidation: false }), 'Types');
  const fn = lambda.Function.fromFunctionName(stack, 'Fn', 'fn');
  return { stack, fn };
}

describe('typed task payloads', () => {
  it('take the fields of the Lambda input, JSONPath values included', () => {
    const { stack, fn } = scope();
    const define = lambdaTask<TaskInputOf<typeof DefineChecks>>(
      stack,
      'Define',
      fn,
      { conversationId: sfn.JsonPath.stringAt('$.conversationId'), branch: 'agents/x', commands: {} },
      '$.checks',
    );
    const merge = recordsTask(stack, 'Merge', { fn, op: 'merge', payload: { round: 1 } });
    const finish = recordsTask(stack, 'Finish', { fn, op: 'finish' });
    expect([define, merge, finish].map((t) => t.id)).toEqual(['Define', 'Merge', 'Finish']);
  });

  it('refuse a field the input does not have, or lacks a required one, at type-check time', () => {
    const { stack, fn } = scope();
    lambdaTask<TaskInputOf<typeof DefineChecks>>(
      stack,
      'Wrong field',
      fn,
      // @ts-expect-error `brnch` is not a field of DefineChecksInput
      { conversationId: sfn.JsonPath.stringAt('$.conversationId'), brnch: 'agents/x', commands: {} },
      '$.checks',
    );
    // @ts-expect-error the `merge` op needs its round
    recordsTask(stack, 'No round', { fn, op: 'merge' });
    // @ts-expect-error `finish` takes no hypothesis id
    recordsTask(stack, 'Extra', { fn, op: 'finish', payload: { hypothesisId: 'H1' } });
    // @ts-expect-error no such op
    recordsTask(stack, 'No op', { fn, op: 'merge_all' });
    expect(stack.node.children.length).toBeGreaterThan(0);
  });
});
