import { isCloseIntent } from './close-intent.ts';
import { answerEnded } from './ended-answer.ts';
import type { InboxSurface, SurfaceOutcome } from './inbox-surface.ts';
import { conversationIdFor } from './keys.ts';
import {
  anchorKey,
  FINISHED_STATUSES,
  type MessageType,
  type SenderType,
  type StoredMessage,
  type ThreadAnchor,
} from './model.ts';
import { type PeopleDirectory, UNVERIFIED_ROLE, verifiedRole } from './people.ts';
import type {
  Clock,
  ConversationStore,
  Executions,
  ThreadLink,
  UnownedMessageHandler,
  UnownedOutcome,
} from './ports.ts';
import type { Retrigger } from './retrigger.ts';
import type { ApprovalDeps } from './route-approval.ts';
import type { StopNotices } from './stop.ts';
import type { ExecutionInput, ExecutionOrigin } from './tasks.ts';
import { type WakeCheck, wakeForStoredMessage, wakeIfDue } from './wake.ts';
import type { Trigger, WorkflowRegistration } from './workflows.ts';

/**
 * The Router's steps, whatever the source of the record: start a conversation,
 * store a message of one and wake it, or answer in the thread of one that has ended.
 * `route.ts` (Slack) and `route-external.ts` (GitHub, alerts) decide which.
 */

export interface RouterDeps {
  store: ConversationStore;
  executions: Executions;
  clock: Clock;
  workflows: readonly WorkflowRegistration[];
  botUserId: string | undefined;
  /**
   * Runs the rest of a record's routing as part of the conversation it belongs to, once known:
   * whatever the Router writes then (a refusal, a decided approval's line) is keyed by it.
   * @default - run as it is
   */
  inConversation?: <T>(conversationId: string, work: () => Promise<T>) => Promise<T>;
  /**
   * The GitHub login the platform acts as with a token (no App): its own comments come back as
   * a user's, and are ignored like the bot's own Slack messages.
   * @default - none: an App's comments are a bot's, ignored as such
   */
  githubLogin?: string | undefined;
  /**
   * Takes the messages no workflow and no thread owns, in channels no workflow owns (channel
   * conversations, plug in here through their Router entry). Registered triggers
   * win: a mention that matches a workflow's `mention` trigger (the requirements interview's
   * keywords, e.g. `@bot idea: ...`) starts that workflow; any other message comes here.
   */
  unownedMessages?: UnownedMessageHandler;
  /**
   * The configured roles: a sender gets a role the configuration defines (`developer`) only as
   * a member, whatever thread they write in. Without it, the thread's roles are taken as they are.
   */
  people?: PeopleDirectory;
  /**
   * Answers a message in the thread of a conversation that has ended: the
   * sender is told the conversation is over and how to start a new one, instead of silence.
   * @default - none: such a message is ignored with a logged reason
   */
  endedNotice?: (notice: EndedNotice) => Promise<void>;
  /**
   * Hands a repeated trigger of a running conversation (its issue labelled again) to the
   * workflow's own function, which answers on the issue with where it runs: the Router has no
   * GitHub client and makes no call outside AWS.
   * @default - none: the repeated trigger is ignored with a logged reason
   */
  retriggered?: (notice: Retrigger) => Promise<void>;
  /**
   * Takes approval button presses (kernel/route-approval.ts).
   * @default - none: a press is ignored with a logged reason
   */
  approvals?: ApprovalDeps;
  /**
   * Takes Slack's app-surface records: feedback presses and reasons, the App Home, assistant
   * threads (kernel/inbox-surface.ts).
   * @default - none: such a record is ignored with a logged reason
   */
  surfaces?: (surface: InboxSurface) => Promise<SurfaceOutcome>;
  /**
   * Says in the thread who stopped a conversation, and refuses others privately (kernel/stop.ts).
   * @default - a stop is still taken, silently
   */
  stops?: StopNotices;
}

/** A short answer in the thread of an ended conversation to someone who wrote there. */
export interface EndedNotice {
  conversationId: string;
  channel: string;
  /** The thread to answer in; absent: a top-level message (an answer to a slash command). */
  threadTs?: string;
  /** The message answered: the notice's idempotency key, so a redelivery answers once. */
  ts: string;
  text: string;
}

