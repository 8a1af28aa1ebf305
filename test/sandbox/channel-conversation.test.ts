import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InboxMessage } from '../../lambdas/kernel/inbox.ts';
import type { Ledger } from '../../lambdas/kernel/model.ts';
import { DynamoChannelStore } from '../../lambdas/workflows/channel-conversations/adapters/dynamo-channel-store.ts';
import { channelConversationId } from '../../lambdas/workflows/channel-conversations/model.ts';
import type { Sandbox } from '../../local/sandbox-options.ts';
import { eventually } from '../support/eventually.ts';
import { workerSandbox } from '../support/sandbox.ts';
import { type SlackMessage as Message, sandboxDriver } from '../support/sandbox-driver.ts';
import { httpError, lastUserText, startScriptedModel, text } from '../support/scripted-model.ts';

/** What the bot says when the model gave no text for a message addressed to it (stated here, not imported: the value is what this test checks). */
const NO_ANSWER_APOLOGY =
  "Sorry, I couldn't come up with an answer to that. Could you ask it again, perhaps with a bit more detail?";

/**
 * The integration tests in the sandbox: the Router records the channel's messages and
 * hands them to the ChannelResponder through the channel replies queue (the SQS FIFO
 * emulator); the scripted model answers behind the real Messages API, and the fake Slack
 * shows the replies and serves the channel's history.
 */

const CHANNEL = 'C_GENERAL';
const RACE_CHANNEL = 'C_RACE';
const HISTORY_CHANNEL = 'C_HISTORY';
const QUIET_CHANNEL = 'C_QUIET';

let sandbox: Sandbox;
let model: Awaited<ReturnType<typeof startScriptedModel>>;

beforeAll(async () => {
  model = await startScriptedModel({
    steps: [
      text('Deploys run at 14:00 UTC.'),
      text('On Fridays deploys are frozen.'),
      text('Yes, the freeze applies to admins too.'),
      text('race answer'),
      text('race answer'),
      text('The export failed on the storage quota.'),
      text('Still here.'),
      httpError(529, 'overloaded'),
      text(''),
    ],
  });
  sandbox = await workerSandbox({
    // A channel no workflow owns: the fake Slack knows it because the configuration names it.
    config: {
      channels: { general: CHANNEL, race: RACE_CHANNEL, history: HISTORY_CHANNEL, quiet: QUIET_CHANNEL },
    },
    env: { ANTHROPIC_BASE_URL: model.baseUrl, ANTHROPIC_API_KEY: 'test-key', MODEL_MAX_RETRIES: '0' },
    logLevel: 'SILENT',
  });
});

afterAll(async () => {
  await sandbox.stop();
  await model.close();
});

const driver = sandboxDriver(() => sandbox);
const { api } = driver;

const post = (user: string, message: string, channel = CHANNEL) => driver.post(channel, user, message);

async function botReplies(count: number, channel = CHANNEL): Promise<Message[]> {
  return eventually(
    async () => {
      await sandbox.idle();
      return (await driver.messages(channel)).filter((m) => m.bot);
    },
    (replies) => replies.length >= count,
    `${count} bot replies`,
    20_000,
  );
}

