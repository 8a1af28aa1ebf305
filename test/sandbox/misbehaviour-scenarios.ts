import type { SlackAgentsConfigInput } from '../../infra/config.ts';
import type { StoredMessage } from '../../lambdas/kernel/model.ts';
import { ENV } from '../../lambdas/shared/env.ts';
import type { ModelFaults } from '../../local/model/faults.ts';
import type { SlackFaults } from '../../local/slack/faults.ts';
import {
  type BugHarness,
  bugIdFor,
  CHANNELS,
  DEVELOPER,
  findings,
  REPORTER,
  readsHistory,
  startBugHarness,
  submits,
  turn,
} from './bug-harness.ts';

/** A Slack fault as it is added. */
type SlackFaultInput = Parameters<SlackFaults['add']>[0];

/** A model fault as it is added. */
type ModelFaultInput = Parameters<ModelFaults['add']>[0];

/**
 * The outage scenarios, shared by the sandbox test (which asserts on them) and
 * `npm run bench:misbehaviour` (which prints their figures): a bug conversation against a
 * misbehaving model or a misbehaving Slack, switched on through `/sandbox/faults`, driven to
 * its end, with the model calls and tokens it cost.
 */

/** The time scale of these scenarios: a minute of workflow time is 0.6 s. */
export const TIME_SCALE = 0.01;

/** The limits the scenarios run under (the bounds their model-call counts are checked against). */
export const LIMITS = {
  maxToolRounds: 3,
  modelCallTimeoutSeconds: 1,
  maxRetryAfterSeconds: 30,
  modelRetry: { intervalSeconds: 60, maxAttempts: 2, backoffRate: 2 },
  escalationSeverity: 'high',
} as const satisfies NonNullable<SlackAgentsConfigInput['agentLimits']>;

export const MODEL_MAX_RETRIES = 0;

export function startMisbehaviourHarness(): Promise<BugHarness> {
  return startBugHarness(
    { agentLimits: LIMITS, developerWaitSeconds: 100_000, reporterWaitSeconds: 100_000 },
    {
      timeScale: TIME_SCALE,
      // The Slack clients retry one call on real time here (0.5 s, then 1 s: two and a half minutes
      // of this workflow time), as these scenarios were written: "every post once" includes the
      // cosmetic acknowledgement, which the state machine does not keep through a longer outage.
      env: { MODEL_MAX_RETRIES: String(MODEL_MAX_RETRIES), [ENV.slackRetryTimeScale]: '1' },
    },
  );
}

export type Fault = ({ target: 'slack' } & SlackFaultInput) | ({ target: 'model' } & ModelFaultInput);

