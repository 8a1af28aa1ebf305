import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoApprovalStore } from '../../lambdas/adapters/dynamo-approvals.ts';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { ConversationNotFoundError } from '../../lambdas/kernel/errors.ts';
import type { Conversation, StoredMessage } from '../../lambdas/kernel/model.ts';
import { handler } from '../../lambdas/workflows/bug-investigation/handlers/sla-check.ts';
import { checkAcknowledgement } from '../../lambdas/workflows/bug-investigation/sla-check.ts';
import { handlerEnvironment, startDynalite } from '../support/dynalite.ts';

/** The escalation post's ts in the developers' channel. */
const ESCALATED_AT = '1700000500.000200';

let db: Awaited<ReturnType<typeof startDynalite>>;
let store: DynamoConversationStore;
let conversations = 0;

beforeAll(async () => {
  db = await startDynalite();
  store = new DynamoConversationStore({ client: db.client, tableName: db.tableName });
  // For the handler's own adapters (kernelDeps).
  Object.assign(process.env, handlerEnvironment(db));
});
afterAll(async () => db.close());

async function escalatedConversation(fields: Partial<Conversation> = {}): Promise<string> {
  conversations += 1;
  const id = `bug-investigation-C_BUGS-17000000${conversations}`;
  await store.createConversation({
    id,
    workflow: 'bug_investigation',
    status: 'pending_verification',
    phase: 'awaiting_dev',
    ownerId: 'U_REPORTER',
    participants: { U_REPORTER: 'reporter', U_DEV: 'developer' },
    anchors: {},
    closeOnIntent: true,
    closeRequested: false,
    createdAt: '2015-11-21T12:00:00Z',
    updatedAt: '2015-11-21T12:00:00Z',
    ...fields,
  });
  // The reporter's report, and the bot's own escalation post.
  await store.putMessage(
    message(id, { ts: '1700000000.000100', senderType: 'reporter', senderId: 'U_REPORTER' }),
  );
  await store.putMessage(
    message(id, {
      ts: ESCALATED_AT,
      channel: 'C_DEVELOPERS',
      senderType: 'bot',
      senderId: 'U_BOT',
      messageType: 'bot',
    }),
  );
  return id;
}

function message(conversationId: string, fields: Partial<StoredMessage> & { ts: string }): StoredMessage {
  return {
    conversationId,
    channel: 'C_BUGS',
    senderType: 'developer',
    senderId: 'U_DEV',
    messageType: 'message',
    text: 'looking into it',
    receivedAt: '2015-11-21T12:10:00Z',
    ...fields,
  };
}

describe('checkAcknowledgement', () => {
  it('is acknowledged when a developer answered after the escalation', async () => {
    const id = await escalatedConversation();
    await store.putMessage(
      message(id, { ts: '1700000600.000001', channel: 'C_DEVELOPERS', threadTs: ESCALATED_AT }),
    );

    const result = await checkAcknowledgement({ conversationId: id, since: ESCALATED_AT }, { store });

    expect(result).toEqual({
      acknowledged: true,
      closed: false,
      reason: 'developer U_DEV answered at 1700000600.000001',
    });
  });

  it('is acknowledged when the on-call engineer answered after the escalation', async () => {
    const id = await escalatedConversation();
    await store.putMessage(
      message(id, {
        ts: '1700000600.000002',
        channel: 'C_DEVELOPERS',
        threadTs: ESCALATED_AT,
        senderType: 'on_call',
        senderId: 'U_ONCALL',
      }),
    );

    const result = await checkAcknowledgement({ conversationId: id, since: ESCALATED_AT }, { store });

    expect(result).toMatchObject({
      acknowledged: true,
      reason: 'on_call U_ONCALL answered at 1700000600.000002',
    });
  });

  it('is not acknowledged by a reply from someone who is neither developer nor on call', async () => {
    const id = await escalatedConversation();
    await store.putMessage(
      message(id, {
        ts: '1700000600.000003',
        channel: 'C_DEVELOPERS',
        threadTs: ESCALATED_AT,
        senderType: 'participant',
        senderId: 'U_THIRD',
      }),
    );

    const result = await checkAcknowledgement({ conversationId: id, since: ESCALATED_AT }, { store });

    expect(result).toMatchObject({ acknowledged: false, closed: false });
  });

  it('counts a developer answer in any of the conversation threads, not only the escalation thread', async () => {
    const id = await escalatedConversation();
    await store.putMessage(message(id, { ts: '1700000700.000000', channel: 'C_BUG_SUMMARIES' }));

    const result = await checkAcknowledgement({ conversationId: id, since: ESCALATED_AT }, { store });

    expect(result.acknowledged).toBe(true);
  });

  it('is not acknowledged by a developer message from before the escalation', async () => {
    const id = await escalatedConversation();
    await store.putMessage(message(id, { ts: '1700000400.000000', channel: 'C_BUG_SUMMARIES' }));

    const result = await checkAcknowledgement({ conversationId: id, since: ESCALATED_AT }, { store });

    expect(result).toEqual({
      acknowledged: false,
      closed: false,
      reason: `no developer message since ${ESCALATED_AT}`,
    });
  });

  it('is not acknowledged by the reporter answering after the escalation', async () => {
    const id = await escalatedConversation();
    await store.putMessage(
      message(id, { ts: '1700000900.000000', senderType: 'reporter', senderId: 'U_REPORTER' }),
    );

    const result = await checkAcknowledgement({ conversationId: id, since: ESCALATED_AT }, { store });

    expect(result.acknowledged).toBe(false);
  });

  it.each(['resolved', 'closed', 'failed'] as const)(
    'is closed when the conversation is %s',
    async (status) => {
      const id = await escalatedConversation({ status });

      const result = await checkAcknowledgement({ conversationId: id, since: ESCALATED_AT }, { store });

      expect(result).toEqual({ acknowledged: false, closed: true, reason: `conversation is ${status}` });
    },
  );

  it('is closed when a close was requested, before the workflow has ended the conversation', async () => {
    const id = await escalatedConversation();
    await store.requestClose(id);

    const result = await checkAcknowledgement({ conversationId: id, since: ESCALATED_AT }, { store });

    expect(result).toEqual({ acknowledged: false, closed: true, reason: 'close requested' });
  });

  it('fails with ConversationNotFoundError for an unknown conversation', async () => {
    const check = checkAcknowledgement(
      { conversationId: 'no-such-conversation', since: ESCALATED_AT },
      { store },
    );

    await expect(check).rejects.toThrow(ConversationNotFoundError);
    await expect(check).rejects.toThrow('conversation no-such-conversation not found');
  });
});

