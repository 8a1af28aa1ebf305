import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoPostLedger } from '../../lambdas/adapters/dynamo-post-ledger.ts';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import type { ConversationStore, ThreadLink } from '../../lambdas/kernel/ports.ts';
import type { SlackPostInput } from '../../lambdas/kernel/tasks.ts';
import { SlackUnavailableError } from '../../lambdas/slack/errors.ts';
import { postToSlack } from '../../lambdas/slack/post-to-slack.ts';
import { NO_TEMPLATES } from '../../lambdas/slack/templates/index.ts';
import { createSlackPoster } from '../../lambdas/slack/web-client.ts';
import { listenFakeSlack } from '../../local/slack/api.ts';
import { FakeSlack } from '../../local/slack/fake-slack.ts';
import { bugConversation } from '../support/conversations.ts';
import { startDynalite } from '../support/dynalite.ts';

/** The fake Slack's server, as listenFakeSlack starts it. */
type FakeSlackServer = Awaited<ReturnType<typeof listenFakeSlack>>;

/**
 * SlackPost against the real WebClient, a fake Slack told to misbehave, and
 * dynalite. A retried post must link its thread and store its message whatever failed before,
 * and a post Slack accepted but answered with an error must not be posted twice.
 */

const TOKEN = 'xoxb-test-token';
let slack: FakeSlack;
let server: FakeSlackServer;
let db: Awaited<ReturnType<typeof startDynalite>>;
let store: DynamoConversationStore;
let ledger: DynamoPostLedger;
let n = 0;

beforeAll(async () => {
  slack = new FakeSlack({ botToken: TOKEN, channels: [{ id: 'C_SUMMARIES', name: 'bug-summaries' }] });
  server = await listenFakeSlack(slack);
  db = await startDynalite();
  store = new DynamoConversationStore({ client: db.client, tableName: db.tableName });
  ledger = new DynamoPostLedger({ client: db.client, tableName: db.tableName });
});
afterAll(async () => {
  await server.close();
  await db.close();
});

const findingsPost = (conversationId: string): SlackPostInput => ({
  conversationId,
  channel: 'C_SUMMARIES',
  text: `Findings of ${conversationId}`,
  anchor: { name: 'summary', ownerRole: null, othersRole: 'developer' },
  idempotencyKey: `${conversationId}:Post findings:1`,
});

async function newConversation(): Promise<string> {
  n += 1;
  const id = `post-once-${n}`;
  await store.createConversation(bugConversation(id));
  return id;
}

const deps = (
  overrides: { store?: ConversationStore; maxRetries?: number; sleep?: (ms: number) => Promise<void> } = {},
) => ({
  store: overrides.store ?? store,
  posts: ledger,
  slack: createSlackPoster({
    token: TOKEN,
    slackApiUrl: server.slackApiUrl,
    maxRetries: overrides.maxRetries ?? 0,
    timeoutMs: 500,
    ...(overrides.sleep ? { sleep: overrides.sleep } : {}),
  }),
  clock: { now: () => new Date() },
  botUserId: 'U_BOT',
  templates: NO_TEMPLATES,
});

const botPostsOf = (id: string) =>
  slack.messages({ channel: 'C_SUMMARIES' }).filter((m) => m.bot && m.text === `Findings of ${id}`);

describe('SlackPost exactly once with its side effects', () => {
  it('links the thread on the retry when linking failed after the post (the record is written last)', async () => {
    const id = await newConversation();
    let failLink = true;
    const flaky = Object.create(store) as ConversationStore;
    flaky.linkThread = async (link: ThreadLink) => {
      if (failLink) {
        failLink = false;
        throw Object.assign(new Error('throttled'), { name: 'ThrottlingException' });
      }
      return store.linkThread(link);
    };

    await expect(postToSlack(findingsPost(id), deps({ store: flaky }))).rejects.toThrow('throttled');
    const output = await postToSlack(findingsPost(id), deps({ store: flaky }));

    expect(botPostsOf(id)).toHaveLength(1);
    expect(await store.findThread('C_SUMMARIES', output.threadTs)).toMatchObject({ conversationId: id });
    expect((await store.listMessages(id)).filter((m) => m.senderType === 'bot')).toHaveLength(1);
  });

  it('finds again, within the call, a post Slack accepted but answered with a 500', async () => {
    const id = await newConversation();
    slack.faults.add({ kind: 'accepted_then_error', method: 'chat.postMessage', count: 1 });

    const output = await postToSlack(findingsPost(id), deps({ maxRetries: 1 }));

    expect(botPostsOf(id).map((m) => m.ts)).toEqual([output.ts]);
    expect(await store.findThread('C_SUMMARIES', output.ts)).toMatchObject({ conversationId: id });
  });

  it('finds again, on a retried task, a post Slack accepted before the task failed', async () => {
    const id = await newConversation();
    slack.faults.add({ kind: 'accepted_then_error', method: 'chat.postMessage', count: 1 });

    await expect(postToSlack(findingsPost(id), deps())).rejects.toBeInstanceOf(SlackUnavailableError);
    const output = await postToSlack(findingsPost(id), deps());

    expect(botPostsOf(id).map((m) => m.ts)).toEqual([output.ts]);
    expect(await store.findThread('C_SUMMARIES', output.ts)).toMatchObject({ conversationId: id });
    expect((await store.listMessages(id)).filter((m) => m.senderType === 'bot').map((m) => m.ts)).toEqual([
      output.ts,
    ]);
  });

  it('posts on a retried task when the failed attempt never reached Slack', async () => {
    const id = await newConversation();
    slack.faults.add({ kind: 'server_error', method: 'chat.postMessage', count: 1 });

    await expect(postToSlack(findingsPost(id), deps())).rejects.toBeInstanceOf(SlackUnavailableError);
    await postToSlack(findingsPost(id), deps());

    expect(botPostsOf(id)).toHaveLength(1);
  });

  it('gives up on a Slack that does not answer, at the client timeout, as unavailable', async () => {
    const id = await newConversation();
    slack.faults.add({ kind: 'no_answer', method: 'chat.postMessage', count: 1 });

    const failure = await postToSlack(findingsPost(id), deps()).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(SlackUnavailableError);
    expect(causes(failure)).toMatch(/aborted due to timeout/);
    expect(botPostsOf(id)).toHaveLength(0);
  });

  it('ends the call at once when Slack asks to wait longer than the cap', async () => {
    const id = await newConversation();
    slack.faults.add({
      kind: 'rate_limited',
      method: 'chat.postMessage',
      count: 1,
      retryAfterSeconds: 3_600,
    });
    const waits: number[] = [];
    const sleep = async (ms: number) => void waits.push(ms);

    await expect(postToSlack(findingsPost(id), deps({ maxRetries: 2, sleep }))).rejects.toBeInstanceOf(
      SlackUnavailableError,
    );

    // No wait at all: an hour is past the cap, so the call ends instead of sleeping on it.
    expect(waits).toEqual([]);
  });
});

/** The messages of an error and of its causes, one per line. */
function causes(error: unknown): string {
  const lines: string[] = [];
  for (let at: unknown = error; at instanceof Error; at = at.cause) lines.push(at.message);
  return lines.join('\n');
}
