import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { StateMachine } from 'aws-local-stepfunctions';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../infra/config.ts';
import { scratchDirectory } from '../../infra/scratch.ts';
import type { SlackPostOutput } from '../../lambdas/kernel/slack-post-output.ts';
import { SlackPostInput } from '../../lambdas/kernel/tasks.ts';
import { BugInvestigationSettings } from '../../lambdas/workflows/bug-investigation/config.ts';
import type { Severity } from '../../lambdas/workflows/bug-investigation/contract.ts';
import {
  type checkAcknowledgement,
  SlaCheckInput,
  type SlaTrackingInput,
} from '../../lambdas/workflows/bug-investigation/sla-check.ts';
import { BUG_FUNCTIONS, type BugFunctionId } from '../../statemachines/bug-investigation/functions.ts';
import { SLA_TRACKING } from '../../statemachines/bug-investigation/sla-tracking.ts';
import { LAMBDA_TRANSIENT_ERRORS } from '../../statemachines/kernel.ts';
import { type AslDefinition, allKeys, allStates, renderIntrinsics } from '../infra/template.ts';
import { validatedMachine } from '../support/local-machine.ts';

/**
 * The SlaTracking definition, built as the stack builds the bug investigation's child
 * (`SLA_TRACKING`) in a small stack of its own and run with the local Step Functions runtime:
 * its Tasks replaced by stand-ins that parse their input with the real task schemas
 * (SlaCheckInput, SlackPostInput), and its waits made instant.
 */

/** The states' names in the execution graph (stated here, not imported: the names are what this test checks). */
const STATES = {
  lookUpDeadline: 'Look up deadline',
  unknownSeverity: 'Unknown severity',
  waitForAcknowledgement: 'Wait for acknowledgement',
  checkAcknowledgement: 'Check acknowledgement',
  acknowledged: 'Acknowledged?',
  postReminder: 'Post reminder',
  escalate: 'Escalate one level',
  giveUp: 'Give up',
  done: 'Done',
  failed: 'SLA tracking failed',
} as const;

/** The state that sets each severity's deadline (stated here, not imported: the names are what this test checks). */
const DEADLINE_STATES: Readonly<Record<Severity, string>> = {
  critical: 'Critical deadline',
  high: 'High deadline',
  medium: 'Medium deadline',
  low: 'Low deadline',
};

/** The stack configuration SlaTracking reads: its on-call group, whom the reminders mention. */
const KERNEL_CONFIG = parseConfig({ sandbox: true, people: { on_call: { groups: ['S_PLATFORM_ONCALL'] } } });

const CONFIG = BugInvestigationSettings.parse({
  sla: { acknowledgeMinutes: { critical: 5, high: 30, medium: 120, low: 720 }, maxReminders: 2 },
});

function synthesize(settings: BugInvestigationSettings = CONFIG): AslDefinition {
  const app = new App({ builtinCloudFormationValidation: false, outdir: scratchDirectory('cdk.out-') });
  const stack = new Stack(app, 'SlaTrackingTest');
  const table = new dynamodb.Table(stack, 'Conversations', {
    partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
    sortKey: { name: 'sk', type: dynamodb.AttributeType.STRING },
  });
  const dummy = (id: string) =>
    new lambda.Function(stack, id, {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => ({});'),
    });
  // The kernel's functions and the bug investigation's others: SlaTracking calls none of them.
  const unused: lambda.IFunction = dummy('Unused');
  const functions = Object.fromEntries(Object.keys(BUG_FUNCTIONS).map((id) => [id, unused])) as Record<
    BugFunctionId,
    lambda.IFunction
  >;
  const definition = SLA_TRACKING.build(stack, {
    registerWait: unused,
    drain: unused,
    slackPost: unused,
    approvalWait: unused,
    table,
    config: KERNEL_CONFIG,
    functions: { ...functions, SlaCheck: dummy('SlaCheck'), BugInvestigationSlackPost: dummy('SlackPost') },
    settings,
  });
  new sfn.StateMachine(stack, 'SlaTracking', {
    definitionBody: sfn.DefinitionBody.fromChainable(definition),
  });
  const machines = Object.values(Template.fromStack(stack).findResources('AWS::StepFunctions::StateMachine'));
  const [machine] = machines as { Properties: { DefinitionString: unknown } }[];
  if (machine === undefined) throw new Error('the test stack has no state machine');
  return JSON.parse(renderIntrinsics(machine.Properties.DefinitionString)) as AslDefinition;
}

const DEFINITION = synthesize();

const escalation = (severity: Severity = 'high'): SlaTrackingInput => ({
  conversationId: 'bug-investigation-C_BUG_REPORTS-1700000000-000100',
  channel: 'C_DEVELOPERS',
  threadTs: '1700000500.000200',
  severity,
  level: 0,
});

/** What the SlaCheck function answers. */
type SlaCheckOutput = Awaited<ReturnType<typeof checkAcknowledgement>>;

const NOT_YET: SlaCheckOutput = {
  acknowledged: false,
  closed: false,
  reason: 'no developer message since 1700000500.000200',
};

