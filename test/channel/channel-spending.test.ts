import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDailySpend } from '../../lambdas/adapters/dynamo-daily-spend.ts';
import { AgentLimits, type DailySpendStore } from '../../lambdas/agents/limits.ts';
import type {
  AgentLogger,
  MessageCreateParamsNonStreaming,
  ModelClient,
} from '../../lambdas/agents/ports.ts';
import { silentLogger } from '../../lambdas/agents/ports.ts';
import type { ModelPrice } from '../../lambdas/agents/pricing.ts';
import { inConversation } from '../../lambdas/redaction/index.ts';
import type { PostMessageArgs, SlackPoster } from '../../lambdas/slack/web-client.ts';
import { DynamoChannelStore } from '../../lambdas/workflows/channel-conversations/adapters/dynamo-channel-store.ts';
import { handleChannelMessage } from '../../lambdas/workflows/channel-conversations/handle-channel-message.ts';
import { channelRedactionLedger } from '../../lambdas/workflows/channel-conversations/handlers/wiring.ts';
import {
  type ChannelSettings,
  DEFAULT_CHANNEL_SETTINGS,
  type ReplyJob,
} from '../../lambdas/workflows/channel-conversations/model.ts';
import {
  createModelAnswerer,
  createModelJudge,
} from '../../lambdas/workflows/channel-conversations/respond.ts';
import {
  type ResponderDeps,
  respondToMessage,
} from '../../lambdas/workflows/channel-conversations/respond-to-message.ts';
import { type ChannelSpending, pricedModel } from '../../lambdas/workflows/channel-conversations/spending.ts';
import { startDynalite } from '../support/dynalite.ts';

/** A model's answer, as the model client returns it. */
type Message = Awaited<ReturnType<ModelClient['createMessage']>>;

/**
 * channel conversations: the responder's and the judge's model calls are
 * priced, added to the platform's daily counter (the same one agent turns add to), and held by
 * `agentLimits.maxDailyCostUsd` before the model is called.
 */

const BOT = 'U_BOT';
const ANSWER_MODEL = 'claude-answer';
const JUDGE_MODEL = 'claude-judge';
// $2 in and $10 out per million tokens: micro-dollars per token.
const ANSWER_PRICE: ModelPrice = {
  inputPerMillion: 2,
  outputPerMillion: 10,
  cacheWritePerMillion: 2.5,
  cacheReadPerMillion: 0.2,
};
const JUDGE_PRICE: ModelPrice = {
  inputPerMillion: 1,
  outputPerMillion: 5,
  cacheWritePerMillion: 1.25,
  cacheReadPerMillion: 0.1,
};

let db: Awaited<ReturnType<typeof startDynalite>>;
let channelSeq = 0;
let daySeq = 0;
let tsSeq = 0;

beforeAll(async () => {
  db = await startDynalite();
});
afterAll(async () => {
  await db.close();
});

function nextTs(): string {
  tsSeq += 1;
  return `1800000000.${String(tsSeq).padStart(6, '0')}`;
}

