import { slackThreadOf, storedAnchor, threadLink } from './anchors.ts';
import { commandEntity, entityNamedBy, unnamedRefusal } from './command-entities.ts';
import type { InboxSlashCommand } from './inbox.ts';
import { FINISHED_STATUSES } from './model.ts';
import { type ConversationStart, startConversation } from './route-start.ts';
import { startedByCommand } from './route-triggers.ts';
import type { Routed, RouterDeps } from './route-types.ts';
import { readCommandText, usageOfTrigger } from './slash-command-help.ts';

/**
 * The one router of slash commands. A command whose trigger says what its text names (an issue
 * of a repository, an incident) is the conversation of that thing, whichever way it began: one
 * whose conversation still runs is answered with where it runs instead of starting a second,
 * and a new one is linked under the thing's anchor, so a repeat of the command, or the thing's
 * own event (the issue's label, the incident's alert), reaches it. Any other command starts a
 * conversation of its own.
 */

/** How a command's text meets the thing it names, by the kind of thing. */
interface EntityRule {
  /** The conversation starts on the thing's own anchor (true) or in Slack, then linked to it. */
  readonly anchored: boolean;
  /** An ended conversation of the thing still stands: the thing has had its run. */
  readonly once: boolean;
}

const RULES: Record<'github_issue' | 'incident', EntityRule> = {
  // An issue is the pipeline's whole work: it has one run, started on the issue itself.
  github_issue: { anchored: true, once: true },
  // An incident may come back after it was closed.
  incident: { anchored: false, once: false },
};

export async function routeCommand(envelope: InboxSlashCommand, deps: RouterDeps): Promise<Routed> {
  const quoted = `${envelope.command} "${envelope.text.slice(0, 100)}"`;
  const started = startedByCommand(envelope, deps.workflows);
  if (!started) return { type: 'ignored', reason: `no workflow handles ${envelope.command}` };
  // The ingress answers these with the command's usage before they reach the inbox; one that
  // comes through anyway (an ingress without the usage list) starts nothing either.
  const usage = usageOfTrigger(started.trigger);
  const reading = readCommandText(usage, envelope.text);
  if (reading.type === 'answer') return { type: 'ignored', reason: `${quoted}: ${reading.reason}` };
  const entity = commandEntity(started.trigger, started.registration);
  const named = entity === undefined ? undefined : entityNamedBy(entity, envelope.text);
  const refusal = entity !== undefined && named === undefined ? unnamedRefusal(entity) : undefined;
  if (refusal !== undefined) return { type: 'ignored', reason: `${quoted} ${refusal}` };
  const rule = entity === undefined ? undefined : RULES[entity.kind];
  const common = {
    user: envelope.user,
    ts: envelope.ts,
    text: `${envelope.command} ${envelope.text}`.trim(),
    receivedAt: envelope.receivedAt,
  };
  const key = named === undefined ? undefined : storedAnchor(named.anchor);
  const start: ConversationStart =
    key !== undefined && rule?.anchored === true
      ? { ...key, ...common, ...(named?.origin ? { origin: named.origin } : {}) }
      : {
          channel: envelope.channel,
          originId: envelope.eventId,
          ...common,
          ...(key !== undefined ? { alsoUnder: key } : {}),
        };
  // A conversation the named thing already has: answered with where it runs, or (for a thing
  // that has one run) that it had it, instead of a start.
  const link = key === undefined ? undefined : await deps.store.findThread(key.channel, key.threadTs);
  const conversation = link === undefined ? undefined : await deps.store.getConversation(link.conversationId);
  const finished = conversation === undefined || FINISHED_STATUSES.has(conversation.status);
  if (link === undefined || named === undefined || (finished && rule?.once !== true))
    return startConversation(started.registration, start, deps);
  const where = slackThreadOf(Object.values(conversation?.anchors ?? {}));
  const text = finished
    ? `${named.label} already had its run (${conversation?.status ?? 'gone'}); it is not started again.`
    : `${named.label} is already running${where ? `: ${threadLink(where)}` : ''}; it is not started twice.`;
  await deps.endedNotice({
    conversationId: link.conversationId,
    channel: envelope.channel,
    ts: envelope.ts,
    text,
  });
  return { type: 'ignored', conversationId: link.conversationId, reason: `${envelope.command}: ${text}` };
}