export async function addFault(h: BugHarness, fault: Fault): Promise<void> {
  const response = await fetch(`${h.sandbox.url}/sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fault),
  });
  if (response.status !== 201)
    throw new Error(`/sandbox/faults answered ${response.status}: ${await response.text()}`);
}

export async function clearFaults(h: BugHarness): Promise<void> {
  await fetch(`${h.sandbox.url}/sandbox/faults`, { method: 'DELETE' });
}

export interface ScenarioResult {
  scenario: string;
  bugId: string;
  /** Messages API requests the conversation caused (faulted ones included). */
  modelCalls: number;
  /** Input + output tokens in the conversation's ledger. */
  tokens: number;
  /** The conversation's status when it ended, and how its execution ended. */
  endState: string;
  /** The error and cause its execution failed with (`Error: cause`), when it failed. */
  executionError: string | undefined;
  /** Real time from the report to the end, for the benchmark (never asserted: it follows the machine). */
  wallMs: number;
  /** The bot's posts in the reporter's thread, in order. */
  reporterThread: string[];
  /** The bot's posts in #bug-summaries about this bug. */
  findingsPosts: number;
  /** The conversation's stored messages at the end. */
  messages: StoredMessage[];
  /** The escalation's text in #developers, if any. */
  escalation: string | undefined;
  /** Slack calls the faults answered (`http_500`, `no_answer`, `accepted_then_500`). */
  slackFaultsMet: string[];
}

export interface Scenario {
  name: string;
  /** The faults in force from before the report. */
  faults: Fault[];
  /** The report's text. */
  report: string;
  /** The script of the conversation's model (requests the faults answer never reach it). */
  script(bugId: string): ReturnType<typeof turn>;
  /** After the first turn: what the people do before the reporter closes it. */
  afterFirstTurn?(h: BugHarness, bugId: string, report: string): Promise<void>;
}

const botTexts = async (h: BugHarness, channel: string, threadTs?: string) =>
  (await h.messages(channel, threadTs)).filter((m) => m.bot).map((m) => m.text);

/**
 * Runs one scenario to its end: the agent stops (or succeeds) and the reporter closes it, or a
 * model that cannot serve the conversation ends it on its own.
 */
export async function runScenario(h: BugHarness, scenario: Scenario): Promise<ScenarioResult> {
  await clearFaults(h);
  for (const fault of scenario.faults) await addFault(h, fault);
  const started = Date.now();
  const requestsBefore = h.sandbox.modelFaults.requests;
  const slackCallsBefore = h.sandbox.slack.workspace.apiCalls().length;
  const report = await h.post(CHANNELS.reports, REPORTER, scenario.report);
  const bugId = bugIdFor(report);
  h.script(bugId, scenario.script(bugId));
  // The first turn ends waiting for developers (findings, or an escalation), or ends the conversation.
  const first = await h.eventually(
    async () => ({
      conversation: await h.store.getConversation(bugId, { consistent: true }),
      execution: await h.execution(bugId).catch(() => undefined),
    }),
    ({ conversation, execution }) =>
      (conversation?.wait !== undefined && conversation.phase === 'awaiting_dev') ||
      (execution !== undefined && execution.status !== 'RUNNING'),
    `${bugId} to wait for developers or end`,
  );
  if (first.execution?.status === 'RUNNING') {
    await scenario.afterFirstTurn?.(h, bugId, report);
    await clearFaults(h);
    await h.post(CHANNELS.reports, REPORTER, 'never mind', report);
  }
  await clearFaults(h);
  const execution = await h.eventually(
    () => h.execution(bugId),
    (e) => e.status !== 'RUNNING',
    `${bugId} to end`,
  );
  const wallMs = Date.now() - started;
  const conversation = await h.store.getConversation(bugId, { consistent: true });
  const summaries = await h.messages(CHANNELS.summaries);
  const developers = await h.messages(CHANNELS.developers);
  return {
    scenario: scenario.name,
    bugId,
    modelCalls: h.sandbox.modelFaults.requests - requestsBefore,
    tokens: (conversation?.ledger?.inputTokens ?? 0) + (conversation?.ledger?.outputTokens ?? 0),
    endState: `${conversation?.status ?? 'missing'} (${execution.status})`,
    executionError:
      execution.error === undefined ? undefined : `${execution.error}: ${execution.cause ?? ''}`,
    wallMs,
    reporterThread: await botTexts(h, CHANNELS.reports, report),
    findingsPosts: summaries.filter((m) => m.bot && JSON.stringify(m).includes(bugId)).length,
    messages: await h.store.listMessages(bugId),
    escalation: developers.find((m) => m.bot && JSON.stringify(m).includes(bugId))?.text,
    slackFaultsMet: h.sandbox.slack.workspace
      .apiCalls()
      .slice(slackCallsBefore)
      .flatMap((call) =>
        typeof call.outcome === 'object' &&
        ['http_500', 'no_answer', 'accepted_then_500'].includes(call.outcome.error)
          ? [call.outcome.error]
          : [],
      ),
  };
}

const DETAILED = 'Checkout returns HTTP 500 after I click Pay on version 2.3.1, every time, on Safari 17';
const noScript = () => [];

/** A developer asks a question in the findings thread; the next turn must see it, once. */
async function developerAsks(h: BugHarness, bugId: string): Promise<void> {
  const summaries = await h.eventually(
    () => h.messages(CHANNELS.summaries),
    (messages) => messages.some((m) => m.bot && JSON.stringify(m).includes(bugId)),
    'the findings',
  );
  const post = summaries.find((m) => m.bot && JSON.stringify(m).includes(bugId));
  if (!post) throw new Error('no findings post');
  await h.post(CHANNELS.summaries, DEVELOPER, 'Does it also happen on Firefox?', post.ts);
  await h.eventually(
    async () => (await h.store.listMessages(bugId)).filter((m) => m.text.includes('Firefox')),
    (messages) => messages.length === 1 && messages[0]?.deliveredInTurn !== undefined,
    "the developer's question to reach a turn",
  );
  await h.eventually(
    () => h.store.getConversation(bugId, { consistent: true }),
    (c) => c?.wait !== undefined && c.phase === 'awaiting_dev',
    `${bugId} to wait for developers again`,
  );
}

/**
 * Model misbehaviour: the agent must stop within its bounds, and say so; a model that stays
 * unavailable or refuses the key ends the conversation as failed.
 */
export const MODEL_SCENARIOS: Scenario[] = [
  {
    name: 'model never submits',
    faults: [{ target: 'model', kind: 'never_submits', count: 50 }],
    report: DETAILED,
    script: noScript,
  },
  {
    name: 'model hangs',
    faults: [{ target: 'model', kind: 'hang', count: 50 }],
    report: DETAILED,
    script: noScript,
  },
  {
    name: 'model 429, retry-after 3600 s',
    faults: [{ target: 'model', kind: 'rate_limited', retryAfterSeconds: 3_600, count: 50 }],
    report: DETAILED,
    script: noScript,
  },
  {
    name: 'model rejects the key',
    faults: [{ target: 'model', kind: 'key_rejected', count: 50 }],
    report: DETAILED,
    script: noScript,
  },
  {
    name: 'model 500s for a minute',
    faults: [{ target: 'model', kind: 'server_error', forSeconds: 60 }],
    report: DETAILED,
    script: (bugId) => turn(bugId, findings('Checkout fails after the payment redirect.')),
  },
];

/** Slack misbehaviour: nothing lost, nothing posted twice, the conversation goes on. */
export const SLACK_SCENARIOS: Scenario[] = [
  {
    name: 'Slack 500s for a minute',
    faults: [{ target: 'slack', kind: 'server_error', method: 'chat.postMessage', forSeconds: 60 }],
    report: DETAILED,
    script: (bugId) => turn(bugId, findings('Checkout fails after the payment redirect.')),
  },
  {
    name: 'Slack accepts the findings, answers 500',
    faults: [
      {
        target: 'slack',
        kind: 'accepted_then_error',
        method: 'chat.postMessage',
        channel: CHANNELS.summaries,
        count: 1,
      },
    ],
    report: DETAILED,
    script: (bugId) => [
      ...turn(bugId, findings('Checkout fails after the payment redirect.')),
      readsHistory(bugId),
      submits({ ...findings('Also on Firefox: the redirect drops the token.'), confidence: 85 }),
    ],
    afterFirstTurn: developerAsks,
  },
  {
    name: 'Slack does not answer',
    faults: [
      { target: 'slack', kind: 'no_answer', method: 'chat.postMessage', channel: CHANNELS.reports, count: 1 },
    ],
    report: DETAILED,
    script: (bugId) => turn(bugId, findings('Checkout fails after the payment redirect.')),
  },
];
