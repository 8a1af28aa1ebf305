import type { SlackAgentsConfigInput } from '../../infra/config.ts';
import { AgentTurnInput } from '../../lambdas/agents/contract.ts';
import type { DrainedMessage } from '../../lambdas/kernel/drained-message.ts';
import type { SlackPostOutput } from '../../lambdas/kernel/slack-post-output.ts';
import {
  DrainInput,
  type DrainOutput,
  type ExecutionInput,
  RegisterWaitInput,
  type SlackPostInput,
  type WakeOutput,
} from '../../lambdas/kernel/tasks.ts';
import { renderTemplate, slackPostInputFor } from '../../lambdas/slack/templates/index.ts';
import { KERNEL_TEMPLATES } from '../../lambdas/slack/templates/kernel-templates.ts';
import type { RenderedMessage } from '../../lambdas/slack/templates/types.ts';
import { BugTurnOutput } from '../../lambdas/workflows/bug-investigation/contract.ts';
import { SlaTrackingInput } from '../../lambdas/workflows/bug-investigation/sla-check.ts';
import { BUG_INVESTIGATION_TEMPLATES } from '../../lambdas/workflows/bug-investigation/templates/index.ts';
import { BUG_INVESTIGATION_MODULE } from '../../statemachines/bug-investigation/index.ts';
import { BUG_INVESTIGATION_STATES as S } from '../../statemachines/bug-investigation/states.ts';
import { type AslDefinition, allStates, definitions, templateOf } from '../infra/template.ts';
import { validatedMachine } from '../support/local-machine.ts';

/** The bug investigation's SlackPost input: its templates only, with valid data. */
/** What the workflow's SlackPost renders: the kernel's templates (`agent_stopped`) and the workflow's. */
const TEMPLATES = { ...KERNEL_TEMPLATES, ...BUG_INVESTIGATION_TEMPLATES };
const BUG_POST_INPUT = slackPostInputFor(TEMPLATES);

/**
 * Runs the deployed bug_investigation definition (taken from the synthesized production
 * template) with aws-local-stepfunctions, every Task replaced by a stand-in that parses its
 * input with the task's real contract (AgentTurnInput, DrainInput, RegisterWaitInput,
 * SlackPostInput and its template, SlaTrackingInput) and answers from a script. What each
 * stand-in received is recorded, in order, for the tests to assert on.
 */

export const CONVERSATION_ID = 'bug-investigation-C_BUG_REPORTS-1700000000-000100';
export const STATE_MACHINE_ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:BugInvestigation';
export const EXECUTION_ARN = `arn:aws:states:eu-west-1:123456789012:execution:BugInvestigation:${CONVERSATION_ID}`;

export const START: ExecutionInput = {
  conversationId: CONVERSATION_ID,
  workflow: 'bug_investigation',
  channel: 'C_BUG_REPORTS',
  threadTs: '1700000000.000100',
  ownerId: 'U0REPORTER',
  turn: 0,
};

export function message(senderType: DrainedMessage['senderType'], text: string, ts: string): DrainedMessage {
  return {
    ts,
    channel: senderType === 'developer' ? 'C_BUG_SUMMARIES' : 'C_BUG_REPORTS',
    senderType,
    senderId: senderType === 'developer' ? 'U0DEV' : 'U0REPORTER',
    messageType: 'message',
    text,
    truncated: false,
  };
}

/** A valid BugTurnOutput with the given action (session `session-1` unless given). */
export function turn(action: BugTurnOutput['action'], extra: Partial<BugTurnOutput> = {}): BugTurnOutput {
  return BugTurnOutput.parse({
    action,
    sessionId: 'session-1',
    summary: `summary after ${action}`,
    rootCause: 'a null check is missing',
    confidence: 80,
    severity: 'high',
    ...(action === 'ask_reporter' ? { clarificationQuestion: 'Which browser were you using?' } : {}),
    ...extra,
  });
}

export type WaitOutcome = WakeOutput['woken'] | 'timeout';

export interface Script {
  /**
   * One answer per agent turn, in order: an output, or an error the function throws. A turn
   * beyond the script aborts the run (a loop that should have ended fails the test).
   */
  readonly agent: readonly (BugTurnOutput | Record<string, unknown> | Error)[];
  /** Per Drain call (`Drain messages` and `Clean up`), in order; missing ones drain nothing. */
  readonly drains?: readonly Partial<Pick<DrainOutput, 'closeRequested' | 'messages'>>[];
  /** Per wait (reporter or developers), in order. A wait beyond the script aborts the run. */
  readonly waits?: readonly WaitOutcome[];
  /** Errors thrown by the named states (each time they run). */
  readonly failing?: Readonly<Record<string, Error>>;
  /** Stack configuration (its waits and the continue-as-new threshold). */
  readonly config?: SlackAgentsConfigInput;
  /** The execution input; the Router's `START` unless given (a handed-over execution's). */
  readonly input?: Record<string, unknown>;
}

