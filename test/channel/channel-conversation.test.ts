import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ModelCallError } from '../../lambdas/agents/errors.ts';
import type { MessageCreateParamsNonStreaming, ModelClient } from '../../lambdas/agents/ports.ts';
import { silentLogger } from '../../lambdas/agents/ports.ts';
import { SlackApiError } from '../../lambdas/slack/errors.ts';
import type { PostMessageArgs, SlackHistoryMessage, SlackPoster } from '../../lambdas/slack/web-client.ts';
import { DynamoChannelStore } from '../../lambdas/workflows/channel-conversations/adapters/dynamo-channel-store.ts';
import {
  type ChannelOutcome,
  handleChannelMessage,
} from '../../lambdas/workflows/channel-conversations/handle-channel-message.ts';
import {
  DEFAULT_CHANNEL_SETTINGS,
  type ReplyJob,
} from '../../lambdas/workflows/channel-conversations/model.ts';
import type { ChannelHistory } from '../../lambdas/workflows/channel-conversations/ports.ts';
import { createModelAnswerer } from '../../lambdas/workflows/channel-conversations/respond.ts';
import {
  type ResponderDeps,
  respondToMessage,
} from '../../lambdas/workflows/channel-conversations/respond-to-message.ts';
import { startDynalite } from '../support/dynalite.ts';

/** What the bot says when the model gave no text for a message addressed to it (stated here, not imported: the value is what this test checks). */
const NO_ANSWER_APOLOGY =
  "Sorry, I couldn't come up with an answer to that. Could you ask it again, perhaps with a bit more detail?";

/** A model's answer, as the model client returns it. */
type Message = Awaited<ReturnType<ModelClient['createMessage']>>;

/** What answering one message came to. */
type ReplyOutcome = Awaited<ReturnType<typeof respondToMessage>>;

/** What the channel router works through. */
type ChannelRouterDeps = Parameters<typeof handleChannelMessage>[1];

/** A channel message as the channel router takes it. */
type ChannelEnvelope = Parameters<typeof handleChannelMessage>[0];

const BOT = 'U_BOT';
let db: Awaited<ReturnType<typeof startDynalite>>;
let channelSeq = 0;
let channel: string;

beforeAll(async () => {
  db = await startDynalite();
});
afterAll(async () => {
  await db.close();
});
beforeEach(() => {
  channelSeq += 1;
  channel = `C_TEST${channelSeq}`;
});

/** A clock the test moves by hand. */
function manualClock(start = '2015-11-22T10:00:00.000Z') {
  let now = Date.parse(start);
  return { now: () => new Date(now), advance: (seconds: number) => (now += seconds * 1000) };
}

