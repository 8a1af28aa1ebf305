import type { InboxAlert, InboxGithubEvent, InboxMessage, InboxSlashCommand } from './inbox.ts';
import type { Trigger, WorkflowRegistration } from './workflows.ts';

/**
 * Which workflow an envelope starts, by the workflows' triggers: pure, read before the Router
 * reads or writes anything. Every kind of envelope meets the triggers here, so the rule that a
 * specific trigger wins over a generic mention holds for all of them.
 */

type SlashCommandTrigger = Extract<Trigger, { type: 'slash_command' }>;

/** The workflow one of whose triggers `matches`; a channel's own workflow wins over a generic mention. */
export function findRegistration(
  workflows: readonly WorkflowRegistration[],
  matches: (trigger: Trigger) => boolean,
): WorkflowRegistration | undefined {
  const specific = workflows.find((w) => w.triggers.some((t) => t.type !== 'mention' && matches(t)));
  return specific ?? workflows.find((w) => w.triggers.some(matches));
}

/**
 * The workflow a Slack message starts. At the top level of a channel: the channel's own
 * workflow, or a mention's. In a thread: only in the app's assistant thread (a direct message),
 * whose first message may start a workflow there as a top-level mention would in a channel.
 */
export function startedByMessage(
  message: InboxMessage,
  workflows: readonly WorkflowRegistration[],
  botUserId: string | undefined,
): WorkflowRegistration | undefined {
  const topLevel = message.threadTs === undefined;
  if (!topLevel && !isDirectMessage(message.channel)) return undefined;
  return findRegistration(workflows, (t) =>
    t.type === 'channel_message'
      ? topLevel && t.channel === message.channel
      : t.type === 'mention' && mentionMatches(t, message, botUserId),
  );
}

/** A slash command's workflow and its trigger. */
export function startedByCommand(
  command: InboxSlashCommand,
  workflows: readonly WorkflowRegistration[],
): { registration: WorkflowRegistration; trigger: SlashCommandTrigger } | undefined {
  const isCommand = (t: Trigger): t is SlashCommandTrigger =>
    t.type === 'slash_command' && t.command === command.command;
  const registration = findRegistration(workflows, isCommand);
  const trigger = registration?.triggers.find(isCommand);
  return registration && trigger ? { registration, trigger } : undefined;
}

export function startedByGithub(
  envelope: InboxGithubEvent,
  workflows: readonly WorkflowRegistration[],
): WorkflowRegistration | undefined {
  return findRegistration(workflows, (trigger) => startsOnGithub(trigger, envelope));
}

export function startedByAlert(
  envelope: InboxAlert,
  workflows: readonly WorkflowRegistration[],
): WorkflowRegistration | undefined {
  return findRegistration(workflows, (trigger) => startsOnAlert(trigger, envelope));
}

/** A channel whose top-level messages start a workflow (the bug-reports channel) is that workflow's alone. */
export function ownedChannel(workflows: readonly WorkflowRegistration[], channel: string): boolean {
  return workflows.some((w) => w.triggers.some((t) => t.type === 'channel_message' && t.channel === channel));
}

/** Slack's direct message channels (the assistant thread's among them) have ids beginning with D. */
function isDirectMessage(channel: string): boolean {
  return /^D[A-Z0-9]+$/.test(channel);
}

/** Whether a top-level message is a mention the trigger takes (see `Trigger`'s `mention`). */
function mentionMatches(
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
export function withoutLeadingMention(text: string, botUserId: string | undefined): string {
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

function startsOnGithub(trigger: Trigger, envelope: InboxGithubEvent): boolean {
  if (trigger.type === 'github_issue_labeled') {
    return (
      envelope.event === 'issues' &&
      envelope.action === 'labeled' &&
      sameRepository(trigger.repository, envelope.repository) &&
      envelope.label === trigger.label
    );
  }
  if (trigger.type === 'github_pull_request_review') {
    return (
      envelope.event === 'pull_request_review' &&
      envelope.action === 'submitted' &&
      sameRepository(trigger.repository, envelope.repository)
    );
  }
  return false;
}

/** GitHub's owner and repository names are case-insensitive. */
function sameRepository(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function startsOnAlert(trigger: Trigger, envelope: InboxAlert): boolean {
  if (trigger.type !== 'alert' || trigger.source !== envelope.source) return false;
  if (trigger.names === undefined && trigger.namePrefixes === undefined) return true;
  const names = [envelope.name, ...(envelope.serviceId ? [envelope.serviceId] : [])];
  return names.some(
    (name) =>
      (trigger.names ?? []).includes(name) ||
      (trigger.namePrefixes ?? []).some((prefix) => name.startsWith(prefix)),
  );
}
