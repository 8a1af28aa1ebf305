import { type Anchor, slackThreadOf, storedAnchor, threadLink } from './anchors.ts';
import { type CommandEntity, entityNamedBy, unnamedRefusal } from './command-entities.ts';
import type { InboxSlashCommand } from './inbox.ts';
import { FINISHED_STATUSES } from './model.ts';
import { linkStarted } from './route-link.ts';
import { startConversation } from './route-start.ts';
import type { RouteOutcome, RouterDeps } from './route-steps.ts';
import type { WorkflowRegistration } from './workflows.ts';

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

const RULES: Record<CommandEntity['kind'], EntityRule> = {
  // An issue is the pipeline's whole work: it has one run, started on the issue itself.
  github_issue: { anchored: true, once: true },
  // An incident may come back after it was closed.
  incident: { anchored: false, once: false },
};

export async function routeCommand(
  envelope: InboxSlashCommand,
  registration: WorkflowRegistration,
  entity: CommandEntity | undefined,
  deps: RouterDeps,
): Promise<RouteOutcome> {
  const named = entity === undefined ? undefined : entityNamedBy(entity, envelope.text);
  const rule = entity === undefined ? undefined : RULES[entity.kind];
  const refusal = entity !== undefined && named === undefined ? unnamedRefusal(entity) : undefined;
  if (refusal !== undefined) {
    return { type: 'ignored', reason: `${envelope.command} "${envelope.text.slice(0, 100)}" ${refusal}` };
  }
  if (named !== undefined && rule !== undefined) {
    const answered = await answerRunning(envelope, named, rule, deps);
    if (answered !== undefined) return answered;
  }
  const text = `${envelope.command} ${envelope.text}`.trim();
  const common = { user: envelope.user, ts: envelope.ts, text, receivedAt: envelope.receivedAt };
  if (named !== undefined && rule?.anchored === true) {
    return startConversation(
      registration,
      { ...storedAnchor(named.anchor), ...common, ...(named.origin ? { origin: named.origin } : {}) },
      deps,
    );
  }
  const outcome = await startConversation(
    registration,
    { channel: envelope.channel, originId: envelope.eventId, ...common },
    deps,
  );
  if (named !== undefined) await linkStarted(outcome, named.anchor, envelope.user, registration, deps);
  return outcome;
}

/**
 * The answer to a command naming a thing a conversation already has: where it runs, or (for a
 * thing that has one run) that it had it. Undefined when nothing stands in the way of a start.
 */
async function answerRunning(
  envelope: InboxSlashCommand,
  named: { anchor: Anchor; label: string },
  rule: EntityRule,
  deps: RouterDeps,
): Promise<RouteOutcome | undefined> {
  const key = storedAnchor(named.anchor);
  const link = await deps.store.findThread(key.channel, key.threadTs);
  if (link === undefined) return undefined;
  const conversation = await deps.store.getConversation(link.conversationId);
  const finished = conversation === undefined || FINISHED_STATUSES.has(conversation.status);
  if (finished && !rule.once) return undefined;
  const where = slackThreadOf(Object.values(conversation?.anchors ?? {}));
  const text = finished
    ? `${named.label} already had its run (${conversation?.status ?? 'gone'}); it is not started again.`
    : `${named.label} is already running${where ? `: ${threadLink(where)}` : ''}; it is not started twice.`;
  await deps.endedNotice?.({
    conversationId: link.conversationId,
    channel: envelope.channel,
    ts: envelope.ts,
    text,
  });
  return { type: 'ignored', conversationId: link.conversationId, reason: `${envelope.command}: ${text}` };
}
