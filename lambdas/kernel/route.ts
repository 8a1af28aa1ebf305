import { isCloseIntent } from './close-intent.ts';
import type { InboxAction, InboxEnvelope, InboxMessage, InboxSlashCommand } from './inbox.ts';
import { conversationIdFor } from './keys.ts';
import {
  anchorKey,
  FINISHED_STATUSES,
  type MessageType,
  type SenderType,
  type ThreadAnchor,
} from './model.ts';
import type {
  Clock,
  ConversationStore,
  Executions,
  ThreadLink,
  UnownedMessageHandler,
  UnownedOutcome,
} from './ports.ts';
import type { ExecutionInput } from './tasks.ts';
import { type WakeCheck, wakeIfDue } from './wake.ts';
import type { Trigger, WorkflowRegistration } from './workflows.ts';

export interface RouterDeps {
  store: ConversationStore;
  executions: Executions;
  clock: Clock;
  workflows: readonly WorkflowRegistration[];
  botUserId: string | undefined;
  /**
   * Takes the messages no workflow and no thread owns, in channels no workflow owns (channel
   * conversations, seed 002, plug in here through their Router entry). Registered triggers
   * win: a mention that matches a workflow's `mention` trigger (the requirements interview's
   * keywords, e.g. `@bot idea: ...`) starts that workflow; any other message comes here.
   */
  unownedMessages?: UnownedMessageHandler;
}

/** What the Router did with one inbox record (DESIGN 3.5); logged with its reason. */
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
  | { type: 'channel'; outcome: UnownedOutcome };

export async function routeEnvelope(envelope: InboxEnvelope, deps: RouterDeps): Promise<RouteOutcome> {
  if (deps.botUserId !== undefined && envelope.user === deps.botUserId) {
    return { type: 'ignored', reason: "the bot's own message" };
  }
  switch (envelope.kind) {
    case 'message':
      return routeMessage(envelope, deps);
    case 'slash_command':
      return routeSlashCommand(envelope, deps);
    case 'action':
      return routeAction(envelope, deps);
  }
}

async function routeMessage(envelope: InboxMessage, deps: RouterDeps): Promise<RouteOutcome> {
  if (envelope.threadTs !== undefined) {
    // A reply belongs to whichever conversation owns its thread; the mapping is stored, not guessed.
    const link = await deps.store.findThread(envelope.channel, envelope.threadTs);
    if (!link) {
      if (deps.unownedMessages && !ownedChannel(deps.workflows, envelope.channel)) {
        return { type: 'channel', outcome: await deps.unownedMessages(envelope) };
      }
      return { type: 'ignored', reason: 'reply in a thread no conversation owns' };
    }
    return storeIncoming(link, envelope, deps);
  }
  // A top-level message can only start a conversation (a redelivered one completes its start).
  const registration = findRegistration(deps.workflows, (t) =>
    t.type === 'channel_message'
      ? t.channel === envelope.channel
      : t.type === 'mention' && mentionMatches(t, envelope, deps.botUserId),
  );
  if (!registration) {
    // No registration matched, so no workflow owns this channel: it may be a channel conversation.
    if (deps.unownedMessages) return { type: 'channel', outcome: await deps.unownedMessages(envelope) };
    return { type: 'ignored', reason: 'top-level message that starts no workflow here' };
  }
  return startConversation(registration, envelope, envelope.ts, deps);
}

async function routeSlashCommand(envelope: InboxSlashCommand, deps: RouterDeps): Promise<RouteOutcome> {
  const registration = findRegistration(
    deps.workflows,
    (t) => t.type === 'slash_command' && t.command === envelope.command,
  );
  if (!registration) return { type: 'ignored', reason: `no workflow handles ${envelope.command}` };
  return startConversation(registration, envelope, undefined, deps);
}