/** A model answering `texts` in order with the given usage, recording every request. */
function scriptedModel(texts: string[], usage = { input_tokens: 1_000, output_tokens: 2_000 }) {
  const requests: MessageCreateParamsNonStreaming[] = [];
  const model: ModelClient = {
    async createMessage(params) {
      requests.push(params);
      return {
        id: `msg_${requests.length}`,
        type: 'message',
        role: 'assistant',
        model: params.model,
        content: [{ type: 'text', text: texts.shift() ?? 'no more scripted answers', citations: null }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage,
      } as unknown as Message;
    },
  };
  return { model, requests };
}

function recordingLogger() {
  const warnings: { message: string; details: unknown }[] = [];
  const logger: AgentLogger = {
    ...silentLogger,
    warn: (message: string, details?: unknown) => void warnings.push({ message, details }),
  };
  return { logger, warnings };
}

interface SetupOptions {
  ceilingUsd?: number;
  settings?: ChannelSettings;
  usage?: { input_tokens: number; output_tokens: number };
  /** Stands in for the day's counter (a failing one); the dynalite one otherwise. */
  dailySpend?: DailySpendStore;
  /** Each call's worst case held on the counter before it runs (as the responder's wiring does). */
  reserved?: boolean;
}

/** A channel, a UTC day of its own (the counter is per day), and the responder over dynalite. */
function setup(texts: string[], options: SetupOptions = {}) {
  channelSeq += 1;
  daySeq += 1;
  const channel = `C_SPEND${channelSeq}`;
  const day = `2026-10-${String(daySeq).padStart(2, '0')}`;
  const clock = { now: () => new Date(`${day}T10:00:00.000Z`) };
  const store = new DynamoChannelStore({ client: db.client, tableName: db.tableName, clock });
  const counter = new DynamoDailySpend({ client: db.client, tableName: db.tableName, clock });
  const { logger, warnings } = recordingLogger();
  const settings = options.settings ?? DEFAULT_CHANNEL_SETTINGS;
  const spending: ChannelSpending = {
    limits: AgentLimits.parse(
      options.ceilingUsd === undefined ? {} : { maxDailyCostUsd: options.ceilingUsd },
    ),
    dailySpend: options.dailySpend ?? counter,
    ...(options.reserved ? { reservations: counter } : {}),
    prices: { [ANSWER_MODEL]: ANSWER_PRICE, [JUDGE_MODEL]: JUDGE_PRICE },
    clock,
    logger,
    ledger: (conversationId, delta) => store.addToLedger(conversationId, delta),
  };
  const { model: raw, requests } = scriptedModel(texts, options.usage);
  const model = pricedModel(raw, spending);
  const posts: (PostMessageArgs & { ts: string })[] = [];
  const slack: SlackPoster = {
    async postMessage(args) {
      const ts = nextTs();
      posts.push({ ...args, ts });
      return { channel: args.channel, ts };
    },
  };
  const jobs: ReplyJob[] = [];
  const deps: ResponderDeps = {
    store,
    clock,
    settings,
    answer: createModelAnswerer(model, ANSWER_MODEL),
    slack,
    history: { recentMessages: async () => [] },
    botUserId: BOT,
    ...(settings.useLlmJudge ? { judge: createModelJudge(model, settings.judgeModelId) } : {}),
    spending,
    logger,
  };
  /** The Router's half, then the responder on what it handed over. */
  const handle = async (user: string, text: string) => {
    const before = jobs.length;
    await handleChannelMessage(
      { channel, user, text, ts: nextTs(), mentionsBot: text.includes(`<@${BOT}>`) },
      {
        store,
        replies: { enqueue: async (job) => void jobs.push(job) },
        clock,
        settings,
        botUserId: BOT,
        logger: silentLogger,
      },
    );
    const outcomes = [];
    // As the responder's handler does: the job's work is part of its conversation.
    for (const job of jobs.slice(before))
      outcomes.push(await inConversation(job.conversationId, () => respondToMessage(job, deps)));
    return outcomes;
  };
  return { channel, day, counter, requests, posts, jobs, deps, handle, warnings, store };
}

describe("a channel conversation's ledger", () => {
  it.each([
    ['added after each call', false],
    ['settled after each reserved call', true],
  ])("counts each answer's tokens and cost in the conversation's own ledger (%s)", async (_, reserved) => {
    const { handle, jobs, store } = setup(['Deploys run at 14:00 UTC.', 'On Fridays, never.'], { reserved });
    await handle('U_ALICE', `<@${BOT}> when do deploys run?`);
    await handle('U_ALICE', `<@${BOT}> and on fridays?`);
    const conversationId = jobs[0]?.conversationId ?? '';
    expect(jobs.every((job) => job.conversationId === conversationId)).toBe(true);
    expect(await store.getLedger(conversationId)).toEqual({
      inputTokens: 2_000,
      outputTokens: 4_000,
      costMicroUsd: 2 * 22_000,
    });
  });

  it('adds counts, keeps redacted kinds apart, and is empty before anything was counted', async () => {
    const { store } = setup([]);
    expect(await store.getLedger('channel-C_NONE-1800000000-000001')).toEqual({});
    const id = 'channel-C_LEDGER-1800000000-000001';
    await store.addToLedger(id, {
      redactedSecrets: 1,
      redactedKinds: { 'secret:aws-access-key': 1 },
      lambdaMs: 40,
    });
    await store.addToLedger(id, {
      redactedSecrets: 1,
      redactedPii: 2,
      redactedKinds: { 'secret:aws-access-key': 1, 'pii:email': 2 },
      lambdaMs: 2,
      inputTokens: 0,
    });
    expect(await store.getLedger(id)).toEqual({
      lambdaMs: 42,
      redactedSecrets: 2,
      redactedPii: 2,
      redactedKinds: { 'secret:aws-access-key': 2, 'pii:email': 2 },
    });
  });

  it("counts redacted values in a channel conversation's ledger, and leaves other conversations to the kernel's", async () => {
    const { store } = setup([]);
    const other = channelRedactionLedger(store);
    const id = 'channel-C_REDACT-1800000000-000002';
    expect(await other(id, { 'secret:github-token': 1, 'pii:card': 1 })).toBe(true);
    expect(await store.getLedger(id)).toMatchObject({
      redactedSecrets: 1,
      redactedPii: 1,
      redactedKinds: { 'secret:github-token': 1, 'pii:card': 1 },
    });
    expect(await other('bug-investigation-C0123-1700000000-000100', { 'pii:card': 1 })).toBe(false);
    expect(await store.getLedger('bug-investigation-C0123-1700000000-000100')).toEqual({});
  });
});

describe("the channel responder's model cost", () => {
  it("adds each answer's cost, at the answering model's price, to the day's counter", async () => {
    const { handle, counter, day, posts } = setup(['Deploys run at 14:00 UTC.', 'On Fridays, never.']);
    await handle('U_ALICE', `<@${BOT}> when do deploys run?`);
    await handle('U_ALICE', `<@${BOT}> and on fridays?`);
    expect(posts.map((p) => p.text)).toEqual(['Deploys run at 14:00 UTC.', 'On Fridays, never.']);
    // Each call: 1,000 in at $2/M (2,000 micro-dollars) and 2,000 out at $10/M (20,000).
    expect(await counter.spentOn(day)).toBe(2 * 22_000);
  });

  it("adds the judge's calls at the judge model's own price", async () => {
    const settings = { ...DEFAULT_CHANNEL_SETTINGS, useLlmJudge: true, judgeModelId: JUDGE_MODEL };
    const { handle, counter, day, requests } = setup(['Hello.', 'NO'], { settings });
    await handle('U_ALICE', `<@${BOT}> hello`);
    await handle('U_BOB', 'I think the deploy went out this morning, looking at the dashboard now');
    expect(requests.map((r) => r.model)).toEqual([ANSWER_MODEL, JUDGE_MODEL]);
    // The answer 22,000; the judge 1,000 in at $1/M and 2,000 out at $5/M: 11,000.
    expect(await counter.spentOn(day)).toBe(22_000 + 11_000);
  });

  it('answers a mention with the spent budget instead of calling the model once the day reached the ceiling', async () => {
    const { handle, counter, day, requests, posts, channel } = setup(['first answer'], {
      ceilingUsd: 0.05,
      usage: { input_tokens: 1_000, output_tokens: 5_000 },
    });
    const first = await handle('U_ALICE', `<@${BOT}> hi`);
    expect(first.map((o) => o.answer)).toEqual(['answered']);
    expect(await counter.spentOn(day)).toBe(52_000);

    const second = await handle('U_BOB', `<@${BOT}> one more question`);
    expect(second.map((o) => o.answer)).toEqual(['budget_spent']);
    expect(requests).toHaveLength(1);
    expect(posts[1]).toMatchObject({
      channel,
      text:
        "Sorry, I can't answer that today: the platform's daily model budget is spent " +
        `(the platform reached its spending ceiling of $0.05 of estimated model cost for today (${day}, UTC); it resets at midnight UTC).`,
    });
    expect(posts[1]?.text).toContain("the platform's daily model budget is spent");
    expect(await counter.spentOn(day)).toBe(52_000);
  });

  it('tells a message in a thread in that thread, and only once when its job is redelivered', async () => {
    const { counter, day, deps, posts, requests, channel, jobs, handle } = setup([], { ceilingUsd: 0.01 });
    await counter.add(day, 10_000);
    const first = await handle('U_ALICE', `<@${BOT}> are you there?`);
    const threadTs = nextTs();
    const inThread: ReplyJob = { ...(jobs[0] as ReplyJob), ts: nextTs(), threadTs, started: false };
    const told = await respondToMessage(inThread, deps);
    const redelivered = await respondToMessage(inThread, deps);
    expect([first[0]?.answer, told.answer, redelivered.answer]).toEqual([
      'budget_spent',
      'budget_spent',
      'already_answered',
    ]);
    expect(posts).toHaveLength(2);
    expect(posts[0]?.threadTs).toBeUndefined();
    expect(posts[1]).toMatchObject({ channel, threadTs });
    expect(requests).toEqual([]);
  });

  it('does not ask the judge once the day reached the ceiling, so an ambiguous message stays unanswered', async () => {
    const settings = { ...DEFAULT_CHANNEL_SETTINGS, useLlmJudge: true, judgeModelId: JUDGE_MODEL };
    const { handle, counter, day, requests, posts, warnings } = setup(['Hello.'], {
      settings,
      ceilingUsd: 0.02,
    });
    await handle('U_ALICE', `<@${BOT}> hello`);
    expect(await counter.spentOn(day)).toBe(22_000);
    const outcomes = await handle(
      'U_BOB',
      'I think the deploy went out this morning, looking at the dashboard now',
    );
    expect(outcomes.map((o) => [o.answer, o.decision.reason])).toEqual([
      ['not_answered', 'llm_judge_failed'],
    ]);
    expect(requests.map((r) => r.model)).toEqual([ANSWER_MODEL]);
    expect(posts).toHaveLength(1);
    expect(warnings.map((w) => w.message)).toContain('the judge failed; not answering');
  });

  it('still posts the answer when adding to the day’s counter fails, and logs the failure', async () => {
    const failing: DailySpendStore = {
      spentOn: async () => 0,
      add: async () => {
        throw new Error('the table is throttling');
      },
    };
    const { handle, posts, warnings } = setup(['An answer.'], { ceilingUsd: 10, dailySpend: failing });
    const outcomes = await handle('U_ALICE', `<@${BOT}> hi`);
    expect(outcomes.map((o) => o.answer)).toEqual(['answered']);
    expect(posts.map((p) => p.text)).toEqual(['An answer.']);
    expect(warnings.map((w) => w.message)).toEqual(['could not add to the daily spend']);
  });

  it('retries the job (no model call, nothing posted) when the day’s counter cannot be read', async () => {
    const unreadable: DailySpendStore = {
      spentOn: async () => {
        throw new Error('the table is unreachable');
      },
      add: async () => {},
    };
    const { handle, posts, requests } = setup(['An answer.'], { ceilingUsd: 10, dailySpend: unreadable });
    await expect(handle('U_ALICE', `<@${BOT}> hi`)).rejects.toThrow('the table is unreachable');
    expect(requests).toEqual([]);
    expect(posts).toEqual([]);
  });
});
