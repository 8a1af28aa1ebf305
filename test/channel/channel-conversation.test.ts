import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DynamoChannelStore } from '../../lambdas/adapters/dynamo-channel-store.ts';
import type { Message, MessageCreateParamsNonStreaming, ModelClient } from '../../lambdas/agents/ports.ts';
import { silentLogger } from '../../lambdas/agents/ports.ts';
import {
  type ChannelDeps,
  type ChannelEnvelope,
  handleChannelMessage,
} from '../../lambdas/channel/handle-channel-message.ts';
import { DEFAULT_CHANNEL_SETTINGS } from '../../lambdas/channel/model.ts';
import { createModelAnswerer } from '../../lambdas/channel/respond.ts';
import type { PostMessageArgs, SlackPoster } from '../../lambdas/slack/web-client.ts';
import { startDynalite } from '../support/dynalite.ts';

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
function manualClock(start = '2026-11-22T10:00:00.000Z') {
  let now = Date.parse(start);
  return { now: () => new Date(now), advance: (seconds: number) => (now += seconds * 1000) };
}

/** A scripted model: answers in order, records every request. */
function scriptedModel(answers: string[]) {
  const requests: MessageCreateParamsNonStreaming[] = [];
  const model: ModelClient = {
    async createMessage(params) {
      requests.push(params);
      const text = answers.shift() ?? 'no more scripted answers';
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

function fakeSlack() {
  const posts: PostMessageArgs[] = [];
  let seq = 0;
  const slack: SlackPoster = {
    async postMessage(args) {
      posts.push(args);
      seq += 1;
      return { channel: args.channel, ts: `1900000000.${String(seq).padStart(6, '0')}` };
    },
  };
  return { slack, posts };
}

function setup(answers: string[] = [], settings = DEFAULT_CHANNEL_SETTINGS) {
  const clock = manualClock();
  const store = new DynamoChannelStore({ client: db.client, tableName: db.tableName, clock });
  const { model, requests } = scriptedModel(answers);
  const { slack, posts } = fakeSlack();
  const deps: ChannelDeps = {
    store,
    clock,
    settings,
    answer: createModelAnswerer(model, 'claude-test'),
    slack,
    botUserId: BOT,
    logger: silentLogger,
  };
  return { clock, store, requests, posts, deps };
}

let tsSeq = 0;
function msg(user: string, text: string, overrides: Partial<ChannelEnvelope> = {}): ChannelEnvelope {
  tsSeq += 1;
  return {
    channel,
    user,
    text,
    ts: `1800000000.${String(tsSeq).padStart(6, '0')}`,
    mentionsBot: text.includes(`<@${BOT}>`),
    ...overrides,
  };
}

describe('the conversation per channel', () => {
  it('expires after the timeout without messages', async () => {
    const { clock, deps } = setup(['hello'], { ...DEFAULT_CHANNEL_SETTINGS, timeoutSeconds: 60 });
    const first = await handleChannelMessage(msg('U_ALICE', `<@${BOT}> hi`), deps);
    clock.advance(61);
    const later = await handleChannelMessage(msg('U_ALICE', 'anyone around?'), deps);
    expect(first.type).toBe('recorded');
    expect(later).toEqual({ type: 'ignored', reason: 'no active conversation and no explicit trigger' });
  });

  it('stays active while anyone keeps talking, not only the bot', async () => {
    const { clock, deps, store } = setup(['hello']);
    await handleChannelMessage(msg('U_ALICE', `<@${BOT}> hi`), deps);
    for (let i = 0; i < 3; i += 1) {
      clock.advance(100);
      const outcome = await handleChannelMessage(msg('U_BOB', `side chat ${i}`), deps);
      expect(outcome.type).toBe('recorded');
    }
    const conversation = await store.getConversation(channel);
    expect(conversation?.participants).toEqual({ U_ALICE: true, U_BOB: true });
  });

  it("filters the bot's own messages before anything else", async () => {
    const { deps, store } = setup();
    const outcome = await handleChannelMessage(msg(BOT, `<@${BOT}> talking to myself`), deps);
    expect(outcome).toEqual({ type: 'ignored', reason: "the bot's own message" });
    expect(await store.getConversation(channel)).toBeUndefined();
  });

  it('does not start a conversation without an explicit trigger', async () => {
    const { deps, store } = setup();
    const outcome = await handleChannelMessage(msg('U_ALICE', 'what is for lunch?'), deps);
    expect(outcome.type).toBe('ignored');
    expect(await store.getConversation(channel)).toBeUndefined();
  });

  it("starts on a reply in the thread of the bot's message", async () => {
    const { clock, deps, posts } = setup(['first answer', 'second answer']);
    await handleChannelMessage(msg('U_ALICE', `<@${BOT}> hi`), deps);
    const botTs = '1900000000.000001';
    expect(posts).toHaveLength(1);
    // The first conversation ends; a reply in the bot's thread starts the next one.
    clock.advance(500);
    const outcome = await handleChannelMessage(
      msg('U_BOB', 'thanks, more please', { threadTs: botTs }),
      deps,
    );
    expect(outcome).toMatchObject({ type: 'recorded', started: true, answer: 'answered' });
    expect(posts[1]).toMatchObject({ threadTs: botTs, text: 'second answer' });
  });
});

describe('answering with the conversation as context', () => {
  it('uses the earlier exchange for a follow-up', async () => {
    const { clock, deps, requests, posts } = setup([
      'Deploys run at 14:00 UTC.',
      'On Fridays they are frozen.',
    ]);
    await handleChannelMessage(msg('U_ALICE', `<@${BOT}> when do deploys run?`), deps);
    clock.advance(20);
    const outcome = await handleChannelMessage(msg('U_ALICE', 'and on fridays?'), deps);
    expect(outcome).toMatchObject({
      decision: { decision: true, reason: 'recent_followup' },
      answer: 'answered',
    });
    expect(posts.map((p) => p.text)).toEqual(['Deploys run at 14:00 UTC.', 'On Fridays they are frozen.']);
    const history = requests[1]?.messages ?? [];
    expect(history[0]).toEqual({ role: 'user', content: `<@U_ALICE>: <@${BOT}> when do deploys run?` });
    expect(history[1]).toEqual({ role: 'assistant', content: 'Deploys run at 14:00 UTC.' });
    expect(JSON.stringify(history[2])).toContain('and on fridays?');
  });

  it('answers another user who joins, with the full channel context', async () => {
    const { clock, deps, requests } = setup(['Use the blue button.', 'Yes, it works for admins too.']);
    await handleChannelMessage(msg('U_ALICE', `<@${BOT}> how do I export?`), deps);
    clock.advance(5);
    const aside = await handleChannelMessage(msg('U_CAROL', 'I tried that yesterday, it was slow'), deps);
    clock.advance(5);
    const joined = await handleChannelMessage(msg('U_BOB', `<@${BOT}> does that work for admins?`), deps);
    expect(aside).toMatchObject({ answer: 'not_answered', decision: { reason: 'no_trigger' } });
    expect(joined).toMatchObject({ answer: 'answered', decision: { reason: 'explicit_trigger' } });
    const last = JSON.stringify(requests[1]?.messages);
    expect(last).toContain('how do I export?');
    expect(last).toContain('you: Use the blue button.');
    expect(last).toContain('<@U_CAROL>: I tried that yesterday, it was slow');
    expect(last).toContain('does that work for admins?');
  });

  it('never answers a redelivered message twice', async () => {
    const { deps, posts } = setup(['once', 'twice']);
    const message = msg('U_ALICE', `<@${BOT}> hi`);
    const first = await handleChannelMessage(message, deps);
    const again = await handleChannelMessage(message, deps);
    expect(first).toMatchObject({ answer: 'answered', stored: 'stored' });
    expect(again).toMatchObject({ answer: 'already_answered', stored: 'duplicate' });
    expect(posts).toHaveLength(1);
  });
});

describe('two instances on one channel', () => {
  it('start one conversation from two concurrent triggers and answer each message once', async () => {
    const a = setup(['a1', 'a2', 'a3']);
    const b = setup(['b1', 'b2', 'b3']);
    const one = msg('U_ALICE', `<@${BOT}> first`);
    const two = msg('U_BOB', `<@${BOT}> second`);
    // Each instance handles both messages (a redelivery on the other instance), all at once.
    const outcomes = await Promise.all([
      handleChannelMessage(one, a.deps),
      handleChannelMessage(two, b.deps),
      handleChannelMessage(two, a.deps),
      handleChannelMessage(one, b.deps),
    ]);
    const ids = new Set(outcomes.map((o) => (o.type === 'recorded' ? o.conversationId : 'ignored')));
    expect(ids.size).toBe(1);
    expect(outcomes.filter((o) => o.type === 'recorded' && o.started)).toHaveLength(2);
    const answered = outcomes.filter((o) => o.type === 'recorded' && o.answer === 'answered');
    expect(answered).toHaveLength(2);
    expect(a.posts.length + b.posts.length).toBe(2);
    const conversation = await a.store.getConversation(channel);
    expect(conversation?.participants).toEqual({ U_ALICE: true, U_BOB: true });
  });
});