async function routeAction(envelope: InboxAction, deps: RouterDeps): Promise<RouteOutcome> {
  const link = await deps.store.findThread(envelope.channel, envelope.threadTs ?? envelope.messageTs);
  if (!link)
    return { type: 'ignored', reason: `action ${envelope.actionId} on a message no conversation owns` };
  return storeIncoming(link, envelope, deps);
}

/** A channel whose top-level messages start a workflow (the bug-reports channel) is that workflow's alone. */
function ownedChannel(workflows: readonly WorkflowRegistration[], channel: string): boolean {
  return workflows.some((w) => w.triggers.some((t) => t.type === 'channel_message' && t.channel === channel));
}

/** Whether a top-level message is a mention the trigger takes (see `Trigger`'s `mention`). */
export function mentionMatches(
  trigger: Extract<Trigger, { type: 'mention' }>,
  message: Pick<InboxMessage, 'channel' | 'text' | 'mentionsBot'>,
  botUserId: string | undefined,
): boolean {
  if (!message.mentionsBot) return false;
  if (trigger.keywords === undefined && trigger.channels === undefined) return true;
  if (trigger.channels?.includes(message.channel)) return true;
  const text = withoutMention(message.text, botUserId).toLowerCase();
  return (trigger.keywords ?? []).some((keyword) => startsWithPhrase(text, keyword.toLowerCase()));
}

/** A mention of the bot in Slack's text (`<@U1>`, `<@U1|name>`); anyone's when its id is unknown. */
function botMention(botUserId: string | undefined): string {
  return botUserId === undefined ? '<@[^>]+>' : `<@${botUserId}(?:\\|[^>]*)?>`;
}

/** The text with the bot's mentions taken out and the spaces around them collapsed. */
function withoutMention(text: string, botUserId: string | undefined): string {
  // Without the bot's id, only the first mention is taken for the bot's.
  const mention = new RegExp(botMention(botUserId), botUserId === undefined ? '' : 'g');
  return text.replace(mention, ' ').replace(/\s+/g, ' ').trim();
}

/** An opening message without the bot's mention that addresses it: `<@BOT> idea: x` is `idea: x`. */
function withoutLeadingMention(text: string, botUserId: string | undefined): string {
  if (botUserId === undefined) return text;
  const stripped = text.replace(new RegExp(`^\\s*${botMention(botUserId)}[\\s:,]*`), '');
  return stripped === '' ? text : stripped;
}

/** `text` begins with `phrase` as whole words: `idea: x` and `idea` do, `ideas` does not. */
function startsWithPhrase(text: string, phrase: string): boolean {
  if (!text.startsWith(phrase)) return false;
  const next = text.charAt(phrase.length);
  return next === '' || !/[\p{L}\p{N}_]/u.test(next);
}

function findRegistration(
  workflows: readonly WorkflowRegistration[],
  matches: (trigger: Trigger) => boolean,
): WorkflowRegistration | undefined {
  // A channel's own workflow wins over a generic mention trigger.
  const specific = workflows.find((w) => w.triggers.some((t) => t.type !== 'mention' && matches(t)));
  return specific ?? workflows.find((w) => w.triggers.some(matches));
}

