import type { StoredAnchor } from './anchors.ts';
import { conversationIdFor } from './keys.ts';
import { anchorKey, type SenderType, type ThreadAnchor } from './model.ts';
import { UNVERIFIED_ROLE } from './people.ts';
import type { RouteOutcome, RouterDeps } from './route-types.ts';
import type { ExecutionInput, ExecutionOrigin } from './tasks.ts';
import type { WorkflowRegistration } from './workflows.ts';

/**
 * How a conversation starts, whatever its source (a Slack message or command, a GitHub issue, an
 * alert): the conversation, its thread and further anchor, its opening message and its
 * execution, each step idempotent so a redelivery completes a start. Which workflow starts is
 * route-triggers.ts's.
 */

/** How a conversation begins: where, by whom, and its opening message. */
export interface ConversationStart {
  /** The Slack channel, or a GitHub repository or alert source as an anchor channel. */
  channel: string;
  /** The thread the conversation owns from the start (absent: a slash command's, opened by the bot's first post). */
  threadTs?: string;
  /** What names the conversation when it has no thread yet (a slash command's trigger id). */
  originId?: string;
  /** Who started it: the conversation's owner. */
  user: string;
  /**
   * Who wrote the opening text, when not the owner (a GitHub issue labelled by someone other than
   * its author): the opening message is theirs, with the role of others in the thread.
   * @default - the owner
   */
  author?: string;
  ts: string;
  text: string;
  receivedAt: string;
  /** Where a conversation from outside Slack came from, for the workflow. */
  origin?: ExecutionOrigin;
  /**
   * A further anchor the conversation is found under from the start (the incident a command
   * named, the alarm an alert came from), so what later names it reaches this conversation.
   */
  alsoUnder?: StoredAnchor;
}

export async function startConversation(
  registration: WorkflowRegistration,
  start: ConversationStart,
  deps: RouterDeps,
): Promise<RouteOutcome> {
  const now = deps.clock.now().toISOString();
  const { threadTs } = start;
  const sender = openingSender(registration, start);
  const roles = { ownerRole: registration.ownerRole, othersRole: registration.othersRole };
  const anchor: ThreadAnchor | undefined = threadTs
    ? { name: 'origin', channel: start.channel, threadTs, ...roles }
    : undefined;
  const further: ThreadAnchor | undefined = start.alsoUnder
    ? {
        name: 'incident-name',
        channel: start.alsoUnder.channel,
        threadTs: start.alsoUnder.threadTs,
        ...roles,
      }
    : undefined;
  const conversationId = conversationIdFor(
    registration.workflow,
    start.channel,
    threadTs ?? start.originId ?? start.ts,
  );
  // Every step below is idempotent, so a redelivery after a crash anywhere in between
  // completes the start instead of starting twice.
  await deps.store.createConversation({
    id: conversationId,
    workflow: registration.workflow,
    status: 'active',
    phase: 'starting',
    ownerId: start.user,
    participants: { [start.user]: registration.ownerRole },
    anchors: anchor ? { [anchorKey(anchor.channel, anchor.threadTs)]: anchor } : {},
    closeOnIntent: registration.closeOnIntent,
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
      redactedKinds: {},
      mcpCalls: 0,
    },
    createdAt: now,
    updatedAt: now,
  });
  for (const link of [anchor, further])
    if (link) await deps.store.linkThread({ conversationId, ownerId: start.user, anchor: link });
  // The opening message is the first turn's input: stored pending, handed over by the first Drain.
  await deps.store.putMessage({
    conversationId,
    ts: start.ts,
    channel: start.channel,
    ...(threadTs ? { threadTs } : {}),
    ...sender,
    messageType: 'message',
    text: start.text,
    receivedAt: start.receivedAt,
  });
  const input: ExecutionInput = {
    conversationId,
    workflow: registration.workflow,
    channel: start.channel,
    ...(threadTs ? { threadTs } : {}),
    ownerId: start.user,
    turn: 0,
    ...(start.origin ? { origin: start.origin } : {}),
  };
  const started = await deps.executions.start(registration.stateMachineArn, conversationId, input);
  await deps.store.setExecution(conversationId, conversationId, started.executionArn);
  return { type: 'started', conversationId, workflow: registration.workflow, execution: started.status };
}

/** The opening message's sender: the owner, or its author with the role of others (unverified if none). */
function openingSender(
  registration: WorkflowRegistration,
  start: ConversationStart,
): { senderType: SenderType; senderId: string } {
  if (start.author === undefined || start.author === start.user)
    return { senderType: registration.ownerRole, senderId: start.user };
  return { senderType: registration.othersRole ?? UNVERIFIED_ROLE, senderId: start.author };
}
