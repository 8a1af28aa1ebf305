import { describe, expect, it } from 'vitest';
import type { InboxMessage } from '../../lambdas/kernel/inbox.ts';
import { routeEnvelope } from '../../lambdas/kernel/route.ts';
import type { WorkflowRegistration } from '../../lambdas/kernel/workflows.ts';
import { slackMessage as inboxMessage } from '../support/inbox-message.ts';
import { routerFixture } from '../support/router-fixture.ts';

/**
 * The Router's answer to a reply in the thread of an ended conversation (ended-answer.ts): its
 * owner is told in the thread how to start a new one and the conversation stays ended; anyone
 * else is ignored as in any thread. Over dynalite.
 */

const PROBE: WorkflowRegistration = {
  workflow: 'kernel_probe',
  stateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:Probe',
  triggers: [{ type: 'channel_message', channel: 'C_PROBE' }],
  ownerRole: 'reporter',
  othersRole: null,
  closeOnIntent: true,
};

const f = routerFixture([PROBE]);

describe('a reply to an ended conversation', () => {
  /** The reporter's message in the probe channel, with an id and ts no other test of the file used. */
  function slackMessage(overrides: Partial<InboxMessage>): InboxMessage {
    return inboxMessage({
      eventId: `Ev-${f.seq}-${Math.random()}`,
      channel: 'C_PROBE',
      text: 'the cart forgets items',
      ts: `1763726000.${String(f.seq).padStart(6, '0')}`,
      ...overrides,
    });
  }

  it('is answered in its thread with how to start a new one, and the conversation stays ended', async () => {
    const root = slackMessage({});
    const started = await routeEnvelope(root, f.deps());
    if (started.type !== 'started') throw new Error('not started');
    // The state machines set statuses (a direct DynamoDB update); here the record is marked so.
    await f.setStatus(started.conversationId, 'resolved');

    const reply = slackMessage({
      text: 'it still crashes on Safari',
      ts: `1763726100.${String(f.seq).padStart(6, '0')}`,
      threadTs: root.ts,
    });
    const outcome = await routeEnvelope(reply, f.deps());

    expect(outcome).toMatchObject({ type: 'ignored', reason: 'conversation is resolved; told the sender' });
    expect(f.notices).toEqual([
      {
        conversationId: started.conversationId,
        channel: 'C_PROBE',
        threadTs: root.ts,
        ts: reply.ts,
        text: 'This conversation has ended (resolved), so this reply was not passed on. To start a new one, post a new message in <#C_PROBE>.',
      },
    ]);
    expect((await f.store.getConversation(started.conversationId))?.status).toBe('resolved');
  });

  it("still ignores a third party's reply there (I5): nobody tells them anything", async () => {
    const root = slackMessage({});
    const started = await routeEnvelope(root, f.deps());
    if (started.type !== 'started') throw new Error('not started');

    const outcome = await routeEnvelope(
      slackMessage({
        user: 'U_THIRD',
        text: 'me too',
        ts: `1763726200.${String(f.seq).padStart(6, '0')}`,
        threadTs: root.ts,
      }),
      f.deps(),
    );

    expect(outcome).toMatchObject({ type: 'ignored', reason: 'U_THIRD is not heard in thread origin' });
    expect(f.notices).toEqual([]);
  });
});