/** A scripted model: answers in order (an Error is thrown instead), records every request. */
function scriptedModel(answers: (string | Error)[]) {
  const requests: MessageCreateParamsNonStreaming[] = [];
  const model: ModelClient = {
    async createMessage(params) {
      requests.push(params);
      const text = answers.shift() ?? 'no more scripted answers';
      if (text instanceof Error) throw text;
      return {
        id: `msg_${requests.length}`,
        type: 'message',
        role: 'assistant',
        model: params.model,
        content: [{ type: 'text', text, citations: null }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      } as unknown as Message;
    },
  };
  return { model, requests };
}

/** Slack's chat.postMessage, answering `refusals` posts with Slack's refusal first. */
function fakeSlack(refusals = 0) {
  const posts: (PostMessageArgs & { ts: string })[] = [];
  let refuse = refusals;
  const slack: SlackPoster = {
    async postMessage(args) {
      if (refuse > 0) {
        refuse -= 1;
        throw new SlackApiError('chat.postMessage', 'ratelimited');
      }
      const ts = nextTs();
      posts.push({ ...args, ts });
      return { channel: args.channel, ts };
    },
  };
  return { slack, posts };
}

interface SetupOptions {
  settings?: typeof DEFAULT_CHANNEL_SETTINGS;
  /** What `conversations.history` / `.replies` return (oldest first), or an Error to throw. */
  history?: SlackHistoryMessage[] | Error;
  /** Posts Slack refuses before it accepts one. */
  slackRefusals?: number;
}

/**
 * The Router's half and the responder's half over one dynalite table, joined by a list that
 * stands in for the replies queue (the sandbox tests run the real FIFO queue).
 */
function setup(answers: (string | Error)[] = [], options: SetupOptions = {}) {
  const settings = options.settings ?? DEFAULT_CHANNEL_SETTINGS;
  const clock = manualClock();
  const store = new DynamoChannelStore({ client: db.client, tableName: db.tableName, clock });
  const { model, requests } = scriptedModel(answers);
  const { slack, posts } = fakeSlack(options.slackRefusals);
  const jobs: ReplyJob[] = [];
  const historyCalls: Parameters<ChannelHistory['recentMessages']>[0][] = [];
  const history: ChannelHistory = {
    async recentMessages(args) {
      historyCalls.push(args);
      if (options.history instanceof Error) throw options.history;
      return options.history ?? [];
    },
  };
  const routerDeps: ChannelRouterDeps = {
    store,
    replies: { enqueue: async (job) => void jobs.push(job) },
    clock,
    settings,
    botUserId: BOT,
    logger: silentLogger,
  };
  const responderDeps: ResponderDeps = {
    store,
    clock,
    settings,
    answer: createModelAnswerer(model, 'claude-test'),
    slack,
    history,
    botUserId: BOT,
    logger: silentLogger,
  };
  /** Routes the message, then responds to what the Router handed over, as the queue would. */
  const handle = async (envelope: ChannelEnvelope): Promise<ChannelOutcome & { replies: ReplyOutcome[] }> => {
    const before = jobs.length;
    const outcome = await handleChannelMessage(envelope, routerDeps);
    const replies: ReplyOutcome[] = [];
    for (const job of jobs.slice(before)) replies.push(await respondToMessage(job, responderDeps));
    return { ...outcome, replies };
  };
  return { clock, store, requests, posts, jobs, historyCalls, routerDeps, responderDeps, handle };
}

/** Slack's ts for the next message, anyone's (the bot's replies come after what they answer). */
let tsSeq = 0;
function nextTs(): string {
  tsSeq += 1;
  return `1800000000.${String(tsSeq).padStart(6, '0')}`;
}

function msg(user: string, text: string, overrides: Partial<ChannelEnvelope> = {}): ChannelEnvelope {
  return {
    channel,
    user,
    text,
    ts: nextTs(),
    mentionsBot: text.includes(`<@${BOT}>`),
    ...overrides,
  };
}

/** A person's message as it appears in a JSON-serialised request: its data entry, escaped once more. */
function said(from: string, role: string, text: string): string {
  return JSON.stringify(`"from":"${from}","role":"${role}","verified":true,"text":"${text}"`).slice(1, -1);
}

describe('the conversation per channel', () => {
  it('expires after the timeout without messages', async () => {
    const { clock, handle } = setup(['hello'], {
      settings: { ...DEFAULT_CHANNEL_SETTINGS, timeoutSeconds: 60 },
    });
    const first = await handle(msg('U_ALICE', `<@${BOT}> hi`));
    clock.advance(61);
    const later = await handle(msg('U_ALICE', 'anyone around?'));
    expect(first.type).toBe('recorded');
    expect(later).toEqual({
      type: 'ignored',
      reason: 'no active conversation and no explicit trigger',
      replies: [],
    });
  });

  it('stays active while anyone keeps talking, not only the bot', async () => {
    const { clock, handle, store } = setup(['hello']);
    await handle(msg('U_ALICE', `<@${BOT}> hi`));
    for (let i = 0; i < 3; i += 1) {
      clock.advance(100);
      const outcome = await handle(msg('U_BOB', `side chat ${i}`));
      expect(outcome.type).toBe('recorded');
    }
    const conversation = await store.getConversation(channel);
    expect(conversation?.participants).toEqual({ U_ALICE: true, U_BOB: true });
  });

  it("filters the bot's own messages before anything else", async () => {
    const { handle, store, jobs } = setup();
    const outcome = await handle(msg(BOT, `<@${BOT}> talking to myself`));
    expect(outcome).toEqual({ type: 'ignored', reason: "the bot's own message", replies: [] });
    expect(await store.getConversation(channel)).toBeUndefined();
    expect(jobs).toEqual([]);
  });

  it('does not start a conversation without an explicit trigger', async () => {
    const { handle, store, jobs } = setup();
    const outcome = await handle(msg('U_ALICE', 'what is for lunch?'));
    expect(outcome.type).toBe('ignored');
    expect(await store.getConversation(channel)).toBeUndefined();
    expect(jobs).toEqual([]);
  });

  it("starts on a reply in the thread of the bot's message", async () => {
    const { clock, handle, posts } = setup(['first answer', 'second answer']);
    await handle(msg('U_ALICE', `<@${BOT}> hi`));
    expect(posts).toHaveLength(1);
    const botTs = posts[0]?.ts ?? '';
    // The first conversation ends; a reply in the bot's thread starts the next one.
    clock.advance(500);
    const outcome = await handle(msg('U_BOB', 'thanks, more please', { threadTs: botTs }));
    expect(outcome).toMatchObject({ type: 'recorded', started: true, replies: [{ answer: 'answered' }] });
    expect(posts[1]).toMatchObject({ threadTs: botTs, text: 'second answer' });
  });

  it('hands every recorded message to the responder, in order, once per message', async () => {
    const { handle, jobs } = setup(['hello']);
    const trigger = msg('U_ALICE', `<@${BOT}> hi`);
    await handle(trigger);
    await handle(msg('U_BOB', 'side chat'));
    expect(jobs.map((job) => [job.userId, job.started, job.mentionsBot])).toEqual([
      ['U_ALICE', true, true],
      ['U_BOB', false, false],
    ]);
    // A redelivered trigger is handed over again with the same message: the queue's
    // deduplication id (conversation and ts) drops it, and the answer claim covers a late one.
    await handleChannelMessage(trigger, setup().routerDeps);
    expect(jobs).toHaveLength(2);
  });
});

describe('the channel history when a conversation starts', () => {
  it('reads what was said before the trigger and gives it to the first answer as context', async () => {
    const earlier: SlackHistoryMessage[] = [
      { ts: '1799999990.000001', userId: 'U_CAROL', text: 'the export job failed again last night' },
      { ts: '1799999991.000001', userId: BOT, text: 'an earlier answer of mine' },
    ];
    const { handle, requests, historyCalls, store } = setup(['It failed on the quota.'], {
      history: earlier,
    });
    const trigger = msg('U_ALICE', `<@${BOT}> why did it fail?`);
    const outcome = await handle(trigger);
    expect(outcome.replies).toEqual([expect.objectContaining({ historyLoaded: 2, answer: 'answered' })]);
    expect(historyCalls).toEqual([{ channel, before: trigger.ts, limit: 20 }]);
    const prompt = JSON.stringify(requests[0]?.messages);
    expect(prompt).toContain('Earlier in the channel, before you were addressed:');
    expect(prompt).toContain(said('U_CAROL', 'member', 'the export job failed again last night'));
    expect(prompt).toContain(said(BOT, 'bot', 'an earlier answer of mine'));
    // Context, not activity: the history's authors are not participants.
    expect((await store.getConversation(channel))?.participants).toEqual({ U_ALICE: true });
  });

  it('reads the thread when the trigger is a reply in one', async () => {
    const { handle, historyCalls } = setup(['ok']);
    const trigger = msg('U_ALICE', `<@${BOT}> thoughts?`, { threadTs: '1799999990.000001' });
    await handle(trigger);
    expect(historyCalls).toEqual([{ channel, before: trigger.ts, threadTs: '1799999990.000001', limit: 20 }]);
  });

  it('reads none when recentHistoryMessages is 0', async () => {
    const none = setup(['a'], { settings: { ...DEFAULT_CHANNEL_SETTINGS, recentHistoryMessages: 0 } });
    await none.handle(msg('U_ALICE', `<@${BOT}> hi`));
    expect(none.historyCalls).toEqual([]);
  });

  it('reads it only on the start', async () => {
    const once = setup(['a', 'b']);
    await once.handle(msg('U_ALICE', `<@${BOT}> hi`));
    await once.handle(msg('U_ALICE', `<@${BOT}> again`));
    expect(once.historyCalls).toHaveLength(1);
  });

  it('answers without the history when Slack cannot give it', async () => {
    const { handle, posts } = setup(['answered anyway'], { history: new Error('channel_not_found') });
    const outcome = await handle(msg('U_ALICE', `<@${BOT}> hi`));
    expect(outcome.replies).toEqual([expect.objectContaining({ historyLoaded: 0, answer: 'answered' })]);
    expect(posts.map((p) => p.text)).toEqual(['answered anyway']);
  });
});

describe('answering with the conversation as context', () => {
  it('uses the earlier exchange for a follow-up', async () => {
    const { clock, handle, requests, posts } = setup([
      'Deploys run at 14:00 UTC.',
      'On Fridays they are frozen.',
    ]);
    await handle(msg('U_ALICE', `<@${BOT}> when do deploys run?`));
    clock.advance(20);
    const outcome = await handle(msg('U_ALICE', 'and on fridays?'));
    expect(outcome.replies).toEqual([
      expect.objectContaining({
        decision: { decision: true, reason: 'recent_followup' },
        answer: 'answered',
      }),
    ]);
    expect(posts.map((p) => p.text)).toEqual(['Deploys run at 14:00 UTC.', 'On Fridays they are frozen.']);
    const history = requests[1]?.messages ?? [];
    expect(history[0]?.role).toBe('user');
    expect(JSON.parse(String(history[0]?.content))).toMatchObject({
      from: 'U_ALICE',
      role: 'member',
      text: `<@${BOT}> when do deploys run?`,
    });
    expect(history[1]).toEqual({ role: 'assistant', content: 'Deploys run at 14:00 UTC.' });
    expect(JSON.stringify(history[2])).toContain('and on fridays?');
  });

  it('answers another user who joins, with the full channel context', async () => {
    const { clock, handle, requests } = setup(['Use the blue button.', 'Yes, it works for admins too.']);
    await handle(msg('U_ALICE', `<@${BOT}> how do I export?`));
    clock.advance(5);
    const aside = await handle(msg('U_CAROL', 'I tried that yesterday, it was slow'));
    clock.advance(5);
    const joined = await handle(msg('U_BOB', `<@${BOT}> does that work for admins?`));
    expect(aside.replies).toEqual([
      expect.objectContaining({
        answer: 'not_answered',
        decision: { decision: false, reason: 'no_trigger' },
      }),
    ]);
    expect(joined.replies).toEqual([
      expect.objectContaining({
        answer: 'answered',
        decision: { decision: true, reason: 'explicit_trigger' },
      }),
    ]);
    const last = JSON.stringify(requests[1]?.messages);
    expect(last).toContain('how do I export?');
    expect(last).toContain(said(BOT, 'bot', 'Use the blue button.'));
    expect(last).toContain(said('U_CAROL', 'member', 'I tried that yesterday, it was slow'));
    expect(last).toContain('does that work for admins?');
  });

  it('answers a message with what was said up to it, when the responder is behind', async () => {
    const { jobs, requests, responderDeps, routerDeps } = setup(['first', 'second']);
    const first = msg('U_ALICE', `<@${BOT}> question one`);
    const later = msg('U_BOB', 'a message after it');
    // Both are recorded before the responder reaches the first.
    await handleChannelMessage(first, routerDeps);
    await handleChannelMessage(later, routerDeps);
    const [job] = jobs;
    if (!job) throw new Error('no job handed over');
    await respondToMessage(job, responderDeps);
    const prompt = JSON.stringify(requests[0]?.messages);
    expect(prompt).toContain('question one');
    expect(prompt).not.toContain('a message after it');
  });

  it('never answers a redelivered message twice', async () => {
    const { handle, posts, requests } = setup(['once', 'twice']);
    const message = msg('U_ALICE', `<@${BOT}> hi`);
    const first = await handle(message);
    const again = await handle(message);
    expect(first).toMatchObject({ stored: 'stored', replies: [{ answer: 'answered' }] });
    expect(again).toMatchObject({ stored: 'duplicate', replies: [{ answer: 'already_answered' }] });
    expect(posts).toHaveLength(1);
    // The redelivery stops before the model.
    expect(requests).toHaveLength(1);
  });

  it('answers a direct mention with an apology when the model gives no text, instead of silence', async () => {
    const { handle, posts } = setup(['']);
    const outcome = await handle(msg('U_ALICE', `<@${BOT}> what does the batch job do?`));
    expect(outcome.replies).toEqual([expect.objectContaining({ answer: 'empty_apologized' })]);
    expect(posts.map((p) => p.text)).toEqual([NO_ANSWER_APOLOGY]);
  });

  it('ends the conversation as failed and says why when the model stays unavailable, as every workflow does', async () => {
    const overloaded = new ModelCallError(
      'the model API answered HTTP 529 overloaded_error: Overloaded',
      { status: 529 },
      { cause: undefined },
    );
    const { handle, jobs, posts, responderDeps, requests, store } = setup([overloaded, 'a new answer']);
    const outcome = await handle(msg('U_ALICE', `<@${BOT}> hi`));
    expect(outcome.replies).toEqual([expect.objectContaining({ answer: 'model_stopped' })]);
    expect(posts.map((p) => p.text)).toEqual([
      ':warning: I had to stop this conversation: the model stayed unavailable through every retry. Mention me again in a few minutes.',
    ]);
    expect((await store.getConversation(channel))?.ended).toMatchObject({
      status: 'failed',
      Error: 'ModelUnavailableError',
      Cause: 'the model API answered HTTP 529 overloaded_error: Overloaded',
    });
    // A redelivery finds the claim: told once, no model call.
    const [job] = jobs;
    if (!job) throw new Error('no job handed over');
    expect(await respondToMessage(job, responderDeps)).toMatchObject({ answer: 'already_answered' });
    // The conversation is over: a follow-up starts nothing, a new mention starts a new conversation.
    expect(await handle(msg('U_ALICE', 'hello?'))).toMatchObject({ type: 'ignored', replies: [] });
    const again = await handle(msg('U_ALICE', `<@${BOT}> are you back?`));
    expect(again).toMatchObject({ type: 'recorded', started: true, replies: [{ answer: 'answered' }] });
    expect(again.type === 'recorded' && again.conversationId).not.toBe(job.conversationId);
    expect(posts).toHaveLength(2);
    expect(requests).toHaveLength(2);
  });

  it('ends the conversation as failed, naming the refusal, when the model refuses the call', async () => {
    const refused = new ModelCallError(
      'the model API answered HTTP 401 authentication_error: invalid x-api-key',
      { status: 401 },
      { cause: undefined },
    );
    const { handle, jobs, posts, responderDeps, requests, store } = setup([refused]);
    await handle(msg('U_ALICE', `<@${BOT}> hi`));
    expect(posts.map((p) => p.text)).toEqual([
      ':warning: I had to stop this conversation: the model refused its requests (the model API answered HTTP 401 authentication_error: invalid x-api-key). Tell the people who run this app; mention me again once they have fixed it.',
    ]);
    expect((await store.getConversation(channel))?.ended).toMatchObject({ Error: 'ModelCallError' });
    // A message handed over before the end is not answered: no model call for an ended conversation.
    const [first] = jobs;
    if (!first) throw new Error('no job handed over');
    const queued = { ...first, ts: nextTs(), text: `<@${BOT}> still there?` };
    expect(await respondToMessage(queued, responderDeps)).toMatchObject({ answer: 'conversation_failed' });
    expect(requests).toHaveLength(1);
  });

  it('leaves no claim behind when answering fails otherwise, so the retry answers', async () => {
    const { handle, jobs, posts, responderDeps } = setup([new Error('socket hang up'), 'after the retry']);
    await expect(handle(msg('U_ALICE', `<@${BOT}> hi`))).rejects.toThrow('socket hang up');
    const [job] = jobs;
    if (!job) throw new Error('no job handed over');
    expect(await respondToMessage(job, responderDeps)).toMatchObject({ answer: 'answered' });
    expect(posts.map((p) => p.text)).toEqual(['after the retry']);
  });

  // The answer, and the apology the bot posts in its place when the model gives no text twice.
  it.each([
    { what: 'the post', texts: ['refused', 'posted'], answer: 'answered', posted: 'posted' },
    {
      what: "an apology in the answer's place",
      texts: ['', ''],
      answer: 'empty_apologized',
      posted: NO_ANSWER_APOLOGY,
    },
  ])(
    'gives the claim back when Slack refuses $what, so the retry posts it once',
    async ({ texts, answer, posted }) => {
      const { handle, jobs, posts, responderDeps } = setup(texts, { slackRefusals: 1 });
      await expect(handle(msg('U_ALICE', `<@${BOT}> hi`))).rejects.toThrow(SlackApiError);
      const [job] = jobs;
      if (!job) throw new Error('no job handed over');
      expect(await respondToMessage(job, responderDeps)).toMatchObject({ answer });
      expect(await respondToMessage(job, responderDeps)).toMatchObject({ answer: 'already_answered' });
      expect(posts.map((p) => p.text)).toEqual([posted]);
    },
  );
});

describe('two instances on one channel', () => {
  it('start one conversation from two concurrent triggers and answer each message once', async () => {
    const a = setup(['a1', 'a2', 'a3']);
    const b = setup(['b1', 'b2', 'b3']);
    const one = msg('U_ALICE', `<@${BOT}> first`);
    const two = msg('U_BOB', `<@${BOT}> second`);
    // Each instance handles both messages (a redelivery on the other instance), all at once.
    const outcomes = await Promise.all([a.handle(one), b.handle(two), a.handle(two), b.handle(one)]);
    const ids = new Set(outcomes.map((o) => (o.type === 'recorded' ? o.conversationId : 'ignored')));
    expect(ids.size).toBe(1);
    expect(outcomes.filter((o) => o.type === 'recorded' && o.started)).toHaveLength(2);
    const answered = outcomes.flatMap((o) => o.replies).filter((r) => r.answer === 'answered');
    expect(answered).toHaveLength(2);
    expect(a.posts.length + b.posts.length).toBe(2);
    const conversation = await a.store.getConversation(channel);
    expect(conversation?.participants).toEqual({ U_ALICE: true, U_BOB: true });
  });
});
