import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, expect } from 'vitest';
import type { SlackAgentsConfigInput } from '../../infra/config.ts';
import { conversationIdFor } from '../../lambdas/kernel/keys.ts';
import { submit } from '../support/scripted-model.ts';
import { type BugHarness, type HarnessOptions, startBugHarness } from './bug-harness.ts';

/**
 * What the requirements interview's sandbox scenarios share: `/prd` as a signed slash command,
 * the interview's thread and posts, its stored record, and the scripted agents' answers.
 */

export const PRODUCT = 'C_PRODUCT';
export const REQUESTER = 'U_REQ';
export const PARTICIPANT = 'U_PAT';

export type Assessment = { confidence: number; questions: string[]; open_unknowns?: string[] };
export type InterviewRecord = {
  currentAgent: string;
  confidence: number;
  turnsInAgent: number;
  confidenceHistory: { turn: number; confidence: number; reason: string; at: string }[];
  transitions: {
    event: string;
    agent: string;
    turnsInAgent: number;
    confidence?: number;
    threshold?: number;
    outcome?: string;
    at: string;
  }[];
  metadata: Record<string, number>;
};

export const assess = (a: Assessment) =>
  submit({
    confidence_reason: `Confidence ${a.confidence}`,
    understanding: 'An AI project manager for software teams.',
    ...a,
  });

export const PRD = {
  title: 'AI project manager',
  problem: 'Software teams lose hours every week scheduling work.',
  goals: ['Schedule tasks automatically'],
  non_goals: ['Payroll'],
  users: ['Team leads of 10-50 person software teams'],
  user_stories: ['As a lead, I want tasks scheduled, so that I plan less.'],
  functional_requirements: ['Suggests a weekly schedule'],
  non_functional_requirements: ['Answers within 2 seconds'],
  success_metrics: ['Planning time down 30%'],
  scope: { in: ['Scheduling'], out: ['Billing'] },
  dependencies: ['Calendar API'],
  open_questions: ['Which calendars?'],
  milestones: ['MVP', 'Beta'],
};
export const ANALYSIS = {
  summary: 'A focused PRD with one risky dependency.',
  findings: [
    { kind: 'risk', section: 'Dependencies', finding: 'The calendar API is rate-limited.' },
    { kind: 'gap', section: 'Users', finding: 'No admin persona.' },
  ],
};

export async function startHarness(config: SlackAgentsConfigInput = {}, options: HarnessOptions = {}) {
  return startBugHarness({ channels: { product: PRODUCT }, ...config }, options);
}

/**
 * A sandbox for the calling file's tests: started before them, stopped after them, and the
 * model checked to have had no unexpected call. The harness is reached through the returned
 * object as soon as it has started; before that, any use throws.
 */
export function useHarness(config: SlackAgentsConfigInput = {}, options: HarnessOptions = {}): BugHarness {
  let started: BugHarness | undefined;
  beforeAll(async () => {
    started = await startHarness(config, options);
  });
  afterAll(async () => {
    await started?.stop();
    expect(started?.modelFailures ?? []).toEqual([]);
  });
  return new Proxy({} as BugHarness, {
    get(_, key) {
      if (!started) throw new Error('the sandbox harness is used before it started');
      const value: unknown = Reflect.get(started, key);
      return typeof value === 'function' ? value.bind(started) : value;
    },
  });
}

/** `/prd <idea>` typed by the requester in the product channel. Returns the conversation id. */
export async function slashPrd(
  h: Pick<BugHarness, 'driver'>,
  triggerId: string,
  idea: string,
): Promise<string> {
  const response = await h.driver.slash({
    command: '/prd',
    text: idea,
    channel: PRODUCT,
    user: REQUESTER,
    triggerId,
  });
  expect(response.status).toBe(200);
  return conversationIdFor('requirements_interview', PRODUCT, triggerId);
}

export async function interviewRecord(h: BugHarness, id: string): Promise<InterviewRecord | undefined> {
  const item = await h.sandbox.dynamodb.send(
    new GetItemCommand({
      TableName: h.sandbox.tableName,
      Key: { pk: { S: `CONV#${id}` }, sk: { S: 'META' } },
      ConsistentRead: true,
    }),
  );
  return item.Item ? (unmarshall(item.Item).interview as InterviewRecord | undefined) : undefined;
}

/** The thread the interview's opening post opened. */
export async function threadOf(h: BugHarness, id: string): Promise<string> {
  const conversation = await h.eventually(
    () => h.store.getConversation(id, { consistent: true }),
    (c) => Object.values(c?.anchors ?? {}).some((anchor) => anchor.name === 'interview'),
    `the interview thread of ${id}`,
  );
  const anchor = Object.values(conversation?.anchors ?? {}).find((a) => a.name === 'interview');
  if (!anchor) throw new Error('no interview anchor');
  return anchor.threadTs;
}

export const botPosts = async (h: BugHarness, thread: string) =>
  (await h.messages(PRODUCT, thread)).filter((m) => m.bot);

/** Resolves once the bot posted a message containing `text` in the thread. */
export const posted = (h: BugHarness, thread: string, text: string) =>
  h.eventually(
    () => botPosts(h, thread),
    (posts) => posts.some((p) => p.text.includes(text)),
    `a post with "${text}"`,
  );

export const waitsForAnswer = (h: BugHarness, id: string) =>
  h.eventually(
    () => h.store.getConversation(id, { consistent: true }),
    (c) => c?.wait !== undefined && c.phase === 'awaiting_answer',
    `${id} to wait for an answer`,
  );

export const finished = (h: BugHarness, id: string) =>
  h.eventually(
    () => h.execution(id),
    (e) => e.status !== 'RUNNING',
    `${id} to finish`,
  );
