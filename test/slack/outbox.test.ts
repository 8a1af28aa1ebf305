import { App, Stack } from 'aws-cdk-lib';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { scratchDirectory } from '../../infra/scratch.ts';
import type { Conversation, StoredMessage } from '../../lambdas/kernel/model.ts';
import type { ConversationStore } from '../../lambdas/kernel/ports.ts';
import type { SlackPostOutput } from '../../lambdas/kernel/slack-post-output.ts';
import type { SlackPostInput } from '../../lambdas/kernel/tasks.ts';
import { SlackUnavailableError } from '../../lambdas/slack/errors.ts';
import { flushOutboxes, type OutboxEntry, type OutboxStore, postOrKeep } from '../../lambdas/slack/outbox.ts';
import type { PostLedger } from '../../lambdas/slack/post-to-slack.ts';
import { NO_TEMPLATES } from '../../lambdas/slack/templates/index.ts';
import type { PostMessageArgs } from '../../lambdas/slack/web-client.ts';
import { slackPost } from '../../statemachines/slack-post.ts';

/** The attempt at which the outbox defers a failing post instead of failing the task (stated here, not imported: the value is what this test checks). */
const DEFER_AT_ATTEMPT = 9;

/**
 * How many times the state machine retries a post people must see (slackPost's default) when
 * Slack is unavailable, read from the task state it builds.
 */
function essentialRetriesOfSlackUnavailable(): number | undefined {
  // An app of its own with its assembly in this process's scratch folder (a stack without one
  // would get an app whose assembly directory is left in the temporary directory).
  const stack = new Stack(new App({ outdir: scratchDirectory('cdk.out-') }), 'Outbox');
  const task = slackPost(stack, 'Post findings', {
    slackPostFn: LambdaFunction.fromFunctionArn(
      stack,
      'SlackPost',
      'arn:aws:lambda:eu-west-1:123456789012:function:slack-post',
    ),
    channel: 'C_SUMMARIES',
    text: 'Bug findings',
  });
  const { Retry } = task.toStateJson() as { Retry?: { ErrorEquals: string[]; MaxAttempts?: number }[] };
  // The first matching retrier wins, as in Step Functions.
  return Retry?.find((retrier) => retrier.ErrorEquals.includes(SlackUnavailableError.name))?.MaxAttempts;
}

/** The stand-in `ts` of a kept post (stated here, not imported: the shape is what this test checks). */
const PLACEHOLDER = /^deferred-[0-9a-f]{24}$/;

const conversation: Conversation = {
  id: 'c-1',
  workflow: 'bug_investigation',
  status: 'active',
  phase: 'investigating',
  ownerId: 'U0REPORTER',
  participants: {},
  anchors: {},
  closeOnIntent: true,
  closeRequested: false,
  createdAt: '2015-01-01T00:00:00.000Z',
  updatedAt: '2015-01-01T00:00:00.000Z',
};

