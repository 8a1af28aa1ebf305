import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Conversation } from '../../lambdas/kernel/model.ts';
import type { ConversationStore, ThreadLink } from '../../lambdas/kernel/ports.ts';
import { routeEnvelope } from '../../lambdas/kernel/route.ts';
import type { RouterDeps } from '../../lambdas/kernel/route-types.ts';
import type { StopNotices } from '../../lambdas/kernel/stop.ts';
import { inConversation, RedactionSettings } from '../../lambdas/redaction/index.ts';
import { placeholder } from '../../lambdas/redaction/placeholder.ts';
import { RedactingWebClient } from '../../lambdas/slack/redacting-web-client.ts';
import { bugConversation } from '../support/conversations.ts';
import { startRecordingServer } from '../support/recording-server.ts';
import { routerDeps } from '../support/router-deps.ts';
import { fakeValues } from './fake-values.ts';

/**
 * What the Router writes itself in a conversation's thread (a refused stop here) passes the Slack
 * door as part of that conversation: its placeholders are the conversation's, the same the
 * conversation's prompts, posts and records give a value, not the thread's.
 */

const v = fakeValues(3);
const SETTINGS = RedactionSettings.parse({ pii: ['email'] });
const CONVERSATION = 'bug-investigation-C_BUGS-1000000000-000100';
const THREAD = { channel: 'C_BUGS', threadTs: '1000000000.000100' };

let slack: Awaited<ReturnType<typeof startRecordingServer>>;
beforeAll(async () => {
  slack = await startRecordingServer(() => ({ status: 200, body: { ok: true } }));
});
afterAll(() => slack?.close());

function deps(scoped: boolean): RouterDeps {
  const link: ThreadLink = {
    conversationId: CONVERSATION,
    ownerId: 'U_REPORTER',
    anchor: { name: 'origin', ...THREAD, ownerRole: 'reporter', othersRole: 'reporter' },
  };
  const conversation: Conversation = bugConversation(CONVERSATION);
  const store = {
    findThread: async () => link,
    getConversation: async () => conversation,
  } as unknown as ConversationStore;
  const client = new RedactingWebClient(
    'xoxb-test',
    {
      slackApiUrl: `${slack.url}/api/`,
      retryConfig: { retries: 0 },
    },
    SETTINGS,
  );
  const stops: StopNotices = {
    said: async () => {},
    // The refusal quotes what the person asked, as a reply that carries their words would.
    refused: async (channel, user, text, threadTs) => {
      await client.chat.postEphemeral({
        channel,
        user,
        text: `${text} (asked by ${v.email})`,
        ...(threadTs ? { thread_ts: threadTs } : {}),
      });
    },
  };
  return routerDeps({
    store,
    executions: {} as RouterDeps['executions'],
    clock: { now: () => new Date('2001-02-03T04:05:06Z') },
    workflows: [],
    botUserId: 'U_BOT',
    stops,
    ...(scoped ? { inConversation } : {}),
  });
}

const stopFromAnotherPerson = {
  kind: 'message' as const,
  eventId: 'Ev1',
  user: 'U_SOMEONE',
  ...THREAD,
  ts: '1000000001.000100',
  text: 'stop',
  mentionsBot: false,
  receivedAt: '2001-02-03T04:05:06.000Z',
};

describe("the Router's own replies", () => {
  it("use the conversation's placeholders, not the thread's", async () => {
    slack.bodies.length = 0;
    await routeEnvelope(stopFromAnotherPerson, deps(true));

    expect(slack.bodies).toHaveLength(1);
    expect(slack.bodies[0]).not.toContain(v.email);
    expect(slack.bodies[0]).toContain(placeholder({ family: 'pii', kind: 'email' }, v.email, CONVERSATION));
  });

  it("fall back to the thread's placeholders only where the Router is given no conversation scope", async () => {
    slack.bodies.length = 0;
    await routeEnvelope(stopFromAnotherPerson, deps(false));

    const thread = `slack:${THREAD.channel}:${THREAD.threadTs}`;
    expect(slack.bodies[0]).toContain(placeholder({ family: 'pii', kind: 'email' }, v.email, thread));
  });
});
