import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type { SlackAgentsConfigInput } from '../../infra/config.ts';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { conversationIdFor } from '../../lambdas/kernel/keys.ts';
import type { FunctionThreadsOptions } from '../../local/function-threads.ts';
import type { Sandbox } from '../../local/sandbox-options.ts';
import { slackRetryPacing } from '../../local/sandbox-pacing.ts';
import type { ManualClock } from '../../local/stepfunctions/clock.ts';
import { promptLines } from '../../statemachines/demo/text.ts';
import { buildMemoOption } from '../support/build-memo.ts';
import { until } from '../support/eventually.ts';
import { workerSandbox } from '../support/sandbox.ts';
import {
  type SlackMessage as Message,
  type SandboxDriver,
  sandboxDriver,
} from '../support/sandbox-driver.ts';
import {
  lastToolResults,
  lastUserText,
  type ModelReply,
  noStepLeft,
  type RecordedModelRequest,
  startScriptedModel,
  submit,
  toolResultText,
  toolUse,
} from '../support/scripted-model.ts';

/**
 * A sandbox running the production workflows with a scripted model behind the real
 * Messages API: each conversation (bug) gets its own script, so scenarios read as what the
 * agent does turn by turn, and every request the model received is kept for assertions.
 */

export const CHANNELS = {
  reports: 'C_BUG_REPORTS',
  summaries: 'C_BUG_SUMMARIES',
  developers: 'C_DEVELOPERS',
} as const;
export const REPORTER = 'U_REPORTER';
export const DEVELOPER = 'U_DEV';

export type Step = ModelReply | ((request: RecordedModelRequest) => ModelReply | Promise<ModelReply>);

export interface BugResult {
  action: 'ask_reporter' | 'post_findings' | 'resolved' | 'escalate';
  summary: string;
  root_cause?: string;
  confidence: number;
  severity: 'low' | 'medium' | 'high' | 'critical';
  clarification_question?: string;
}

type Execution = {
  name: string;
  status: string;
  /** The error and cause it failed with, when it failed. */
  error?: string;
  cause?: string;
  events: { type: string; stateName?: string; timestamp: string }[];
};

export interface BugHarness {
  sandbox: Sandbox;
  /** Slack's moves in the sandbox (a slash command, an event, a press) and the waits for what follows. */
  driver: SandboxDriver;
  store: DynamoConversationStore;
  /** Requests the model received, per bug id. */
  requestsOf(bugId: string): RecordedModelRequest[];
  /** Problems on the model's side (a script that ran out, a failed assertion in a step). */
  modelFailures: string[];
  /** Gives the bug's conversation its script (steps are taken in order, across turns). */
  script(bugId: string, steps: Step[]): void;
  post(channel: string, user: string, text: string, threadTs?: string): Promise<string>;
  messages(channel: string, threadTs?: string): Promise<Message[]>;
  execution(name: string): Promise<Execution>;
  eventually<T>(probe: () => Promise<T>, accept: (value: T) => boolean, what: string): Promise<T>;
  /**
   * Moves the manual clock (`clock: 'manual'`) by `seconds` of workflow time, firing the waits'
   * timeouts that fall due, in order.
   */
  advanceClock(seconds: number): Promise<void>;
  stop(): Promise<void>;
}

export const bugIdFor = (reportTs: string) =>
  conversationIdFor('bug_investigation', CHANNELS.reports, reportTs);

/** The conversation a request belongs to: the id its first prompt names (a bug's or an interview's). */
function bugIdOf(body: MessageCreateParamsNonStreaming): string | undefined {
  for (const message of body.messages) {
    const blocks =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    for (const block of blocks) {
      if (block.type !== 'text') continue;
      const match = /(?:Bug|Interview) id: "([^"]+)"/.exec((block as { text: string }).text);
      if (match?.[1]) return match[1];
    }
  }
  return undefined;
}