describe('a channel conversation in the sandbox', () => {
  it('answers a mention, a follow-up with the earlier exchange, and a user who joins with the full context', async () => {
    const started = await post('U_ALICE', '<@U_BOT> when do deploys run?');
    expect((await botReplies(1)).map((m) => m.text)).toEqual(['Deploys run at 14:00 UTC.']);

    await post('U_ALICE', 'and on fridays?');
    expect((await botReplies(2))[1]?.text).toBe('On Fridays deploys are frozen.');
    const followup = model.requests[1]?.body.messages ?? [];
    expect(followup[0]?.role).toBe('user');
    expect(JSON.parse(String(followup[0]?.content))).toMatchObject({
      from: 'U_ALICE',
      role: 'member',
      text: '<@U_BOT> when do deploys run?',
    });
    expect(followup[1]).toEqual({ role: 'assistant', content: 'Deploys run at 14:00 UTC.' });

    await post('U_CAROL', 'I deployed on a Friday once, never again');
    await post('U_BOB', '<@U_BOT> does that apply to admins?');
    expect((await botReplies(3))[2]?.text).toBe('Yes, the freeze applies to admins too.');
    const joined = lastUserText(model.requests[2]?.body ?? { model: '', max_tokens: 1, messages: [] });
    expect(joined).toContain(
      '"from":"U_CAROL","role":"member","verified":true,"text":"I deployed on a Friday once, never again"',
    );
    expect(joined).toContain(
      '"from":"U_BOT","role":"bot","verified":true,"text":"On Fridays deploys are frozen."',
    );
    expect(joined).toContain('does that apply to admins?');
    expect(model.requests).toHaveLength(3);
    expect(model.failures).toEqual([]);
    // Its own ledger (no kernel record holds one): the three calls' tokens (the scripted model's
    // 100 in and 20 out each) and the responder's time on its four messages.
    const id = channelConversationId(CHANNEL, started);
    const { conversation } = await api<{ conversation: { workflow: string; ledger: Partial<Ledger> } }>(
      `/sandbox/conversations/${encodeURIComponent(id)}`,
    );
    expect(conversation.workflow).toBe('channel_conversations');
    expect(conversation.ledger).toMatchObject({ inputTokens: 300, outputTokens: 60 });
    expect(conversation.ledger.lambdaMs).toBeGreaterThan(0);
  });

  it('starts one conversation and answers each message once when two Router instances take the same channel at once', async () => {
    // The Router as the stack composes it: the kernel's with channel conversations' part.
    const { compose } = await import('../../lambdas/handlers/router.ts');
    const { part } = await import('../../lambdas/workflows/channel-conversations/handlers/router.ts');
    const handler = compose([part]);
    const mention = (user: string, ts: string): InboxMessage => ({
      kind: 'message',
      eventId: `Ev-race-${ts}`,
      channel: RACE_CHANNEL,
      user,
      text: '<@U_BOT> who is on call?',
      ts,
      mentionsBot: true,
      receivedAt: new Date().toISOString(),
    });
    const first = mention('U_ALICE', '1800000000.000001');
    const second = mention('U_BOB', '1800000000.000002');
    // Two batches holding the same two messages (a redelivery racing its original), in both orders.
    await Promise.all([
      handler(batch('a', [first, second]), routerContext),
      handler(batch('b', [second, first]), routerContext),
    ]);
    await sandbox.idle();
    const replies = await botReplies(2, RACE_CHANNEL);
    expect(replies).toHaveLength(2);
    const store = new DynamoChannelStore({ client: sandbox.dynamodb, tableName: sandbox.tableName });
    const conversation = await store.getConversation(RACE_CHANNEL);
    expect(conversation?.participants).toEqual({ U_ALICE: true, U_BOB: true });
    const messages = await store.listMessages(conversation?.conversationId ?? '');
    expect(messages.filter((m) => !m.isBot).map((m) => m.ts)).toEqual([first.ts, second.ts]);
    expect(model.requests).toHaveLength(5);
  });

  it("reads the channel's recent history when a conversation starts and answers with it", async () => {
    // Said before anyone addressed the bot: no conversation yet, so nothing is recorded...
    await post('U_CAROL', 'the nightly export failed again', HISTORY_CHANNEL);
    await post('U_DAVE', 'third time this week', HISTORY_CHANNEL);
    await sandbox.idle();
    expect(model.requests).toHaveLength(5);
    // ...until a mention starts one: the responder reads Slack's history before answering.
    await post('U_ALICE', '<@U_BOT> why does the export fail?', HISTORY_CHANNEL);
    expect((await botReplies(1, HISTORY_CHANNEL)).map((m) => m.text)).toEqual([
      'The export failed on the storage quota.',
    ]);
    const prompt = lastUserText(model.requests[5]?.body ?? { model: '', max_tokens: 1, messages: [] });
    expect(prompt).toMatch(
      /Earlier in the channel, before you were addressed:\n\{"from":"U_CAROL","role":"member","verified":true,"text":"the nightly export failed again"[^\n]*\}\n\{"from":"U_DAVE","role":"member","verified":true,"text":"third time this week"[^\n]*\}\n/,
    );
    expect(prompt).toContain(
      'Answer this message:\n{"from":"U_ALICE","role":"member","verified":true,"text":"<@U_BOT> why does the export fail?"',
    );
    expect(model.failures).toEqual([]);
  });

  it('sets aside a replies queue record that is not a reply job, and the channel goes on', async () => {
    const queues = sandbox.sqs.listQueues({}).QueueUrls ?? [];
    const replies = queues.find((url) => /ChannelRepliesQueue/.test(url));
    const deadLetters = queues.find((url) => /ChannelRepliesDeadLetters/.test(url));
    if (!replies || !deadLetters) throw new Error(`no channel replies queues in ${queues.join(', ')}`);
    sandbox.sqs.sendMessage({
      QueueUrl: replies,
      MessageBody: '{"conversationId":"x"}',
      MessageGroupId: HISTORY_CHANNEL,
      MessageDeduplicationId: 'not-a-job',
    });
    await post('U_ALICE', '<@U_BOT> still there?', HISTORY_CHANNEL);
    expect((await botReplies(2, HISTORY_CHANNEL))[1]?.text).toBe('Still here.');
    const dead = await sandbox.sqs.receiveMessage({
      QueueUrl: deadLetters,
      MaxNumberOfMessages: 10,
      MessageAttributeNames: ['All'],
    });
    expect(dead.Messages?.map((m) => m.Body)).toEqual(['{"conversationId":"x"}']);
    expect(dead.Messages?.[0]?.MessageAttributes?.reason?.StringValue).toMatch(/is not a valid reply job/);
  });

  it('ends the conversation as failed and says why when the model stays unavailable, as every workflow does', async () => {
    await post('U_BOB', '<@U_BOT> one more question?', HISTORY_CHANNEL);
    expect((await botReplies(3, HISTORY_CHANNEL))[2]?.text).toBe(
      ':warning: I had to stop this conversation: the model stayed unavailable through every retry. Mention me again in a few minutes.',
    );
  });

  it('answers a mention with an apology when the model gives no text, instead of dropping it', async () => {
    await post('U_CAROL', '<@U_BOT> what is the meaning of this?', QUIET_CHANNEL);
    expect((await botReplies(1, QUIET_CHANNEL)).map((m) => m.text)).toEqual([NO_ANSWER_APOLOGY]);
  });
});

const routerContext = {
  functionName: 'Router',
  awsRequestId: 'race',
  getRemainingTimeInMillis: () => 30_000,
} as Context;

function batch(name: string, envelopes: InboxMessage[]): SQSEvent {
  return {
    Records: envelopes.map(
      (envelope, i): SQSRecord => ({
        messageId: `${name}-${i}`,
        receiptHandle: `rh-${name}-${i}`,
        body: JSON.stringify(envelope),
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: '1700000000000',
          SenderId: 'x',
          ApproximateFirstReceiveTimestamp: '1700000000000',
          MessageGroupId: RACE_CHANNEL,
          MessageDeduplicationId: `${name}-${i}`,
          SequenceNumber: String(i + 1),
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:inbox.fifo',
        awsRegion: 'us-east-1',
      }),
    ),
  };
}