/** An outbox in memory, and a Slack that is down until `slackUp` is set. */
function fakes() {
  const state = { slackUp: false, now: Date.parse('2015-11-27T01:00:00Z') };
  const sent: PostMessageArgs[] = [];
  const failures = new Map<string, { failures: number; firstAt: string }>();
  const entries: (OutboxEntry & { posted?: SlackPostOutput })[] = [];
  const outbox: OutboxStore = {
    countFailure: async (_c, key) => {
      const seen = failures.get(key) ?? { failures: 0, firstAt: new Date(state.now).toISOString() };
      seen.failures += 1;
      failures.set(key, seen);
      return { ...seen };
    },
    keep: async (entry) => {
      entries.push(entry);
    },
    waiting: async () => entries.filter((e) => e.posted === undefined),
    posted: async (entry, output) => {
      const kept = entries.find((e) => e.seq === entry.seq);
      if (kept) kept.posted = output;
    },
    resolve: async (_c, placeholder) => entries.find((e) => e.placeholder.ts === placeholder)?.posted,
    conversationsWaiting: async () => (entries.some((e) => !e.posted) ? ['c-1'] : []),
  };
  const ledger = new Map<string, SlackPostOutput>();
  const posts: PostLedger = {
    find: async (_c, key) => ledger.get(key),
    record: async (_c, key, output) => {
      ledger.set(key, output);
    },
  };
  let n = 0;
  const slack = {
    postMessage: async (args: PostMessageArgs) => {
      if (!state.slackUp) throw new SlackUnavailableError('chat.postMessage', { cause: new Error('500') });
      sent.push(args);
      n += 1;
      const ts = `1795000000.00000${n}`;
      return { channel: args.channel, ts, threadTs: args.threadTs ?? ts };
    },
    findPost: async () => undefined,
    uploadFile: async () => ({ fileId: 'F1' }),
  };
  const store = {
    getConversation: async () => conversation,
    linkThread: async () => {},
    putMessage: async (_m: StoredMessage) => 'stored' as const,
  } as Partial<ConversationStore> as ConversationStore;
  const deps = {
    store,
    posts,
    slack,
    outbox,
    clock: { now: () => new Date(state.now) },
    botUserId: 'U_BOT',
    templates: NO_TEMPLATES,
  };
  return { state, sent, entries, deps };
}

const findings: SlackPostInput = {
  conversationId: 'c-1',
  channel: 'C_SUMMARIES',
  text: 'Bug findings: the token is null',
  idempotencyKey: 'c-1:Post findings:1',
};

describe('posts kept through a Slack outage', () => {
  it("are kept at the state machine's last attempt of an essential post, not before", () => {
    expect(DEFER_AT_ATTEMPT).toBe((essentialRetriesOfSlackUnavailable() ?? 0) + 1);
  });

  it('fail as before until the last attempt, which keeps the post and answers with a stand-in', async () => {
    const { deps, entries } = fakes();
    for (let attempt = 1; attempt < DEFER_AT_ATTEMPT; attempt++) {
      await expect(postOrKeep(findings, deps)).rejects.toBeInstanceOf(SlackUnavailableError);
    }
    const kept = await postOrKeep(findings, deps);
    expect(kept.outcome).toBe('kept');
    expect(kept.output.ts).toMatch(PLACEHOLDER);
    expect(entries).toHaveLength(1);
  });

  it('go out once, in order, with the delay line, when Slack is back; a later post waits behind them and names the real thread', async () => {
    const { deps, state, sent } = fakes();
    for (let attempt = 1; attempt < DEFER_AT_ATTEMPT; attempt++)
      await postOrKeep(findings, deps).catch(() => {});
    const kept = await postOrKeep(findings, deps);
    // While Slack is still down, a reply in the kept post's thread joins the queue.
    const reply = await postOrKeep(
      {
        conversationId: 'c-1',
        channel: 'C_SUMMARIES',
        threadTs: kept.output.ts,
        text: 'More',
        idempotencyKey: 'k2',
      },
      deps,
    );
    expect(reply.outcome).toBe('kept');

    state.slackUp = true;
    state.now += 47 * 60_000;
    expect(await flushOutboxes(deps)).toEqual([{ conversationId: 'c-1', posted: 2, left: 0 }]);
    expect(sent.map((m) => m.text.split('\n').at(-1))).toEqual(['Bug findings: the token is null', 'More']);
    expect(sent[0]?.text).toMatch(/^:hourglass: Delayed: Slack was unavailable .*about 47 min ago/);
    expect(sent[1]?.threadTs).toBe('1795000000.000001');
    // Swept again: nothing more.
    expect(await flushOutboxes(deps)).toEqual([]);
    expect(sent).toHaveLength(2);
  });

  it('let a post of a conversation with nothing kept go straight out', async () => {
    const { deps, state, sent } = fakes();
    state.slackUp = true;
    expect((await postOrKeep(findings, deps)).outcome).toBe('posted');
    expect(sent[0]?.text).toBe('Bug findings: the token is null');
  });
});