type Failure = { name: string; message: string };
/** The runtime's event type (not exported by the package). */
type EventLog = ReturnType<StateMachine['run']>['eventLogs'] extends AsyncGenerator<infer E> ? E : never;

/**
 * Runs the definition. The SlaCheck stand-in answers from `answers` in order (the last one
 * repeats); an answer that is an error is thrown instead.
 */
async function run(
  input: unknown,
  answers: (SlaCheckOutput | Failure)[],
  definition: AslDefinition = DEFINITION,
  options: { postFails?: Failure } = {},
) {
  const checks: SlaCheckInput[] = [];
  const posts: SlackPostInput[] = [];
  const post = (event: unknown) => {
    const parsed = SlackPostInput.parse((event as { Payload: unknown }).Payload);
    if (options.postFails)
      throw Object.assign(new Error(options.postFails.message), { name: options.postFails.name });
    posts.push(parsed);
    const output: SlackPostOutput = {
      channel: parsed.channel,
      ts: `1700009000.00000${posts.length}`,
      threadTs: parsed.threadTs ?? '',
    };
    return { StatusCode: 200, Payload: output };
  };
  const handlers = {
    [STATES.checkAcknowledgement]: (event: unknown) => {
      checks.push(SlaCheckInput.parse((event as { Payload: unknown }).Payload));
      const answer = answers[Math.min(checks.length, answers.length) - 1];
      if (answer === undefined) throw new Error('no scripted SlaCheck answer');
      if ('name' in answer) throw Object.assign(new Error(answer.message), { name: answer.name });
      return { StatusCode: 200, Payload: answer };
    },
    [STATES.postReminder]: post,
    [STATES.giveUp]: post,
  };
  const machine = validatedMachine(definition);
  const execution = machine.run(input as never, {
    overrides: {
      taskResourceLocalHandlers: handlers as never,
      waitTimeOverrides: { [STATES.waitForAcknowledgement]: 0 },
      retryIntervalOverrides: { [STATES.checkAcknowledgement]: 0 },
    },
  });
  const events: EventLog[] = [];
  const collected = (async () => {
    for await (const event of execution.eventLogs) events.push(event);
  })();
  const result = await execution.result.then(
    (output) => ({ status: 'succeeded' as const, output }),
    // The runtime rejects with an ExecutionError whose cause is the Fail state's error.
    (error: Error) => ({ status: 'failed' as const, error: errorOf(error.cause) }),
  );
  await collected;
  const entered = events.flatMap((event) => (event.type === 'StateEntered' ? [event.state] : []));
  const output = result.status === 'succeeded' ? result.output : undefined;
  return { result, output, checks, posts, entered, names: entered.map((state) => state.name) };
}

function errorOf(cause: unknown): Failure {
  if (!(cause instanceof Error)) throw new Error(`the execution failed without an error: ${String(cause)}`);
  return { name: cause.name, message: cause.message };
}

