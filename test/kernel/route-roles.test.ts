import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { People, PeopleDirectory } from '../../lambdas/kernel/people.ts';
import type { Executions } from '../../lambdas/kernel/ports.ts';
import { routeEnvelope } from '../../lambdas/kernel/route.ts';
import { BUG_REGISTRATION } from '../support/conversations.ts';
import { startDynalite } from '../support/dynalite.ts';
import { slackMessage } from '../support/inbox-message.ts';
import { routerDeps } from '../support/router-deps.ts';

/**
 * Roles from configuration in the Router: whoever writes in a thread the conversation gives
 * to developers is labelled a developer only as a member of the configured developers.
 */

const executions: Executions = {
  start: async (arn, name) => ({ status: 'started', executionArn: `${arn}:${name}` }),
  wake: async () => 'woken',
};
const clock = { now: () => new Date('2015-11-21T12:00:00Z') };
const people = new PeopleDirectory(
  People.parse({ developer: { groups: ['S_DEVELOPERS'] }, on_call: { groups: ['S_ONCALL'] } }),
  { members: async (group) => ({ S_DEVELOPERS: ['U_DEV'], S_ONCALL: ['U_ONCALL'] })[group] ?? [] },
  clock,
);

let db: Awaited<ReturnType<typeof startDynalite>>;
let store: DynamoConversationStore;
beforeAll(async () => {
  db = await startDynalite();
  store = new DynamoConversationStore({ client: db.client, tableName: db.tableName });
});
afterAll(async () => db.close());

const deps = () =>
  routerDeps({ store, executions, clock, workflows: [BUG_REGISTRATION], botUserId: 'U_BOT', people });

const message = slackMessage;

/** A bug conversation with a summary thread for developers, as the bug workflow anchors it. */
async function bugWithSummary(root: string): Promise<{ conversationId: string; summary: string }> {
  const outcome = await routeEnvelope(message({ ts: root }), deps());
  if (outcome.type !== 'started') throw new Error(`expected a start, got ${JSON.stringify(outcome)}`);
  const summary = `${root}9`;
  await store.linkThread({
    conversationId: outcome.conversationId,
    ownerId: 'U_REPORTER',
    anchor: {
      name: 'summary',
      channel: 'C_SUMMARIES',
      threadTs: summary,
      ownerRole: null,
      othersRole: 'developer',
    },
  });
  return { conversationId: outcome.conversationId, summary };
}

const reply = (summary: string, ts: string, user: string, text: string) =>
  message({ ts, channel: 'C_SUMMARIES', threadTs: summary, user, text });

describe('roles from configuration', () => {
  it('labels a configured developer replying in the summary thread a developer', async () => {
    const { summary } = await bugWithSummary('1700000100.000100');
    const outcome = await routeEnvelope(reply(summary, '1700000100.000200', 'U_DEV', 'open a PR'), deps());
    expect(outcome).toMatchObject({ type: 'stored', senderType: 'developer' });
  });

  it('labels anyone else in that thread a participant: the thread does not make them a developer', async () => {
    const { conversationId, summary } = await bugWithSummary('1700000200.000100');
    const outcome = await routeEnvelope(reply(summary, '1700000200.000200', 'U_THIRD', 'open a PR'), deps());

    expect(outcome).toMatchObject({ type: 'stored', senderType: 'participant' });
    const stored = await store.listMessages(conversationId);
    expect(stored.find((m) => m.senderId === 'U_THIRD')?.senderType).toBe('participant');
    expect((await store.getConversation(conversationId, { consistent: true }))?.participants.U_THIRD).toBe(
      'participant',
    );
  });

  it('labels the on-call engineer replying there on call', async () => {
    const { summary } = await bugWithSummary('1700000300.000100');
    const outcome = await routeEnvelope(reply(summary, '1700000300.000200', 'U_ONCALL', 'looking'), deps());
    expect(outcome).toMatchObject({ type: 'stored', senderType: 'on_call' });
  });

  it('keeps the reporter a reporter in their own thread, and a third party there unheard (I5)', async () => {
    const root = '1700000400.000100';
    const { conversationId } = await bugWithSummary(root);
    const own = await routeEnvelope(
      message({ ts: '1700000400.000200', threadTs: root, text: 'Safari' }),
      deps(),
    );
    const third = await routeEnvelope(
      message({ ts: '1700000400.000300', threadTs: root, user: 'U_DEV', text: 'me too' }),
      deps(),
    );

    expect(own).toMatchObject({ type: 'stored', senderType: 'reporter' });
    expect(third).toMatchObject({ type: 'ignored', conversationId });
  });
});
