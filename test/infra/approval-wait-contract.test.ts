import { Duration } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { buildStack } from '../../infra/synth.ts';
import { ApprovalWaitInput, type ApprovalWaitResult } from '../../lambdas/kernel/approval-wait.ts';
import type { SlackPostOutput } from '../../lambdas/kernel/slack-post-output.ts';
import { type ExecutionInput, SlackPostInput } from '../../lambdas/kernel/tasks.ts';
import { approvalResult, approvalWait } from '../../statemachines/approval-wait.ts';
import { LAMBDA_TRANSIENT_ERRORS } from '../../statemachines/kernel.ts';
import {
  KERNEL_APPROVAL_PROBE,
  KERNEL_APPROVAL_PROBE_MODULE,
  PROBE_APPROVAL_SECONDS,
} from '../fixtures/approval-probe.ts';
import { validatedMachine } from '../support/local-machine.ts';
import { type AslState, allStates, definitions } from './template.ts';

/**
 * The approval wait fragment (statemachines/approval-wait.ts) as synthesized in the
 * kernel_approval_probe workflow: a bounded `.waitForTaskToken`, Retry and Catch on every
 * Task, and both paths run in aws-local-stepfunctions with fakes that parse the kernel's
 * task schemas.
 */

const template = Template.fromStack(
  buildStack({
    modules: [KERNEL_APPROVAL_PROBE_MODULE],
    config: { channels: { approvalProbe: 'C_APPROVALS' } },
  }).stack,
);
const definition = definitions(template).get(KERNEL_APPROVAL_PROBE.name);
if (definition === undefined) throw new Error('kernel_approval_probe is not in the template');
const states = new Map(allStates(definition));
const state = (name: string): AslState => {
  const found = states.get(name);
  if (found === undefined) throw new Error(`no state "${name}"`);
  return found;
};
type Catcher = { ErrorEquals: string[]; Next: string; ResultPath?: string };
type Retrier = { ErrorEquals: string[] };

describe('the approval wait fragment', () => {
  it('waits with a task token for the caller-given time, and no longer', () => {
    const wait = state('Wait for probe approval');

    expect(wait.Resource).toMatch(/lambda:invoke\.waitForTaskToken$/);
    expect(wait.TimeoutSeconds).toBe(PROBE_APPROVAL_SECONDS);
    expect((wait.Parameters as { Payload: Record<string, unknown> }).Payload).toMatchObject({
      step: 'park',
      kind: 'approve_probe',
      'taskToken.$': '$$.Task.Token',
      'nonce.$': '$.approval.approvalNonce',
    });
  });

  it('routes the timeout to the expiry and every other error to the caller, on every Task', () => {
    const wait = state('Wait for probe approval');
    expect((wait.Catch as Catcher[]).map((c) => [c.ErrorEquals, c.Next])).toEqual([
      [['States.Timeout'], 'Expire probe approval'],
      [['States.ALL'], 'Mark failed'],
    ]);
    for (const name of ['Post probe approval', 'Wait for probe approval', 'Expire probe approval']) {
      const task = state(name);
      expect(task.Type).toBe('Task');
      expect(typeof task.TimeoutSeconds).toBe('number');
      const retried = (task.Retry as Retrier[]).flatMap((r) => r.ErrorEquals);
      expect(retried).toEqual(
        expect.arrayContaining(['Lambda.ServiceException', 'Lambda.TooManyRequestsException']),
      );
      expect(retried).not.toContain('States.Timeout');
      expect(retried).not.toContain('States.ALL');
      expect((task.Catch as Catcher[]).at(-1)).toMatchObject({
        ErrorEquals: ['States.ALL'],
        Next: 'Mark failed',
      });
    }
    expect((state('Expire probe approval').Retry as Retrier[])[0]?.ErrorEquals).toEqual([
      ...LAMBDA_TRANSIENT_ERRORS,
    ]);
  });

  it('refuses a wait without a bound, or beyond a year', () => {
    const props = {
      label: 'x',
      slackPostFn: {} as never,
      approvalWaitFn: {} as never,
      channel: 'C',
      text: 'ok?',
      approval: { kind: 'approve_x', buttons: [{ decision: 'approve', label: 'Approve' }] },
      result: approvalResult('$.x'),
      // The bound is checked before any state is built.
      onFailure: {} as never,
    };
    expect(() => approvalWait({} as never, 'A', { ...props, timeout: Duration.seconds(0) })).toThrow(
      /timeout between 1 second and 364 days/,
    );
    expect(() => approvalWait({} as never, 'A', { ...props, timeout: Duration.days(400) })).toThrow(
      /timeout between 1 second and 364 days/,
    );
  });
});