/** What the Router did with one inbox record; logged with its reason. */
export type RouteOutcome =
  | { type: 'started'; conversationId: string; workflow: string; execution: 'started' | 'already_started' }
  | {
      type: 'stored';
      conversationId: string;
      senderType: SenderType;
      messageType: MessageType;
      stored: 'stored' | 'duplicate';
      wake: WakeCheck;
    }
  | { type: 'ignored'; reason: string; conversationId?: string }
  | {
      type: 'approval';
      conversationId: string;
      outcome: 'decided' | 'refused';
      detail: string;
      /** The waiting workflow's wake-up: completed, found over (a logged ignore), or none parked. */
      wait?: 'completed' | 'already_ended' | 'none';
    }
  | { type: 'channel'; outcome: UnownedOutcome }
  | SurfaceOutcome;

export function findRegistration(
  workflows: readonly WorkflowRegistration[],
  matches: (trigger: Trigger) => boolean,
): WorkflowRegistration | undefined {
  // A channel's own workflow wins over a generic mention trigger.
  const specific = workflows.find((w) => w.triggers.some((t) => t.type !== 'mention' && matches(t)));
  return specific ?? workflows.find((w) => w.triggers.some(matches));
}

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
}

export async function startConversation(
  registration: WorkflowRegistration,
  start: ConversationStart,
  deps: RouterDeps,
): Promise<RouteOutcome> {
  const now = deps.clock.now().toISOString();
  const { threadTs } = start;
  const conversationId = conversationIdFor(
    registration.workflow,
    start.channel,
    threadTs ?? start.originId ?? start.ts,
  );
  const anchor: ThreadAnchor | undefined = threadTs
    ? {
        name: 'origin',
        channel: start.channel,
        threadTs,
        ownerRole: registration.ownerRole,
        othersRole: registration.othersRole,
      }
    : undefined;
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
  if (anchor) await deps.store.linkThread({ conversationId, ownerId: start.user, anchor });
  // The opening message is the first turn's input: stored pending, handed over by the first Drain.
  await deps.store.putMessage({
    conversationId,
    ts: start.ts,
    channel: start.channel,
    ...(threadTs ? { threadTs } : {}),
    ...openingSender(registration, start),
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

/** The sender's role in this thread, or null when the thread does not hear them (I5). */
export function senderTypeIn(link: ThreadLink, userId: string): SenderType | null {
  if (userId === link.ownerId && link.anchor.ownerRole !== null) return link.anchor.ownerRole;
  return link.anchor.othersRole;
}

/** `senderTypeIn`, with a role the configuration defines given to its holders only. */
async function verifiedSenderType(
  link: ThreadLink,
  userId: string,
  people: PeopleDirectory | undefined,
): Promise<SenderType | null> {
  const role = senderTypeIn(link, userId);
  const isOwner = userId === link.ownerId && link.anchor.ownerRole !== null;
  if (role === null || isOwner || people === undefined) return role;
  return verifiedRole(people, userId, role);
}

/** Why an edit is ignored, as the Slack ingress says it. */
export const EDITED_MESSAGE = 'edited_message';

/** An incoming message of an existing conversation, whatever its source. */
export interface Incoming {
  kind: 'message' | 'action';
  user: string;
  channel: string;
  ts: string;
  text: string;
  receivedAt: string;
  /** Whether the owner's close intent counts here (Slack messages; not buttons, not other sources). */
  closable: boolean;
  actionId?: string;
  actionValue?: string;
  /** The outside item the text is a version of (StoredMessage's `sourceId`). */
  sourceId?: string;
}

export async function storeIncoming(
  link: ThreadLink,
  incoming: Incoming,
  deps: RouterDeps,
): Promise<RouteOutcome> {
  const conversationId = link.conversationId;
  const senderType = await verifiedSenderType(link, incoming.user, deps.people);
  if (senderType === null) {
    return {
      type: 'ignored',
      conversationId,
      reason: `${incoming.user} is not heard in thread ${link.anchor.name}`,
    };
  }
  // Only the owner, in a thread where they are the owner (the reporter's own thread), can close.
  const mayClose =
    incoming.kind === 'message' &&
    incoming.closable &&
    incoming.user === link.ownerId &&
    link.anchor.ownerRole !== null &&
    isCloseIntent(incoming.text);
  if (mayClose) return storeClosingCandidate(link, incoming, senderType, deps);

  // The wake path's short form: store, then one read of the conversation
  // and the message together, then wake. Write before read.
  const message = storedMessage(
    link,
    incoming,
    senderType,
    incoming.kind === 'action' ? 'action' : 'message',
  );
  const stored = await deps.store.putMessage(message);
  const after = await deps.store.readAfterStore(message);
  const conversation = after.conversation;
  if (!conversation) {
    await deps.store.withdrawMessage(message);
    return { type: 'ignored', conversationId, reason: 'thread points at a missing conversation' };
  }
  if (FINISHED_STATUSES.has(conversation.status)) {
    // Stored a moment after the conversation ended: take it back, unless the closing Drain
    // already recorded it with the close (I3), and tell the sender, as for any later reply.
    if ((await deps.store.withdrawMessage(message)) === 'delivered') {
      return { type: 'ignored', conversationId, reason: "recorded with the conversation's close" };
    }
    return answerEnded(link, incoming, conversation, deps);
  }
  const pending = after.message !== undefined && after.message.deliveredInTurn === undefined;
  // A new participant is bookkeeping, not part of the protocol: recorded beside the wake.
  const [wake] = await Promise.all([
    wakeForStoredMessage(deps, conversation, { senderType, pending }),
    incoming.user in conversation.participants
      ? undefined
      : deps.store.addParticipant(conversationId, incoming.user, senderType),
  ]);
  return { type: 'stored', conversationId, senderType, messageType: message.messageType, stored, wake };
}

/**
 * A message that may be its owner's close ("never mind"): whether it closes depends on the
 * workflow (`closeOnIntent`), so the conversation is read first, as the protocol's long form.
 * Closes are rare; every other message takes the short form above.
 */
async function storeClosingCandidate(
  link: ThreadLink,
  incoming: Incoming,
  senderType: SenderType,
  deps: RouterDeps,
): Promise<RouteOutcome> {
  const conversationId = link.conversationId;
  const conversation = await deps.store.getConversation(conversationId);
  if (!conversation)
    return { type: 'ignored', conversationId, reason: 'thread points at a missing conversation' };
  if (FINISHED_STATUSES.has(conversation.status)) return answerEnded(link, incoming, conversation, deps);
  const closing = conversation.closeOnIntent && incoming.user === conversation.ownerId;
  const message = storedMessage(link, incoming, senderType, closing ? 'close' : 'message');
  const stored = await deps.store.putMessage(message);
  if (stored === 'duplicate') {
    // Its ts is stored already. A redelivery of this close completes it (a crash between the
    // store and the close); anything else under that ts, another text or a message that was
    // not a close, is an edit of what was stored, and an edit never closes or wakes.
    const first = (await deps.store.readAfterStore(message)).message;
    if (first?.messageType !== 'close' || first.text !== message.text)
      return {
        type: 'ignored',
        conversationId,
        reason: `${EDITED_MESSAGE}: ${incoming.ts} was stored before as ${first === undefined ? 'nothing readable' : `a ${first.messageType}${first.text === message.text ? '' : ' with other text'}`}; this version closes and wakes nothing`,
      };
  }
  if (!(incoming.user in conversation.participants)) {
    await deps.store.addParticipant(conversationId, incoming.user, senderType);
  }
  if (closing) await deps.store.requestClose(conversationId);
  // Write (above), then read (here): see kernel/register-wait.ts for the other half. A
  // duplicate delivery still runs the check, so a crash between store and wake is recovered.
  const wake = await wakeIfDue(deps, conversationId);
  return { type: 'stored', conversationId, senderType, messageType: message.messageType, stored, wake };
}

function storedMessage(
  link: ThreadLink,
  incoming: Incoming,
  senderType: SenderType,
  messageType: MessageType,
): StoredMessage {
  return {
    conversationId: link.conversationId,
    ts: incoming.ts,
    channel: incoming.channel,
    threadTs: link.anchor.threadTs,
    senderType,
    senderId: incoming.user,
    messageType,
    text: incoming.text,
    ...(incoming.actionId !== undefined ? { actionId: incoming.actionId } : {}),
    ...(incoming.actionValue !== undefined ? { actionValue: incoming.actionValue } : {}),
    ...(incoming.sourceId !== undefined ? { sourceId: incoming.sourceId } : {}),
    receivedAt: incoming.receivedAt,
  };
}
