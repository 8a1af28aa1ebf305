import type { InboxSlashCommand } from './inbox.ts';
import { FINISHED_STATUSES } from './model.ts';
import { alarmNameAnchor, alertAnchor } from './route-external.ts';
import { type RouteOutcome, type RouterDeps, startConversation } from './route-steps.ts';
import type { WorkflowRegistration } from './workflows.ts';

/**
 * One execution per incident, whichever way it began. An incident is named by a PagerDuty
 * incident id (the key its webhook carries) or by an alarm name; a conversation started on
 * either holds a link under that name, the same thread-link rule by which a repeated alert
 * reaches the conversation its first one started. A slash command naming an incident whose
 * conversation still runs is answered with where it runs instead of starting a second.
 */

/**
 * The incident a command's text names: a PagerDuty incident id (`PF9KMXH`, or its
 * `https://<account>.pagerduty.com/incidents/<id>` URL), or one of `alarms` (names, or names
 * with one of `alarmPrefixes`); undefined for a free description such as `checkout latency`.
 */
export function incidentNamedBy(
  text: string,
  alarms: { names: readonly string[]; prefixes: readonly string[] },
): { channel: string; threadTs: string } | undefined {
  const trimmed = text.trim();
  if (
    alarms.names.includes(trimmed) ||
    alarms.prefixes.some((p) => trimmed.startsWith(p) && !/\s/.test(trimmed))
  )
    return alarmNameAnchor(trimmed);
  const url = /^https:\/\/[\w-]+\.pagerduty\.com\/incidents\/([A-Z0-9]{5,20})\/?$/.exec(trimmed);
  if (url?.[1]) return alertAnchor('pagerduty', url[1]);
  // PagerDuty ids are upper-case letters and digits; a one-word description is neither all
  // upper case nor carries a digit, so it is not mistaken for one.
  if (/^[A-Z0-9]{5,20}$/.test(trimmed) && /\d/.test(trimmed)) return alertAnchor('pagerduty', trimmed);
  return undefined;
}

/** A Slack link to a thread (Slack redirects it to the workspace). */
function threadLink(channel: string, ts: string): string {
  return `https://slack.com/archives/${channel}/p${ts.replace('.', '')}`;
}

/**
 * `/investigate <incident>`: answered with the running investigation's thread when the named
 * incident has one; otherwise started as any slash command, then linked under the incident's
 * name so that a repeat of the command, or the incident's own alert, reaches this one.
 */
export async function routeIncidentCommand(
  envelope: InboxSlashCommand,
  registration: WorkflowRegistration,
  deps: RouterDeps,
): Promise<RouteOutcome> {
  const alarms = { names: [] as string[], prefixes: [] as string[] };
  for (const t of registration.triggers) {
    if (t.type !== 'alert' || t.source !== 'cloudwatch') continue;
    alarms.names.push(...(t.names ?? []));
    alarms.prefixes.push(...(t.namePrefixes ?? []));
  }
  const named = incidentNamedBy(envelope.text, alarms);
  if (named) {
    const link = await deps.store.findThread(named.channel, named.threadTs);
    const conversation = link ? await deps.store.getConversation(link.conversationId) : undefined;
    if (link && conversation && !FINISHED_STATUSES.has(conversation.status)) {
      const where = Object.values(conversation.anchors).find((a) => !a.channel.includes(':'));
      const text = `${named.threadTs} is already being investigated${where ? `: ${threadLink(where.channel, where.threadTs)}` : ''}; it is not started twice.`;
      await deps.endedNotice?.({
        conversationId: conversation.id,
        channel: envelope.channel,
        ts: envelope.ts,
        text,
      });
      return { type: 'ignored', conversationId: conversation.id, reason: `${envelope.command}: ${text}` };
    }
  }
  const outcome = await startConversation(
    registration,
    {
      channel: envelope.channel,
      originId: envelope.eventId,
      user: envelope.user,
      ts: envelope.ts,
      text: `${envelope.command} ${envelope.text}`.trim(),
      receivedAt: envelope.receivedAt,
    },
    deps,
  );
  if (named && outcome.type === 'started') {
    await deps.store.linkThread({
      conversationId: outcome.conversationId,
      ownerId: envelope.user,
      anchor: {
        name: 'incident-name',
        ...named,
        ownerRole: registration.ownerRole,
        othersRole: registration.othersRole,
      },
    });
  }
  return outcome;
}
