import { App, Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { describe, expect, it } from 'vitest';
import { scratchDirectory } from '../../infra/scratch.ts';
import type { handler as DefineChecks } from '../../lambdas/handlers/define-checks.ts';
import type { handler as Drain } from '../../lambdas/handlers/drain.ts';
import type { handler as RegisterWait } from '../../lambdas/handlers/register-wait.ts';
import { approvalResult } from '../../statemachines/approval-wait.ts';
import { BUG_STATE, FIX } from '../../statemachines/bug-investigation/bug-state.ts';
import { ESCALATION_POST } from '../../statemachines/bug-investigation/states.ts';
import {
  INCIDENT_STATE,
  ITERATION_STATE,
} from '../../statemachines/incident-investigation/incident-state.ts';
import { recordsTask } from '../../statemachines/incident-investigation/tasks.ts';
import { DRAINED } from '../../statemachines/kernel.ts';
import { KERNEL_STATE } from '../../statemachines/kernel-state.ts';
import { lambdaTask } from '../../statemachines/lambda-task.ts';
import { REQUIREMENTS_STATE } from '../../statemachines/requirements-interview/requirements-state.ts';
import { payloadSelector, stateOf } from '../../statemachines/result-paths.ts';
import { type TaskInputOf, type TaskResultOf, taskPayload } from '../../statemachines/task-payload.ts';

/**
 * The task builders' payloads are typed by their Lambda's input schema: the `@ts-expect-error`
 * lines below are what `tsc` (which checks the tests too) must refuse; were the types loose,
 * the directive itself would fail the type check.
 */

function scope() {
  const stack = new Stack(
    new App({ builtinCloudFormationValidation: false, outdir: scratchDirectory('cdk.out-') }),
    'Types',
  );
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

describe('typed task inputs and result paths', () => {
  it('give the JSONPaths of the fields a result has', () => {
    expect(DRAINED.at('messages[*].messageType')).toBe('$.drained.messages[*].messageType');
    expect(DRAINED.at('messages[0]')).toBe('$.drained.messages[0]');
    expect(ESCALATION_POST.at('ts')).toBe('$.threads.escalation.ts');
    expect(approvalResult('$.fixApproval').at('decision')).toBe('$.fixApproval.decision');
    // Each value is a JSONPath token, rendered `"turn.$": "$.Payload.turn"` (test/infra/kernel-fragments.test.ts).
    expect(Object.keys(payloadSelector<TaskResultOf<typeof Drain>>(['turn', 'count']))).toEqual([
      'turn',
      'count',
    ]);
  });

  it('refuse a wrong input field, a wrong result field or a task without its input type', () => {
    const conversationId = sfn.JsonPath.stringAt('$.conversationId');
    const turn = sfn.JsonPath.numberAt('$.turn');
    taskPayload<TaskInputOf<typeof Drain>>({ conversationId, turn, mark: { phase: 'investigating' } });
    // @ts-expect-error `turns` is not a field of Drain's input (its `turn` is missing too)
    taskPayload<TaskInputOf<typeof Drain>>({ conversationId, turns: turn });
    // @ts-expect-error RegisterWait needs the phase the conversation waits in
    taskPayload<TaskInputOf<typeof RegisterWait>>({
      conversationId,
      taskToken: sfn.JsonPath.taskToken,
      accepts: 'any',
    });
    // @ts-expect-error a payload names the input it is built for
    taskPayload({ conversationId });
    // @ts-expect-error Drain's result has `messages`, not `mesages`
    DRAINED.at('mesages');
    // @ts-expect-error a drained message has no `sender` (it has `senderType`)
    DRAINED.at('messages[*].sender');
    // @ts-expect-error a posted message has `ts` and `threadTs`, not `thread`
    ESCALATION_POST.at('thread');
    // @ts-expect-error an approval's result has `decision`, not `decided`
    approvalResult('$.fixApproval').at('decided');
    // @ts-expect-error Drain's result has no `pending`
    payloadSelector<TaskResultOf<typeof Drain>>(['turn', 'pending']);
    expect(DRAINED.path).toBe('$.drained');
  });
});

describe('typed state paths', () => {
  it('give the JSONPaths of the fields a state has, and its slots typed as their fields', () => {
    expect(KERNEL_STATE.at('conversationId')).toBe('$.conversationId');
    expect(KERNEL_STATE.at('origin.kind')).toBe('$.origin.kind');
    expect(BUG_STATE.at('turnContext.followUp')).toBe('$.turnContext.followUp');
    expect(BUG_STATE.slot('threads').slot('summary').at('threadTs')).toBe('$.threads.summary.threadTs');
    expect(FIX.path).toBe('$.fix');
    expect(FIX.at('protected.verdict')).toBe('$.fix.protected.verdict');
    expect(INCIDENT_STATE.at('sessions.main')).toBe('$.sessions.main');
    expect(ITERATION_STATE.at('item.hypothesisId')).toBe('$.item.hypothesisId');
    expect(REQUIREMENTS_STATE.at('clarification.confidence')).toBe('$.clarification.confidence');
    expect(stateOf<{ rounds: { scores: number[] }[] }>().at('rounds[0].scores[*]')).toBe(
      '$.rounds[0].scores[*]',
    );
  });

  it('refuse a field the state does not have, at type-check time', () => {
    // @ts-expect-error the execution's input has `conversationId`, not `conversationID`
    KERNEL_STATE.at('conversationID');
    // @ts-expect-error the bug investigation's state has `turnContext`, not `turnContexts`
    BUG_STATE.at('turnContexts.state');
    // @ts-expect-error the fix path counts its builds in `attempt`
    FIX.at('attempts');
    // @ts-expect-error a fix's pull request has `opened`, not `open`
    FIX.slot('pullRequest').at('open');
    // @ts-expect-error the SLA start's failure is kept at `slaStartFailure`
    BUG_STATE.slot('slaFailure');
    // @ts-expect-error the incident's rounds keep their plan at `roundPlan`, not `plan`
    INCIDENT_STATE.at('plan.decision');
    // @ts-expect-error an iteration's state has its `item`, not the incident's `roundPlan`
    ITERATION_STATE.at('roundPlan');
    // @ts-expect-error the clarification's output has `confidence`, not `confidance`
    REQUIREMENTS_STATE.at('clarification.confidance');
    expect(FIX.at('attempt')).toBe('$.fix.attempt');
  });
});