export interface Post {
  readonly state: string;
  readonly input: SlackPostInput;
  readonly rendered: RenderedMessage;
  readonly output: SlackPostOutput;
}

export interface Run {
  /** The execution's output, when it succeeded. */
  readonly output: Record<string, unknown>;
  /** The error the execution failed with, when it failed. */
  readonly failure?: Error;
  readonly agentInputs: AgentTurnInput[];
  readonly drains: { state: string; input: DrainInput }[];
  readonly waits: { state: string; input: RegisterWaitInput }[];
  readonly posts: Post[];
  /** The conversation's phase, as the updates and waits set it, in order. */
  readonly phases: string[];
  readonly statuses: string[];
  readonly slaStarts: { name: string; input: SlaTrackingInput }[];
  readonly handovers: { parameters: Record<string, unknown> }[];
  readonly recordedHandovers: Record<string, unknown>[];
  /** Every Task state entered, in order. */
  readonly tasks: string[];
  /** Every state entered, in order (the execution's state transitions). */
  readonly statesEntered: string[];
}

export function error(name: string, message = `${name} in a test`): Error {
  return Object.assign(new Error(message), { name });
}

const definitionCache = new Map<string, AslDefinition>();

/**
 * The bug_investigation definition as `cdk deploy` builds it under `config`, from a stack
 * with the bug investigation's module alone (the definition does not depend on the other
 * modules, and the smaller stack synthesizes faster).
 */
export function bugDefinition(config: SlackAgentsConfigInput = {}): AslDefinition {
  const key = JSON.stringify(config);
  let definition = definitionCache.get(key);
  if (definition === undefined) {
    definition = definitions(templateOf({ modules: [BUG_INVESTIGATION_MODULE], config })).get(
      'bug_investigation',
    );
    if (definition === undefined) throw new Error('bug_investigation is not in the production template');
    definitionCache.set(key, definition);
  }
  return definition;
}

/**
 * Every retrier of the definition retries at once: the runs check which states are entered and
 * what the tasks are given, not how long a retry pauses, so a task that fails until its retries
 * are spent (MaxAttempts unchanged) costs no real seconds of backoff.
 */
function noRetryPauses(definition: AslDefinition): Record<string, number> {
  return Object.fromEntries(
    allStates(definition)
      .filter(([, state]) => Array.isArray((state as { Retry?: unknown }).Retry))
      .map(([name]) => [name, 0]),
  );
}

