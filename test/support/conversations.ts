import type { InboxMessage } from '../../lambdas/kernel/inbox.ts';
import type { Conversation } from '../../lambdas/kernel/model.ts';
import type { ConversationStore } from '../../lambdas/kernel/ports.ts';
import type { WorkflowRegistration } from '../../lambdas/kernel/workflows.ts';
import { HOUR, isoAgo } from './clock.ts';

/** The bug workflow's registration as the Router's tests use it: top-level messages in C_BUGS. */
export const BUG_REGISTRATION: WorkflowRegistration = {
  workflow: 'bug_investigation',
  stateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:BugInvestigation',
  triggers: [{ type: 'channel_message', channel: 'C_BUGS' }],
  ownerRole: 'reporter',
  othersRole: null,
  closeOnIntent: true,
};

/** A bug conversation as the Router creates it (ledger included), owned by U_REPORTER. */
export function bugConversation(id: string, overrides: Partial<Conversation> = {}): Conversation {
  return {
    id,
    workflow: 'bug_investigation',
    status: 'active',
    phase: 'investigating',
    ownerId: 'U_REPORTER',
    participants: { U_REPORTER: 'reporter' },
    anchors: {},
    closeOnIntent: true,
    closeRequested: false,
    ledger: {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costMicroUsd: 0,
      transitions: 0,
      lambdaMs: 0,
      redactedSecrets: 0,
      redactedPii: 0,
      mcpCalls: 0,
    },
    // Relative to the clock the code under test reads: an hour old whatever day the suite runs.
    createdAt: isoAgo(HOUR),
    updatedAt: isoAgo(HOUR),
    ...overrides,
  };
}

/** Stores a bug conversation whose reporter thread is `<id>-root` in C_BUGS. */
export async function seedBugConversation(store: ConversationStore, id: string): Promise<void> {
  await store.createConversation(bugConversation(id));
  await store.linkThread({
    conversationId: id,
    ownerId: 'U_REPORTER',
    anchor: {
      name: 'origin',
      channel: 'C_BUGS',
      threadTs: `${id}-root`,
      ownerRole: 'reporter',
      othersRole: null,
    },
  });
}

/** An inbox record's body: the reporter's reply `ts` in the thread of `<conversation>-root`. */
export function reporterReply(conversation: string, ts: string): string {
  return JSON.stringify({
    kind: 'message',
    eventId: `Ev-${ts}`,
    channel: 'C_BUGS',
    user: 'U_REPORTER',
    text: `reply ${ts}`,
    ts,
    threadTs: `${conversation}-root`,
    mentionsBot: false,
    receivedAt: isoAgo(0),
  } satisfies InboxMessage);
}
