import { slackThreadOf, storedAnchor, threadLink } from './anchors.ts';
import { entityNamedBy } from './command-entities.ts';
import type { InboxSlashCommand } from './inbox.ts';
import { FINISHED_STATUSES } from './model.ts';
import { type ConversationStart, startConversation } from './route-start.ts';
import { startedByCommand } from './route-triggers.ts';
import type { Routed, RouterDeps } from './route-types.ts';
import { readCommandText, usageOfTrigger } from './slash-command-help.ts';
import type { WorkflowRegistration } from './workflows.ts';

/**
 * The one router of slash commands. A command whose trigger says what its text names (`names`,
 * as its workflow declares it: kernel/command-entities.ts) is the conversation of that thing,
 * whichever way it began: one whose conversation still runs is answered with where it runs
 * instead of starting a second (and, for a thing that has one run, one that ended is answered
 * that it had it), and a new one starts on the thing's anchor or is linked under it, so a repeat
 * of the command, or the thing's own event (an issue's label, an incident's alert), reaches it.
 * Any other command starts a conversation of its own.
 */

export async function routeCommand(envelope: InboxSlashCommand, deps: RouterDeps): Promise<Routed> {
  const quoted = `${envelope.command} "${envelope.text.slice(0, 100)}"`;
  const started = startedByCommand(envelope, deps.workflows);
  if (!started) return { type: 'ignored', reason: `no workflow handles ${envelope.command}` };
  // The ingress answers these with the command's usage before they reach the inbox; one that
  // comes through anyway (an ingress without the usage list) starts nothing either.
  const usage = usageOfTrigger(started.trigger);
  const reading = readCommandText(usage, envelope.text);
  if (reading.type === 'answer') return { type: 'ignored', reason: `${quoted}: ${reading.reason}` };
  const entity = started.trigger.names;
  const named = entity === undefined ? undefined : entityNamedBy(entity, envelope.text);
  const refusal = named === undefined ? entity?.refusal : undefined;
  if (refusal !== undefined) return { type: 'ignored', reason: `${quoted} ${refusal}` };
  const common = {
    user: envelope.user,
    ts: envelope.ts,
    text: `${envelope.command} ${envelope.text}`.trim(),
    receivedAt: envelope.receivedAt,
  };
  const key = named === undefined ? undefined : storedAnchor(named.anchor);
  const start: ConversationStart =
    key !== undefined && entity?.anchored === true
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
  if (link === undefined || named === undefined || (finished && entity?.once !== true)) {
    const refused = await ownerRefusal(started.registration, envelope, deps);
    return refused ?? startConversation(started.registration, start, deps);
  }
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

/**
 * A command makes whoever ran it the conversation's owner, heard with the workflow's owner role.
 * When the configuration defines that role (an incident's `responder`), it is its members'
 * alone: anyone else is told so privately, and nothing starts.
 */
async function ownerRefusal(
  registration: WorkflowRegistration,
  envelope: InboxSlashCommand,
  deps: RouterDeps,
): Promise<Routed | undefined> {
  const role = registration.ownerRole;
  if (!deps.people.configures(role) || (await deps.people.holds(envelope.user, role))) return undefined;
  await deps.stops.refused(
    envelope.channel,
    envelope.user,
    `Only people with the ${role} role can start this with ${envelope.command}, and you are not one of them, so nothing was started.`,
  );
  return { type: 'ignored', reason: `${envelope.command}: ${envelope.user} does not hold the ${role} role` };
}
