import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import type { InboxEnvelope, InboxMessage } from '../../lambdas/kernel/inbox.ts';
import type { Executions } from '../../lambdas/kernel/ports.ts';
import { routeEnvelope, unownedMessages } from '../../lambdas/kernel/route.ts';
import { startedByMessage } from '../../lambdas/kernel/route-triggers.ts';
import type { Trigger, WorkflowRegistration } from '../../lambdas/kernel/workflows.ts';
import type { ChannelOutcome } from '../../lambdas/workflows/channel-conversations/handle-channel-message.ts';
import { BUG_REGISTRATION } from '../support/conversations.ts';
import { startDynalite } from '../support/dynalite.ts';
import { routerDeps } from '../support/router-deps.ts';

const BUG = BUG_REGISTRATION;
const MENTIONS: WorkflowRegistration = {
  ...BUG,
  workflow: 'mention_workflow',
  stateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:Mentions',
  triggers: [{ type: 'mention' }],
};

/** The requirements interview's registration as the stack writes it with the default keywords. */
const INTERVIEW: WorkflowRegistration = {
  ...BUG,
  workflow: 'requirements_interview',
  stateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:RequirementsInterview',
  triggers: [
    { type: 'slash_command', command: '/prd' },
    { type: 'mention', keywords: ['prd', 'idea', 'product idea', 'requirements'], channels: ['C_PRODUCT'] },
  ],
  ownerRole: 'requester',
  othersRole: 'participant',
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
  const deps = routerDeps({
    store,
    executions,
    clock: { now: () => new Date('2015-11-22T12:00:00Z') },
    workflows,
    botUserId: 'U_BOT',
  });
  // Channel conversations' addition, recording what it is handed.
  const channel = unownedMessages(async (message: InboxMessage): Promise<ChannelOutcome> => {
    handed.push(message);
    return { type: 'ignored', reason: 'recorded by the test' };
  });
  const route = (envelope: InboxEnvelope) => routeEnvelope(envelope, deps, [channel]);
  return { route, handed };
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
    receivedAt: '2015-11-22T12:00:00Z',
    ...overrides,
  };
}

describe('Router and channel conversations', () => {
  it('hands a top-level message that starts no workflow to channel conversations', async () => {
    const { route, handed } = setup();
    const outcome = await route(message());
    expect(outcome).toEqual({
      type: 'channel',
      outcome: { type: 'ignored', reason: 'recorded by the test' },
    });
    expect(handed).toHaveLength(1);
  });

  it('hands a reply in a thread no conversation owns to channel conversations', async () => {
    const { route, handed } = setup();
    await route(message({ threadTs: '1800000000.000001', mentionsBot: false }));
    expect(handed.map((m) => m.threadTs)).toEqual(['1800000000.000001']);
  });

  it('keeps the bug-reports channel out of channel conversations', async () => {
    const { route, handed } = setup();
    const outcome = await route(message({ channel: 'C_BUGS', threadTs: '1800000000.000001' }));
    expect(outcome).toEqual({ type: 'ignored', reason: 'reply in a thread no conversation owns' });
    expect(handed).toEqual([]);
  });

  it('lets a workflow with a registered mention trigger take mentions first', async () => {
    const { route, handed } = setup([BUG, MENTIONS]);
    const outcome = await route(message({ ts: '1800000000.000200' }));
    expect(outcome).toMatchObject({ type: 'started', workflow: 'mention_workflow' });
    expect(handed).toEqual([]);
  });

  it("never hands over the bot's own message", async () => {
    const { route, handed } = setup();
    await route(message({ user: 'U_BOT' }));
    expect(handed).toEqual([]);
  });
});

/** Whether a top-level message starts the workflow whose one trigger is `trigger`. */
const startsOnMention = (trigger: Trigger, fields: Pick<InboxMessage, 'channel' | 'text' | 'mentionsBot'>) =>
  startedByMessage(message(fields), [{ ...MENTIONS, triggers: [trigger] }], 'U_BOT') !== undefined;

describe('a mention trigger with keywords and channels', () => {
  const trigger = { type: 'mention' as const, keywords: ['idea', 'product idea'], channels: ['C_PRODUCT'] };
  const matches = (text: string, channel = 'C_GENERAL', mentionsBot = true) =>
    startsOnMention(trigger, { channel, text, mentionsBot });

  it('takes a mention whose text begins with a keyword, whole words only, in any case', () => {
    expect(matches('<@U_BOT> idea: dark mode for the dashboard')).toBe(true);
    expect(matches('<@U_BOT> Product Idea - offline sync')).toBe(true);
    expect(matches('<@U_BOT|bot>   IDEA')).toBe(true);
    expect(matches('idea <@U_BOT>: export to CSV')).toBe(true);
    expect(matches('<@U_BOT> ideas are welcome')).toBe(false);
    expect(matches('<@U_BOT> I have an idea')).toBe(false);
  });

  it('takes every mention in its channels, and never a message without a mention', () => {
    expect(matches('<@U_BOT> what do you think?', 'C_PRODUCT')).toBe(true);
    expect(matches('idea: not for the bot', 'C_PRODUCT', false)).toBe(false);
  });

  it('takes every mention when it has neither keywords nor channels', () => {
    expect(startsOnMention({ type: 'mention' }, { channel: 'C_X', text: 'hi', mentionsBot: true })).toBe(
      true,
    );
  });
});

describe('the rule between the requirements interview and channel conversations', () => {
  it('starts an interview in the thread of a mention with a product idea', async () => {
    const { route, handed } = setup([BUG, INTERVIEW]);
    const outcome = await route(
      message({ ts: '1800000000.000300', text: '<@U_BOT> idea: a dark mode for the dashboard' }),
    );
    expect(outcome).toMatchObject({
      type: 'started',
      workflow: 'requirements_interview',
      execution: 'started',
    });
    expect(handed).toEqual([]);
    // The interview owns the mention's thread: the requester's answers there go to it.
    // The opening message is the idea, without the mention that addressed the bot.
    if (outcome.type !== 'started') throw new Error('not started');
    const [opening] = await store.listMessages(outcome.conversationId);
    expect(opening).toMatchObject({ senderType: 'requester', text: 'idea: a dark mode for the dashboard' });
    const link = await store.findThread('C_GENERAL', '1800000000.000300');
    expect(link).toMatchObject({
      ownerId: 'U_ALICE',
      anchor: { ownerRole: 'requester', othersRole: 'participant' },
    });
  });

  it('leaves any other mention to channel conversations', async () => {
    const { route, handed } = setup([BUG, INTERVIEW]);
    const outcome = await route(message({ ts: '1800000000.000400', text: '<@U_BOT> what time is it?' }));
    expect(outcome.type).toBe('channel');
    expect(handed.map((m) => m.ts)).toEqual(['1800000000.000400']);
  });

  it('starts an interview from any mention in a channel configured for it', async () => {
    const { route, handed } = setup([BUG, INTERVIEW]);
    const outcome = await route(
      message({ channel: 'C_PRODUCT', ts: '1800000000.000500', text: '<@U_BOT> we need offline sync' }),
    );
    expect(outcome).toMatchObject({ type: 'started', workflow: 'requirements_interview' });
    expect(handed).toEqual([]);
  });

  it('keeps the bug-reports channel with the bug workflow, even for a mention with a keyword', async () => {
    const { route } = setup([BUG, INTERVIEW]);
    const outcome = await route(
      message({ channel: 'C_BUGS', ts: '1800000000.000600', text: '<@U_BOT> idea: the login page crashes' }),
    );
    expect(outcome).toMatchObject({ type: 'started', workflow: 'bug_investigation' });
  });
});