const start = {
  conversationId: 'kernel-approval-probe-C_APPROVALS-1700000000-000100',
  workflow: KERNEL_APPROVAL_PROBE.name,
  channel: 'C_APPROVALS',
  threadTs: '1700000000.000100',
  ownerId: 'U_REPORTER',
  turn: 0,
} satisfies ExecutionInput;

/** Runs the definition with fakes; `wait` says how the wait ends. */
async function run(wait: 'decided' | 'timeout') {
  const posts: SlackPostInput[] = [];
  const steps: ApprovalWaitInput[] = [];
  const post = (input: unknown) => {
    const parsed = SlackPostInput.parse((input as { Payload: unknown }).Payload);
    posts.push(parsed);
    const output: SlackPostOutput = {
      channel: parsed.channel,
      ts: `${posts.length}.0`,
      threadTs: start.threadTs,
      ...(parsed.approval ? { approvalNonce: 'nonce-0123456789' } : {}),
    };
    return { StatusCode: 200, Payload: output };
  };
  const handlers = {
    'Mark awaiting approval': () => ({}),
    'Mark resolved': () => ({}),
    'Mark failed': () => ({}),
    'Post probe approval': post,
    'Say decision': post,
    'Say expired': post,
    'Wait for probe approval': (input: unknown) => {
      steps.push(ApprovalWaitInput.parse((input as { Payload: unknown }).Payload));
      if (wait === 'timeout') throw Object.assign(new Error('timed out'), { name: 'States.Timeout' });
      const result: ApprovalWaitResult = {
        outcome: 'decided',
        kind: 'approve_probe',
        decision: 'approve',
        by: 'U_DEV',
        at: '2015-11-23T10:00:00.000Z',
      };
      return result;
    },
    'Expire probe approval': (input: unknown) => {
      steps.push(ApprovalWaitInput.parse((input as { Payload: unknown }).Payload));
      const result: ApprovalWaitResult = {
        outcome: 'expired',
        kind: 'approve_probe',
        at: '2015-11-23T12:00:00.000Z',
      };
      return { StatusCode: 200, Payload: result };
    },
  };
  const machine = validatedMachine(definition);
  const output = await machine.run(start, {
    overrides: { taskResourceLocalHandlers: handlers as never },
    context: { Task: { Token: 'task-token-1' } } as never,
  }).result;
  return { output: output as Record<string, unknown>, posts, steps };
}

describe('the approval wait fragment, run', () => {
  it('posts the buttons, parks the token on the approval they opened, and yields the decision', async () => {
    const { output, posts, steps } = await run('decided');

    expect(posts[0]?.approval?.kind).toBe('approve_probe');
    expect(steps).toEqual([
      {
        step: 'park',
        conversationId: start.conversationId,
        kind: 'approve_probe',
        nonce: 'nonce-0123456789',
        taskToken: 'task-token-1',
      },
    ]);
    expect(output.approval).toEqual({
      outcome: 'decided',
      kind: 'approve_probe',
      decision: 'approve',
      by: 'U_DEV',
      at: '2015-11-23T10:00:00.000Z',
    });
    expect(posts.at(-1)?.text).toBe('probe decision: approve by U_DEV');
  });

  it('on timeout, expires the approval it posted and yields `expired` at the same path', async () => {
    const { output, posts, steps } = await run('timeout');

    expect(steps.map((s) => [s.step, s.nonce])).toEqual([
      ['park', 'nonce-0123456789'],
      ['expire', 'nonce-0123456789'],
    ]);
    expect(output.approval).toEqual({
      outcome: 'expired',
      kind: 'approve_probe',
      at: '2015-11-23T12:00:00.000Z',
    });
    expect(posts.at(-1)?.text).toBe('probe approval expired at 2015-11-23T12:00:00.000Z');
  });
});