export interface HarnessOptions {
  /**
   * `demo`: the sandbox's offline demo model plays the agents (what `npm run dev` runs without
   * credentials), and conversations get no script.
   * @default 'scripted'
   */
  model?: 'scripted' | 'demo';
  /** @default 0.001 */
  timeScale?: number;
  /** Extra environment for the handlers (e.g. `MODEL_MAX_RETRIES`). */
  env?: Record<string, string>;
  /**
   * `manual`: the waits for people time out only when the test advances
   * `sandbox.stepFunctions.clock` (local/stepfunctions/clock.ts). @default 'real'
   */
  clock?: 'real' | 'manual';
  /** The functions in worker threads (local/function-threads.ts). @default on the main thread */
  functionThreads?: FunctionThreadsOptions;
  /** The handlers' log level (Powertools'); a test that reads what a handler logged raises it. @default 'SILENT' */
  logLevel?: 'INFO' | 'SILENT';
  /**
   * Replay a fix's checks build of a tree, buildspec and environment already built in this run
   * instead of running its commands again (local/codebuild/build-memo.ts): the workflow still
   * reads the build's phases, log and test report through CodeBuild's API. For scenarios that
   * only need a build's outcome, never one that stops, times out or watches a build run.
   * @default false
   */
  buildMemo?: boolean;
}

export async function startBugHarness(
  config: SlackAgentsConfigInput = {},
  options: HarnessOptions = {},
): Promise<BugHarness> {
  const scripts = new Map<string, Step[]>();
  const requests = new Map<string, RecordedModelRequest[]>();
  const scripted = options.model !== 'demo';
  const model = await startScriptedModel({
    steps: async (request) => {
      const bugId = bugIdOf(request.body);
      if (!bugId) throw new Error('a model request without a bug id in its first prompt');
      // The test registers a script right after posting the report; the first turn may be quicker.
      await until(() => scripts.has(bugId), `a script for ${bugId}`, 5_000).catch(() => false);
      const step = scripts.get(bugId)?.shift();
      if (!step) throw noStepLeft(bugId, request, requests.get(bugId) ?? []);
      const list = requests.get(bugId) ?? [];
      list.push(request);
      requests.set(bugId, list);
      return typeof step === 'function' ? step(request) : step;
    },
  });
  const timeScale = options.timeScale ?? 0.001;
  const sandbox = await workerSandbox({
    timeScale,
    ...(options.clock ? { clock: options.clock } : {}),
    config: { reporterWaitSeconds: 7_200, developerWaitSeconds: 8_000, ...config },
    // The Slack clients retry a faulted call on the sandbox's time, as the workflow does.
    env: scripted
      ? {
          ...slackRetryPacing(timeScale),
          ANTHROPIC_BASE_URL: model.baseUrl,
          ANTHROPIC_API_KEY: 'test-key',
          MODEL_MAX_RETRIES: '2',
          ...options.env,
        }
      : { ...slackRetryPacing(timeScale), ...options.env },
    logLevel: options.logLevel ?? 'SILENT',
    ...buildMemoOption(options.buildMemo),
    ...(options.functionThreads && { functionThreads: options.functionThreads }),
  });
  const store = new DynamoConversationStore({ client: sandbox.dynamodb, tableName: sandbox.tableName });

  const driver = sandboxDriver(() => sandbox, { stallMs: 45_000 });

  return {
    sandbox,
    driver,
    store,
    modelFailures: model.failures,
    requestsOf: (bugId) => requests.get(bugId) ?? [],
    script(bugId, steps) {
      if (!scripted) throw new Error('the offline demo model plays the agents here: no scripts');
      scripts.set(bugId, [...(scripts.get(bugId) ?? []), ...steps]);
    },
    post: driver.post,
    messages: driver.messages,
    execution: (name) => driver.api<Execution>(`/sandbox/executions/${name}`),
    eventually: driver.eventually,
    async advanceClock(seconds) {
      // Told by its flag: the sandbox's modules are loaded apart from this file's (test/support/sandbox.ts).
      const clock = sandbox.stepFunctions.clock;
      if (!clock.manual) throw new Error("advanceClock needs the harness's clock: 'manual'");
      await (clock as ManualClock).advance(seconds * 1000 * timeScale);
    },
    async stop() {
      await sandbox.stop();
      await model.close();
    },
  };
}

/** The agent reads the conversation history (the design's first move on every continuation turn). */
export const readsHistory = (bugId: string): Step => toolUse('get_bug_conversations', { bug_id: bugId });

/** The agent submits its result; `seen` receives the history text the previous tool call returned. */
export function submits(
  result: BugResult,
  seen?: (history: string, prompt: string) => void,
): (request: RecordedModelRequest) => ModelReply {
  return (request) => {
    if (seen) {
      const [first] = lastToolResults(request.body);
      seen(first ? toolResultText(first) : '', promptOfTurn(request));
    }
    return submit(result);
  };
}