describe('a developer message after the escalation', () => {
  /** Whether a developer's message at ts `a` acknowledges the escalation posted at ts `b`. */
  async function isAfter(a: string, b: string): Promise<boolean> {
    const id = await escalatedConversation();
    await store.putMessage(message(id, { ts: a }));
    const { acknowledged } = await checkAcknowledgement({ conversationId: id, since: b }, { store });
    return acknowledged;
  }

  it('orders Slack ts by number, not by text', async () => {
    expect(await isAfter('1700000600.000001', '1700000600.000000')).toBe(true);
    expect(await isAfter('1700000600.5', '1700000600.400000')).toBe(true);
    expect(await isAfter('10000000000.000000', '9999999999.999999')).toBe(true);
    expect(await isAfter('1700000600.000000', '1700000600.000000')).toBe(false);
  });

  it('never counts a ts it cannot read as later', async () => {
    expect(await isAfter('not-a-ts', '1700000600.000000')).toBe(false);
  });
});

describe('the SlaCheck handler', () => {
  it('returns the check result for a valid task input', async () => {
    const id = await escalatedConversation();
    await store.putMessage(message(id, { ts: '1700000800.000000' }));

    const output = await handler({ conversationId: id, since: ESCALATED_AT });

    expect(output).toEqual({
      acknowledged: true,
      closed: false,
      reason: 'developer U_DEV answered at 1700000800.000000',
    });
  });

  it('rejects an input whose `since` is not a Slack ts as InvalidTaskInputError', async () => {
    await expect(handler({ conversationId: 'any', since: 'yesterday' })).rejects.toMatchObject({
      name: 'InvalidTaskInputError',
    });
  });

  it('lets ConversationNotFoundError through by name, for the state machine Catch', async () => {
    await expect(
      handler({ conversationId: 'no-such-conversation', since: ESCALATED_AT }),
    ).rejects.toMatchObject({ name: 'ConversationNotFoundError' });
  });
});

describe('the Acknowledge button (approvals)', () => {
  const approvalAt = (messageTs: string, nonce: string) => ({
    nonce,
    kind: 'acknowledge_escalation',
    choices: ['acknowledge'],
    channel: 'C_DEVELOPERS',
    messageTs,
    text: 'Bug escalation',
    openedAt: '2015-11-21T12:05:00Z',
  });
  const decision = (messageTs: string, nonce: string) => ({
    kind: 'acknowledge_escalation',
    decision: 'acknowledge',
    by: 'U_ONCALL',
    at: '2015-11-21T12:06:00Z',
    nonce,
    pressTs: '1700000600.000001',
    messageTs,
  });

  it('acknowledges the escalation whose button on call pressed, stored once, first press wins', async () => {
    const id = await escalatedConversation();
    const approvals = new DynamoApprovalStore({ client: db.client, tableName: db.tableName });
    await approvals.openApproval(id, approvalAt(ESCALATED_AT, 'nonce-0000000001'));

    expect(await approvals.decide(id, decision(ESCALATED_AT, 'nonce-0000000001'))).toMatchObject({
      type: 'decided',
    });
    expect(
      await approvals.decide(id, { ...decision(ESCALATED_AT, 'nonce-0000000001'), by: 'U_DEV' }),
    ).toEqual({
      type: 'lost',
    });
    // A retried post opens its approval again: the decision stays.
    await approvals.openApproval(id, approvalAt(ESCALATED_AT, 'nonce-0000000001'));
    const stored = await store.getConversation(id, { consistent: true });
    expect(stored?.decisions).toEqual([decision(ESCALATED_AT, 'nonce-0000000001')]);
    expect(stored?.approvals?.acknowledge_escalation?.decided?.by).toBe('U_ONCALL');

    const check = await checkAcknowledgement({ conversationId: id, since: ESCALATED_AT }, { store });
    expect(check).toEqual({
      acknowledged: true,
      closed: false,
      reason: 'acknowledged by U_ONCALL at 2015-11-21T12:06:00Z (button)',
    });
  });

  it("does not take an earlier escalation's decision, nor one for a replaced approval", async () => {
    const id = await escalatedConversation();
    const approvals = new DynamoApprovalStore({ client: db.client, tableName: db.tableName });
    await approvals.openApproval(id, approvalAt('1700000400.000100', 'nonce-earlier001'));
    await approvals.decide(id, decision('1700000400.000100', 'nonce-earlier001'));
    await approvals.openApproval(id, approvalAt(ESCALATED_AT, 'nonce-later00001'));

    expect(await approvals.decide(id, decision(ESCALATED_AT, 'nonce-earlier001'))).toEqual({ type: 'lost' });
    const check = await checkAcknowledgement({ conversationId: id, since: ESCALATED_AT }, { store });
    expect(check.acknowledged).toBe(false);
  });
});
