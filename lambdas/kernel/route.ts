import { isApprovalAction } from './approvals.ts';
import { commandEntity } from './command-entities.ts';
import type { InboxAction, InboxEnvelope, InboxMessage, InboxSlashCommand } from './inbox.ts';
import type { ThreadLink } from './ports.ts';
import { routeApprovalPress } from './route-approval.ts';
import { routeCommand } from './route-command.ts';
import { routeAlert, routeGithubEvent } from './route-external.ts';
import { findRegistration, startConversation } from './route-start.ts';
import {
  EDITED_MESSAGE,
  type Incoming,
  type RouteOutcome,
  type RouterDeps,
  storeIncoming,
} from './route-steps.ts';
import { type CommandReading, readCommandText, usageOfTrigger } from './slash-command-help.ts';
import { isStopText, routeStop, STOP_ACTION_ID } from './stop.ts';
import type { Trigger, WorkflowRegistration } from './workflows.ts';

export {
  type EndedNotice,
  type RouteOutcome,
  type RouterDeps,
  senderTypeIn,
} from './route-steps.ts';

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
    case 'github':
      return routeGithubEvent(envelope, deps);
    case 'alert':
      return routeAlert(envelope, deps);
    case 'surface':
      return deps.surfaces
        ? deps.surfaces(envelope)
        : { type: 'ignored', reason: `${envelope.surface}, but no surfaces entry is wired here` };
  }
}

async function routeMessage(envelope: InboxMessage, deps: RouterDeps): Promise<RouteOutcome> {
  // The ingress ignores edits; this holds behind it: an edit starts, stores, closes and wakes nothing.
  if (envelope.edited === true)
    return { type: 'ignored', reason: `${EDITED_MESSAGE}: an edit is never a new act of its sender` };
  if (envelope.threadTs !== undefined) {
    // A reply belongs to whichever conversation owns its thread; the mapping is stored, not guessed.
    const link = await deps.store.findThread(envelope.channel, envelope.threadTs);
    if (!link && isDirectMessage(envelope.channel)) {
      // The app's assistant thread: its first message may start a workflow there, as a
      // top-level mention would in a channel.
      const started = await startInAssistantThread(envelope, envelope.threadTs, deps);
      if (started !== undefined) return started;
    }
    if (!link) {
      if (deps.unownedMessages && !ownedChannel(deps.workflows, envelope.channel)) {
        return { type: 'channel', outcome: await deps.unownedMessages(envelope) };
      }
      return { type: 'ignored', reason: 'reply in a thread no conversation owns' };
    }
    return partOf(link.conversationId, deps, () =>
      isStopText(envelope.text)
        ? routeStop(link, { user: envelope.user, channel: envelope.channel, ts: envelope.ts }, deps)
        : storeIncoming(link, slackIncoming(envelope), deps),
    );
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
  return startConversation(
    registration,
    {
      channel: envelope.channel,
      threadTs: envelope.ts,
      user: envelope.user,
      ts: envelope.ts,
      text: withoutLeadingMention(envelope.text, deps.botUserId),
      receivedAt: envelope.receivedAt,
    },
    deps,
  );
}

/** Slack's direct message channels (the assistant thread's among them) have ids beginning with D. */
function isDirectMessage(channel: string): boolean {
  return /^D[A-Z0-9]+$/.test(channel);
}

async function startInAssistantThread(
  envelope: InboxMessage,
  threadTs: string,
  deps: RouterDeps,
): Promise<RouteOutcome | undefined> {
  const registration = findRegistration(
    deps.workflows,
    (t) => t.type === 'mention' && mentionMatches(t, envelope, deps.botUserId),
  );
  if (!registration) return undefined;
  return startConversation(
    registration,
    {
      channel: envelope.channel,
      threadTs,
      user: envelope.user,
      ts: envelope.ts,
      text: withoutLeadingMention(envelope.text, deps.botUserId),
      receivedAt: envelope.receivedAt,
    },
    deps,
  );
}

async function routeSlashCommand(envelope: InboxSlashCommand, deps: RouterDeps): Promise<RouteOutcome> {
  const registration = findRegistration(
    deps.workflows,
    (t) => t.type === 'slash_command' && t.command === envelope.command,
  );
  if (!registration) return { type: 'ignored', reason: `no workflow handles ${envelope.command}` };
  const trigger = registration.triggers.find(
    (t): t is Extract<Trigger, { type: 'slash_command' }> =>
      t.type === 'slash_command' && t.command === envelope.command,
  );
  const reading: CommandReading = trigger
    ? readCommandText(usageOfTrigger(trigger), envelope.text)
    : { type: 'run' };
  // The ingress answers these with the command's usage before they reach the inbox; one that
  // comes through anyway (an ingress without the usage list) starts nothing either.
  if (reading.type === 'answer')
    return {
      type: 'ignored',
      reason: `${envelope.command} "${envelope.text.slice(0, 100)}": ${reading.reason}`,
    };
  return routeCommand(envelope, registration, trigger && commandEntity(trigger, registration), deps);
}

async function routeAction(envelope: InboxAction, deps: RouterDeps): Promise<RouteOutcome> {
  const link = await deps.store.findThread(envelope.channel, envelope.threadTs ?? envelope.messageTs);
  if (!link)
    return { type: 'ignored', reason: `action ${envelope.actionId} on a message no conversation owns` };
  return partOf(link.conversationId, deps, () => routeOwnedAction(envelope, link, deps));
}

async function routeOwnedAction(
  envelope: InboxAction,
  link: ThreadLink,
  deps: RouterDeps,
): Promise<RouteOutcome> {
  if (isApprovalAction(envelope.actionId)) return routeApprovalPress(envelope, link, deps);
  if (envelope.actionId === STOP_ACTION_ID)
    return routeStop(
      link,
      { user: envelope.user, channel: envelope.channel, ts: envelope.ts, value: envelope.value ?? '' },
      deps,
    );
  return storeIncoming(
    link,
    {
      kind: 'action',
      user: envelope.user,
      channel: envelope.channel,
      ts: envelope.ts,
      text: `[button ${envelope.actionId}] ${envelope.value ?? ''}`.trim(),
      receivedAt: envelope.receivedAt,
      closable: false,
      actionId: envelope.actionId,
      ...(envelope.value !== undefined ? { actionValue: envelope.value } : {}),
    },
    deps,
  );
}

/** Runs `work` as part of the conversation (`RouterDeps.inConversation`). */
function partOf<T>(conversationId: string, deps: RouterDeps, work: () => Promise<T>): Promise<T> {
  return deps.inConversation ? deps.inConversation(conversationId, work) : work();
}

/** A Slack message as the kernel stores it: the owner's close intent counts in their own thread. */
function slackIncoming(envelope: InboxMessage): Incoming {
  return {
    kind: 'message',
    user: envelope.user,
    channel: envelope.channel,
    ts: envelope.ts,
    text: envelope.text,
    receivedAt: envelope.receivedAt,
    closable: true,
  };
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
