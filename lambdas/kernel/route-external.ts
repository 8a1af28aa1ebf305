import { type AlertSource, storedAnchor } from './anchors.ts';
import type { InboxAlert, InboxGithubEvent } from './inbox.ts';
import { FINISHED_STATUSES } from './model.ts';
import { linkStarted } from './route-link.ts';
import { findRegistration, startConversation } from './route-start.ts';
import { type RouteOutcome, type RouterDeps, storeIncoming } from './route-steps.ts';
import type { Trigger } from './workflows.ts';

export { issueNumberIn } from './command-entities.ts';

/**
 * Routing of what comes from outside Slack, the way a Slack message is routed:
 * an event on something a conversation owns (its GitHub issue, its incident) is stored and
 * may wake it, like a reply in its thread; an event that a workflow's trigger takes starts a
 * conversation anchored there; anything else is ignored with its reason.
 */

/** The stored anchor of a GitHub issue or pull request (anchors.ts). */
export function githubAnchor(repository: string, number: number): { channel: string; threadTs: string } {
  return storedAnchor({ kind: 'github_issue', repository, number });
}

/** The stored anchor of an alert's incident (anchors.ts). */
export function alertAnchor(source: AlertSource, incidentKey: string): { channel: string; threadTs: string } {
  return storedAnchor({ kind: 'alert', source, incidentKey });
}

/** The stored anchor of an alarm by its name alone (anchors.ts). */
export function alarmNameAnchor(name: string): { channel: string; threadTs: string } {
  return storedAnchor({ kind: 'alarm_name', name });
}

export async function routeGithubEvent(envelope: InboxGithubEvent, deps: RouterDeps): Promise<RouteOutcome> {
  // `user` wrote the text; `actor` did the action (labelled the issue, edited the comment).
  const actor = envelope.actor ?? envelope.user;
  // Our own GitHub App's comments come back as events too; no app or bot starts or wakes anything.
  if (envelope.senderIsBot) return { type: 'ignored', reason: `${actor} is a bot` };
  // With a token instead of an App, the platform's own comments come back as a user's: they
  // must not reach the agents' prompts nor count as people's answers. (Someone else's edit of
  // one is ignored below, as any edit by someone other than the author.)
  if (deps.githubLogin !== undefined && actor.toLowerCase() === `github:${deps.githubLogin}`.toLowerCase())
    return { type: 'ignored', reason: `${actor} is the platform's own GitHub login` };
  const anchor = githubAnchor(envelope.repository, envelope.number);
  const link = await deps.store.findThread(anchor.channel, anchor.threadTs);
  const what = `${envelope.event}.${envelope.action} on ${envelope.repository}#${envelope.number}`;
  // Someone else's edit of a comment or review is no new message of its author's, nor one of
  // the editor's (who wrote none of it): a refused comment stays refused whoever edits it.
  if (envelope.action === 'edited' && actor !== envelope.user)
    return {
      type: 'ignored',
      ...(link ? { conversationId: link.conversationId } : {}),
      reason: `${what}: ${actor} edited what ${envelope.user} wrote; an edit by someone else says nothing new`,
    };
  if (link) {
    // A review on an owned pull request wakes its conversation; only a label is a start again.
    const again =
      envelope.event === 'issues' &&
      findRegistration(deps.workflows, (trigger) => startsOnGithub(trigger, envelope)) !== undefined;
    if (again) return answerRetrigger(link.conversationId, envelope, actor, what, deps);
    if (!wakes(envelope))
      return { type: 'ignored', conversationId: link.conversationId, reason: `${what} says nothing` };
    return storeIncoming(
      link,
      {
        kind: 'message',
        user: envelope.user,
        channel: anchor.channel,
        ts: envelope.ts,
        text: githubText(envelope),
        receivedAt: envelope.receivedAt,
        closable: false,
        ...(envelope.sourceId === undefined ? {} : { sourceId: envelope.sourceId }),
      },
      deps,
    );
  }
  const registration = findRegistration(deps.workflows, (trigger) => startsOnGithub(trigger, envelope));
  if (!registration)
    return { type: 'ignored', reason: `${what}: no conversation owns it and no workflow starts on it` };
  return startConversation(
    registration,
    {
      ...anchor,
      // Who acted starts it (the labeller: the start's authority is theirs); the opening text
      // (the issue's body, a review) stays its author's.
      user: actor,
      author: envelope.user,
      ts: envelope.ts,
      text: githubText(envelope),
      receivedAt: envelope.receivedAt,
      origin: { kind: 'github', repository: envelope.repository, number: envelope.number, url: envelope.url },
    },
    deps,
  );
}

