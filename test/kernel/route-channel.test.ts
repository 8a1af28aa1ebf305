import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import type { ChannelOutcome } from '../../lambdas/channel/handle-channel-message.ts';
import type { InboxMessage } from '../../lambdas/kernel/inbox.ts';
import type { Executions } from '../../lambdas/kernel/ports.ts';
import { routeEnvelope } from '../../lambdas/kernel/route.ts';
import type { WorkflowRegistration } from '../../lambdas/kernel/workflows.ts';
import { startDynalite } from '../support/dynalite.ts';

const BUG: WorkflowRegistration = {
  workflow: 'bug_investigation',
  stateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:BugInvestigation',
  triggers: [{ type: 'channel_message', channel: 'C_BUGS' }],
  ownerRole: 'reporter',
  othersRole: null,
  closeOnIntent: true,
};
const MENTIONS: WorkflowRegistration = {
  ...BUG,
  workflow: 'mention_workflow',
  stateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:Mentions',
  triggers: [{ type: 'mention' }],
};

const executions: Executions = {
  start: async (_arn, name) => ({ status: 'started', executionArn: `arn:execution:${name}` }),
  wake: async () => 'woken',
};

let db: Awaited<ReturnType<typeof startDynalite>>;
let store: DynamoConversationStore;

beforeAll(async () => {
  db = await startDynalite();
  store = new DynamoConversationStore({ client: db.client, tableName: db.tableName });
});
afterAll(async () => db.close());

function setup(workflows: WorkflowRegistration[] = [BUG]) {
  const handed: InboxMessage[] = [];
  const deps = {
    store,
    executions,
    clock: { now: () => new Date('2026-11-22T12:00:00Z') },
    workflows,
    botUserId: 'U_BOT',
    channelConversations: async (message: InboxMessage): Promise<ChannelOutcome> => {
      handed.push(message);
      return { type: 'ignored', reason: 'recorded by the test' };
    },
  };
  return { deps, handed };
}

function message(overrides: Partial<InboxMessage> = {}): InboxMessage {
  return {
    kind: 'message',
    eventId: 'Ev1',
    channel: 'C_GENERAL',
    user: 'U_ALICE',
    text: '<@U_BOT> hello',
    ts: '1800000000.000100',
    mentionsBot: true,
    receivedAt: '2026-11-22T12:00:00Z',
    ...overrides,
  };
}

describe('Router and channel conversations', () => {
  it('hands a top-level message that starts no workflow to channel conversations', async () => {
    const { deps, handed } = setup();
    const outcome = await routeEnvelope(message(), deps);
    expect(outcome).toEqual({
      type: 'channel',
      outcome: { type: 'ignored', reason: 'recorded by the test' },
    });
    expect(handed).toHaveLength(1);
  });

  it('hands a reply in a thread no conversation owns to channel conversations', async () => {
    const { deps, handed } = setup();
    await routeEnvelope(message({ threadTs: '1800000000.000001', mentionsBot: false }), deps);
    expect(handed.map((m) => m.threadTs)).toEqual(['1800000000.000001']);
  });

  it('keeps the bug-reports channel out of channel conversations', async () => {
    const { deps, handed } = setup();
    const outcome = await routeEnvelope(message({ channel: 'C_BUGS', threadTs: '1800000000.000001' }), deps);
    expect(outcome).toEqual({ type: 'ignored', reason: 'reply in a thread no conversation owns' });
    expect(handed).toEqual([]);
  });

  it('lets a workflow with a registered mention trigger take mentions first', async () => {
    const { deps, handed } = setup([BUG, MENTIONS]);
    const outcome = await routeEnvelope(message({ ts: '1800000000.000200' }), deps);
    expect(outcome).toMatchObject({ type: 'started', workflow: 'mention_workflow' });
    expect(handed).toEqual([]);
  });

  it("never hands over the bot's own message", async () => {
    const { deps, handed } = setup();
    await routeEnvelope(message({ user: 'U_BOT' }), deps);
    expect(handed).toEqual([]);
  });
});