async function startConversation(
  registration: WorkflowRegistration,
  envelope: InboxMessage | InboxSlashCommand,
  threadTs: string | undefined,
  deps: RouterDeps,
): Promise<RouteOutcome> {
  const now = deps.clock.now().toISOString();
  const conversationId = conversationIdFor(
    registration.workflow,
    envelope.channel,
    threadTs ?? envelope.eventId,
  );
  const anchor: ThreadAnchor | undefined = threadTs
    ? {
        name: 'origin',
        channel: envelope.channel,
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
    ownerId: envelope.user,
    participants: { [envelope.user]: registration.ownerRole },
    anchors: anchor ? { [anchorKey(anchor.channel, anchor.threadTs)]: anchor } : {},
    closeOnIntent: registration.closeOnIntent,
    closeRequested: false,
    ledger: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, transitions: 0, lambdaMs: 0 },
    createdAt: now,
    updatedAt: now,
  });
  if (anchor) await deps.store.linkThread({ conversationId, ownerId: envelope.user, anchor });
  // The opening message is the first turn's input: stored pending, handed over by the first Drain.
  await deps.store.putMessage({
    conversationId,
    ts: envelope.ts,
    channel: envelope.channel,
    ...(threadTs ? { threadTs } : {}),
    senderType: registration.ownerRole,
    senderId: envelope.user,
    messageType: 'message',
    text:
      envelope.kind === 'slash_command'
        ? `${envelope.command} ${envelope.text}`.trim()
        : withoutLeadingMention(envelope.text, deps.botUserId),
    receivedAt: envelope.receivedAt,
  });
  const input: ExecutionInput = {
    conversationId,
    workflow: registration.workflow,
    channel: envelope.channel,
    ...(threadTs ? { threadTs } : {}),
    ownerId: envelope.user,
    turn: 0,
  };
  const started = await deps.executions.start(registration.stateMachineArn, conversationId, input);
  await deps.store.setExecution(conversationId, conversationId, started.executionArn);
  return { type: 'started', conversationId, workflow: registration.workflow, execution: started.status };
}

/** The sender's role in this thread, or null when the thread does not hear them (I5). */
export function senderTypeIn(link: ThreadLink, userId: string): SenderType | null {
  if (userId === link.ownerId && link.anchor.ownerRole !== null) return link.anchor.ownerRole;
  return link.anchor.othersRole;
}

async function storeIncoming(
  link: ThreadLink,
  envelope: InboxMessage | InboxAction,
  deps: RouterDeps,
): Promise<RouteOutcome> {
  const conversationId = link.conversationId;
  const senderType = senderTypeIn(link, envelope.user);
  if (senderType === null) {
    return {
      type: 'ignored',
      conversationId,
      reason: `${envelope.user} is not heard in thread ${link.anchor.name}`,
    };
  }
  const conversation = await deps.store.getConversation(conversationId);
  if (!conversation)
    return { type: 'ignored', conversationId, reason: 'thread points at a missing conversation' };
  if (FINISHED_STATUSES.has(conversation.status)) {
    return { type: 'ignored', conversationId, reason: `conversation is ${conversation.status}` };
  }
  // Only the owner, in a thread where they are the owner (the reporter's own thread), can close.
  const closing =
    envelope.kind === 'message' &&
    envelope.user === conversation.ownerId &&
    link.anchor.ownerRole !== null &&
    conversation.closeOnIntent &&
    isCloseIntent(envelope.text);
  const messageType: MessageType = envelope.kind === 'action' ? 'action' : closing ? 'close' : 'message';
  const stored = await deps.store.putMessage({
    conversationId,
    ts: envelope.ts,
    channel: envelope.channel,
    threadTs: link.anchor.threadTs,
    senderType,
    senderId: envelope.user,
    messageType,
    text:
      envelope.kind === 'action'
        ? `[button ${envelope.actionId}] ${envelope.value ?? ''}`.trim()
        : envelope.text,
    ...(envelope.kind === 'action'
      ? {
          actionId: envelope.actionId,
          ...(envelope.value !== undefined ? { actionValue: envelope.value } : {}),
        }
      : {}),
    receivedAt: envelope.receivedAt,
  });
  if (!(envelope.user in conversation.participants)) {
    await deps.store.addParticipant(conversationId, envelope.user, senderType);
  }
  if (closing) await deps.store.requestClose(conversationId);
  // Write (above), then read (here): see kernel/register-wait.ts for the other half. A
  // duplicate delivery still runs the check, so a crash between store and wake is recovered.
  const wake = await wakeIfDue(deps, conversationId);
  return { type: 'stored', conversationId, senderType, messageType, stored, wake };
}