/**
 * A start trigger on an issue a conversation already owns (its label removed and added again):
 * one conversation per issue, so nothing starts; while it runs, its workflow is told, to answer
 * on the issue with where it runs. An ended one was the issue's run: the label starts nothing.
 */
async function answerRetrigger(
  conversationId: string,
  envelope: InboxGithubEvent,
  actor: string,
  what: string,
  deps: RouterDeps,
): Promise<RouteOutcome> {
  const conversation = await deps.store.getConversation(conversationId);
  if (conversation === undefined || FINISHED_STATUSES.has(conversation.status)) {
    return {
      type: 'ignored',
      conversationId,
      reason: `${what}: the issue already had its run (${conversation?.status ?? 'gone'})`,
    };
  }
  if (deps.retriggered === undefined) {
    return { type: 'ignored', conversationId, reason: `${what}: already running; no one to tell it` };
  }
  const anchor = githubAnchor(envelope.repository, envelope.number);
  await deps.retriggered({
    conversationId,
    workflow: conversation.workflow,
    ...anchor,
    user: actor,
    ts: envelope.ts,
  });
  return { type: 'ignored', conversationId, reason: `${what}: already running; answered on the issue` };
}

/** What on an owned issue is said to the conversation: a new or edited comment, a submitted review. */
function wakes(envelope: InboxGithubEvent): boolean {
  switch (envelope.event) {
    case 'issue_comment':
      return envelope.action === 'created' || envelope.action === 'edited';
    case 'pull_request_review':
      return envelope.action === 'submitted';
    case 'issues':
      return false;
  }
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

function githubText(envelope: InboxGithubEvent): string {
  const where = `${envelope.repository}#${envelope.number}`;
  switch (envelope.event) {
    case 'issues':
      return `[GitHub issue ${where} ${envelope.action}${envelope.label ? ` "${envelope.label}"` : ''}] ${envelope.title}\n${envelope.text}`.trim();
    case 'issue_comment':
      return `[GitHub comment on ${where}] ${envelope.text}`;
    case 'pull_request_review':
      return `[GitHub review of ${where}] ${envelope.text}`;
  }
}

export async function routeAlert(envelope: InboxAlert, deps: RouterDeps): Promise<RouteOutcome> {
  const anchor = alertAnchor(envelope.source, envelope.incidentKey);
  const link = await deps.store.findThread(anchor.channel, anchor.threadTs);
  const text = `[${envelope.source} ${envelope.state}] ${envelope.title}\n${envelope.text}`.trim();
  if (link) {
    return storeIncoming(
      link,
      {
        kind: 'message',
        user: envelope.user,
        channel: anchor.channel,
        ts: envelope.ts,
        text,
        receivedAt: envelope.receivedAt,
        closable: false,
      },
      deps,
    );
  }
  if (!envelope.opens) {
    return {
      type: 'ignored',
      reason: `${envelope.source} ${envelope.state} of ${envelope.name}: no conversation has this incident`,
    };
  }
  const registration = findRegistration(deps.workflows, (trigger) => startsOnAlert(trigger, envelope));
  if (!registration)
    return { type: 'ignored', reason: `no workflow takes ${envelope.source} alerts of ${envelope.name}` };
  const outcome = await startConversation(
    registration,
    {
      ...anchor,
      user: envelope.user,
      ts: envelope.ts,
      text,
      receivedAt: envelope.receivedAt,
      origin: {
        kind: 'alert',
        source: envelope.source,
        name: envelope.name,
        incidentKey: envelope.incidentKey,
        ...(envelope.url ? { url: envelope.url } : {}),
      },
    },
    deps,
  );
  // The alarm's name then leads a command naming the alarm to this run (route-command.ts).
  if (envelope.source === 'cloudwatch')
    await linkStarted(
      outcome,
      { kind: 'alarm_name', name: envelope.name },
      envelope.user,
      registration,
      deps,
    );
  return outcome;
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