describe('the SlaTracking definition (contract)', () => {
  const states = allStates(DEFINITION);
  const taskStates = states.filter(([, state]) => state.Type === 'Task');

  it('names its states for the people reading the execution graph', () => {
    expect(Object.keys(DEFINITION.States).sort()).toEqual(
      [...Object.values(STATES), ...Object.values(DEADLINE_STATES)].sort(),
    );
    expect(DEFINITION.StartAt).toBe(STATES.lookUpDeadline);
  });

  it('gives every Task a timeout, a Retry on transient errors only, and a Catch into the failure state', () => {
    expect(taskStates.map(([name]) => name).sort()).toEqual(
      [STATES.checkAcknowledgement, STATES.giveUp, STATES.postReminder].sort(),
    );
    for (const [name, state] of taskStates) {
      expect(state.TimeoutSeconds, name).toBeGreaterThan(0);
      const retries = state.Retry as { ErrorEquals: string[] }[];
      expect(retries.length, name).toBeGreaterThan(0);
      for (const retry of retries) {
        expect(LAMBDA_TRANSIENT_ERRORS as readonly string[], name).toEqual(
          expect.arrayContaining(retry.ErrorEquals),
        );
      }
      expect(state.Catch, name).toEqual([
        { ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: STATES.failed },
      ]);
    }
  });

  it('uses JSONPath only: no Assign and no JSONata', () => {
    const keys = allKeys(DEFINITION);
    expect(keys).not.toContain('Assign');
    expect(keys).not.toContain('Arguments');
    expect(keys).not.toContain('Output');
    expect(JSON.stringify(DEFINITION)).not.toMatch(/JSONata|\{%/);
  });

  it('waits for the deadline the lookup computed', () => {
    expect(DEFINITION.States[STATES.waitForAcknowledgement]).toMatchObject({
      Type: 'Wait',
      SecondsPath: '$.deadlineSeconds',
    });
  });
});

describe('the SlaTracking definition (run)', () => {
  it('ends at Done without a reminder when a developer acknowledged before the first deadline', async () => {
    const input = escalation();

    const { output, checks, posts, names } = await run(input, [
      { acknowledged: true, closed: false, reason: 'developer U_DEV answered at 1700000600.000000' },
    ]);

    expect(checks).toEqual([{ conversationId: input.conversationId, since: input.threadTs }]);
    expect(posts).toEqual([]);
    expect(names.at(-1)).toBe(STATES.done);
    expect(output).toMatchObject({ level: 0, check: { acknowledged: true, closed: false } });
  });

  it('posts exactly maxReminders reminders in the escalation thread, then gives up', async () => {
    const input = escalation('high');

    const { output, checks, posts, names } = await run(input, [NOT_YET]);

    expect(checks).toHaveLength(CONFIG.sla.maxReminders + 1);
    expect(posts.map((post) => post.text)).toEqual([
      '<!subteam^S_PLATFORM_ONCALL> SLA reminder: not acknowledged after 30 minutes; escalating to level 1',
      '<!subteam^S_PLATFORM_ONCALL> SLA reminder: not acknowledged after 30 minutes; escalating to level 2',
      '<!subteam^S_PLATFORM_ONCALL> SLA missed: this high severity escalation was not acknowledged after 2 reminder(s). No more reminders will be sent.',
    ]);
    for (const post of posts) {
      expect(post).toMatchObject({
        conversationId: input.conversationId,
        channel: input.channel,
        threadTs: input.threadTs,
      });
    }
    expect(posts.map((post) => post.idempotencyKey)).toEqual([
      `${input.conversationId}:sla:${input.threadTs}:reminder:0`,
      `${input.conversationId}:sla:${input.threadTs}:reminder:1`,
      `${input.conversationId}:sla:${input.threadTs}:gave-up`,
    ]);
    expect(names.filter((name) => name === STATES.escalate)).toHaveLength(CONFIG.sla.maxReminders);
    expect(names.slice(-2)).toEqual([STATES.giveUp, STATES.done]);
    expect(output).toMatchObject({ level: CONFIG.sla.maxReminders });
  });

  it('stops at Done when the conversation was closed, after the reminders so far', async () => {
    const { posts, checks, names } = await run(escalation(), [
      NOT_YET,
      { acknowledged: false, closed: true, reason: 'conversation is resolved' },
    ]);

    expect(checks).toHaveLength(2);
    expect(posts.map((post) => post.text)).toEqual([expect.stringContaining('escalating to level 1')]);
    expect(names.at(-1)).toBe(STATES.done);
    expect(names).not.toContain(STATES.giveUp);
  });

  it.each([
    ['critical', 5],
    ['high', 30],
    ['medium', 120],
    ['low', 720],
  ] as const)('waits the configured %s deadline at every level', async (severity, minutes) => {
    const { entered } = await run(escalation(severity), [NOT_YET]);

    const waits = entered.filter((state) => state.name === STATES.waitForAcknowledgement);
    expect(waits).toHaveLength(CONFIG.sla.maxReminders + 1);
    for (const wait of waits) {
      expect(wait.input).toMatchObject({ deadlineSeconds: minutes * 60, deadlineMinutes: minutes });
    }
    expect(entered.map((state) => state.name)).toContain(DEADLINE_STATES[severity]);
  });

  it('gives up at the first missed deadline when no reminders are configured', async () => {
    const definition = synthesize(BugInvestigationSettings.parse({ sla: { maxReminders: 0 } }));

    const { posts } = await run(escalation(), [NOT_YET], definition);

    expect(posts.map((post) => post.text)).toEqual([expect.stringContaining('SLA missed')]);
  });

  it('retries a throttled check and carries on', async () => {
    const { checks, names } = await run(escalation(), [
      { name: 'ThrottlingException', message: 'Rate exceeded' },
      { acknowledged: true, closed: false, reason: 'developer U_DEV answered at 1700000600.000000' },
    ]);

    expect(checks).toHaveLength(2);
    expect(names.at(-1)).toBe(STATES.done);
  });

  it('fails visibly with the error, without retrying, when the check fails for good', async () => {
    const notFound = { name: 'ConversationNotFoundError', message: 'conversation bug-1 not found' };

    const { result, checks, posts, names } = await run(escalation(), [notFound]);

    expect(result).toEqual({ status: 'failed', error: notFound });
    expect(checks).toHaveLength(1);
    expect(posts).toEqual([]);
    expect(names.at(-1)).toBe(STATES.failed);
  });

  it('fails visibly with the error when a Slack post fails for good', async () => {
    const { result, names } = await run(escalation(), [NOT_YET], DEFINITION, {
      postFails: { name: 'SlackApiError', message: 'channel_not_found' },
    });

    expect(result).toEqual({
      status: 'failed',
      error: { name: 'SlackApiError', message: 'channel_not_found' },
    });
    expect(names.slice(-2)).toEqual([STATES.postReminder, STATES.failed]);
  });

  it('fails visibly on a severity it does not know', async () => {
    const { result, checks } = await run({ ...escalation(), severity: 'urgent' }, [NOT_YET]);

    expect(result).toEqual({
      status: 'failed',
      error: { name: 'UnknownSeverity', message: 'severity must be one of critical, high, medium, low' },
    });
    expect(checks).toEqual([]);
  });
});