/** Runs the script; resolves with what the stand-ins saw and how the execution ended. */
export async function runBugInvestigation(script: Script): Promise<Run> {
  const run: Run = {
    output: {},
    agentInputs: [],
    drains: [],
    waits: [],
    posts: [],
    phases: [],
    statuses: [],
    slaStarts: [],
    handovers: [],
    recordedHandovers: [],
    tasks: [],
    statesEntered: [],
  };
  let agentCalls = 0;
  let waitCalls = 0;
  let slackTs = 200;

  const failIfScripted = (state: string) => {
    run.tasks.push(state);
    const failure = script.failing?.[state];
    if (failure !== undefined) throw failure;
  };
  const updateFields = (state: string) => (input: unknown) => {
    failIfScripted(state);
    const values = (input as { ExpressionAttributeValues?: Record<string, { S?: string }> })
      .ExpressionAttributeValues;
    const phase = values?.[':phase']?.S;
    const status = values?.[':status']?.S;
    if (phase !== undefined) run.phases.push(phase);
    if (status !== undefined) run.statuses.push(status);
    return {};
  };
  const post = (state: string) => (input: unknown) => {
    failIfScripted(state);
    const parsed = BUG_POST_INPUT.parse((input as { Payload: unknown }).Payload);
    const rendered = parsed.template
      ? renderTemplate(TEMPLATES, parsed.template)
      : { text: parsed.text ?? '' };
    slackTs += 1;
    const ts = `1700000${slackTs}.000100`;
    const output: SlackPostOutput = { channel: parsed.channel, ts, threadTs: parsed.threadTs ?? ts };
    run.posts.push({ state, input: parsed, rendered, output });
    return { StatusCode: 200, Payload: output };
  };
  const drain = (state: string) => (input: unknown) => {
    failIfScripted(state);
    const parsed = DrainInput.parse((input as { Payload: unknown }).Payload);
    // Drain's mark, as the real one writes it with the end of the wait.
    if (parsed.mark?.phase !== undefined) run.phases.push(parsed.mark.phase);
    if (parsed.mark?.status !== undefined) run.statuses.push(parsed.mark.status);
    const scripted = script.drains?.[run.drains.length] ?? {};
    run.drains.push({ state, input: parsed });
    const messages = scripted.messages ?? [];
    const output: DrainOutput = {
      turn: parsed.turn,
      closeRequested: scripted.closeRequested ?? false,
      count: messages.length,
      messages,
    };
    return { StatusCode: 200, Payload: output };
  };
  const wait = (state: string) => (input: unknown) => {
    failIfScripted(state);
    run.waits.push({ state, input: RegisterWaitInput.parse((input as { Payload: unknown }).Payload) });
    run.phases.push(run.waits.at(-1)?.input.phase ?? '');
    // RegisterWait's status, as the real one writes it with the wait.
    const status = run.waits.at(-1)?.input.status;
    if (status !== undefined) run.statuses.push(status);
    const outcome = script.waits?.[waitCalls];
    waitCalls += 1;
    if (outcome === undefined) return exhausted(`wait ${waitCalls}`);
    if (outcome === 'timeout') throw error('States.Timeout', 'the wait timed out');
    const wake: WakeOutput = { woken: outcome };
    return wake;
  };
  const agent = (state: string) => (input: unknown) => {
    failIfScripted(state);
    run.agentInputs.push(AgentTurnInput.parse(input));
    const answer = script.agent[agentCalls];
    agentCalls += 1;
    if (answer === undefined) return exhausted(`agent turn ${agentCalls}`);
    if (answer instanceof Error) throw answer;
    return answer;
  };

  const handlers: Record<string, (input: unknown) => unknown> = {
    [S.acknowledgeReport]: post(S.acknowledgeReport),
    [S.askReporter]: post(S.askReporter),
    [S.postFindings]: post(S.postFindings),
    [S.postUpdatedFindings]: post(S.postUpdatedFindings),
    [S.escalate]: post(S.escalate),
    [S.announceFollowUp]: post(S.announceFollowUp),
    [S.acknowledgeClose]: post(S.acknowledgeClose),
    [S.tellReporterStopped]: post(S.tellReporterStopped),
    [S.tellFailure]: post(S.tellFailure),
    [S.tellModelStop]: post(S.tellModelStop),
    [S.tellUnhandled]: post(S.tellUnhandled),
    [S.markResolved]: updateFields(S.markResolved),
    [S.markFailed]: updateFields(S.markFailed),
    [S.drain]: drain(S.drain),
    [S.cleanUp]: drain(S.cleanUp),
    [S.waitForReporter]: wait(S.waitForReporter),
    [S.waitForDevelopers]: wait(S.waitForDevelopers),
    [S.investigate]: agent(S.investigate),
    [S.continueInvestigation]: agent(S.continueInvestigation),
    [S.startSlaTracking]: (input) => {
      failIfScripted(S.startSlaTracking);
      const { Name, Input } = input as { Name: string; Input: unknown };
      run.slaStarts.push({ name: Name, input: SlaTrackingInput.parse(Input) });
      return {
        ExecutionArn: `arn:aws:states:eu-west-1:123456789012:execution:SlaTracking:${Name}`,
        StartDate: 1,
      };
    },
    [S.handOver]: (input) => {
      failIfScripted(S.handOver);
      const parameters = input as Record<string, unknown>;
      run.handovers.push({ parameters });
      return {
        ExecutionArn: `arn:aws:states:eu-west-1:123456789012:execution:BugInvestigation:${String(parameters.Name)}`,
        StartDate: 1,
      };
    },
    [S.recordHandover]: (input) => {
      failIfScripted(S.recordHandover);
      run.recordedHandovers.push(input as Record<string, unknown>);
      return {};
    },
  };

  const definition = bugDefinition(script.config);
  const machine = validatedMachine(definition);
  let abort = () => {};
  let exhaustedAt: string | undefined;
  function exhausted(what: string): Promise<never> {
    exhaustedAt = what;
    abort();
    return new Promise<never>(() => {});
  }
  const execution = machine.run((script.input ?? START) as never, {
    overrides: {
      taskResourceLocalHandlers: handlers as never,
      retryIntervalOverrides: noRetryPauses(definition),
    },
    context: {
      Execution: { Id: EXECUTION_ARN, Name: CONVERSATION_ID },
      StateMachine: { Id: STATE_MACHINE_ARN, Name: 'BugInvestigation' },
      Task: { Token: 'task-token' },
    } as never,
  });
  abort = () => execution.abort();
  const events = (async () => {
    for await (const event of execution.eventLogs) {
      if (event.type === 'StateEntered') run.statesEntered.push(event.state.name);
    }
  })();
  try {
    await events;
    return { ...run, output: (await execution.result) as Record<string, unknown> };
  } catch (failure) {
    if (exhaustedAt !== undefined) throw new Error(`the run went beyond its script: ${exhaustedAt}`);
    return { ...run, failure: failure as Error };
  }
}