/** A whole turn: read the history, then submit. `seen` gets the history and the turn's prompt. */
export const turn = (
  bugId: string,
  result: BugResult,
  seen?: (history: string, prompt: string) => void,
): Step[] => [readsHistory(bugId), submits(result, seen)];

/** The prompt that opened the turn this request belongs to: the last user text before tool results. */
export function promptOfTurn(request: RecordedModelRequest): string {
  const messages = request.body.messages;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role !== 'user') continue;
    const text = lastUserText({ ...request.body, messages: [message] });
    if (text.trim()) return text;
  }
  return '';
}

/** The ts of the bot's findings post whose text has `summary` (it opens their thread in #bug-summaries), once it is there. */
export async function findingsPostTs(h: BugHarness, summary: string): Promise<string> {
  const posts = await h.eventually(
    () => h.messages(CHANNELS.summaries),
    (messages) => messages.some((m) => m.bot && m.text.includes(summary)),
    'the findings in #bug-summaries',
  );
  const post = posts.find((m) => m.bot && m.text.includes(summary));
  if (!post) throw new Error('no findings post');
  return post.ts;
}

/**
 * A report and its first findings (one scripted turn), once the findings carry their "Fix it"
 * button (a repository is configured) and the conversation waits for developers: the bug id,
 * the report's ts and the findings thread's ts.
 */
export async function reportedWithFixIt(h: BugHarness, text: string) {
  const report = await h.post(CHANNELS.reports, REPORTER, text);
  const bug = bugIdFor(report);
  h.script(bug, turn(bug, findings('The session token is dropped after the payment redirect.')));
  const conversation = await h.eventually(
    () => h.store.getConversation(bug, { consistent: true }),
    (c) => c?.approvals?.request_fix?.messageTs !== undefined && c.wait !== undefined,
    'the findings with their "Fix it" button, and the wait for developers',
  );
  return { bug, report, thread: conversation?.approvals?.request_fix?.messageTs ?? '' };
}

export const ask = (question: string): BugResult => ({
  action: 'ask_reporter',
  summary: 'The report is too vague to investigate.',
  confidence: 10,
  severity: 'medium',
  clarification_question: question,
});

export const findings = (summary: string): BugResult => ({
  action: 'post_findings',
  summary,
  root_cause: 'A null session token after the payment redirect.',
  confidence: 80,
  severity: 'high',
});

/**
 * The id of the latest message of the turn's prompt (people's messages are JSON lines there),
 * from `user` when given: what an investigator cites as the request a fix rests on.
 */
export function messageIdOf(request: RecordedModelRequest, user?: string): string {
  const entries = promptLines(promptOfTurn(request)).filter(
    (line) => user === undefined || line.senderId === user,
  );
  const id = entries.at(-1)?.id;
  if (id === undefined) throw new Error(`no message${user ? ` from ${user}` : ''} in the turn's prompt`);
  return id;
}

/**
 * Lets the bug's SLA tracking reach the acknowledgement deadline of its `level`-th wait (0:
 * the first) on the manual clock: once the wait is entered and its timer armed, moves the
 * clock by `deadlineSeconds` of workflow time.
 */
export async function passSlaDeadline(
  h: BugHarness,
  bugId: string,
  deadlineSeconds: number,
  level = 0,
): Promise<void> {
  const state = 'Wait for acknowledgement';
  const entered = (e: Execution) =>
    e.events.filter((event) => event.type === 'WaitStateEntered' && event.stateName === state).length > level;
  const tracking = await h.eventually(
    async () => {
      const list = await h.driver.api<{ executions: { name: string; stateMachine: string }[] }>(
        '/sandbox/executions',
      );
      const child = list.executions.find(
        (e) => e.name.startsWith(bugId) && e.stateMachine.startsWith('SlaTracking'),
      );
      return child ? h.execution(child.name) : undefined;
    },
    (e) => e !== undefined && entered(e),
    `${bugId}'s SLA tracking to wait (level ${level})`,
  );
  // The Wait is entered just before its timer is armed. The timer is found by the state that
  // armed it: on a busy machine real time may already have brought it to 0.
  const clock = h.sandbox.stepFunctions.clock as ManualClock;
  await h.eventually(
    async () => clock.armed(),
    (timers) => timers.some((t) => t.owner?.execution === tracking?.name && t.owner?.state === state),
    `the timer of ${tracking?.name}'s ${state}`,
  );
  await h.advanceClock(deadlineSeconds);
}
