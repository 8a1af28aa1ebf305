import { storedAnchor } from './anchors.ts';
import type { InboxAlert, InboxGithubEvent } from './inbox.ts';
import { FINISHED_STATUSES } from './model.ts';
import { type ConversationStart, startConversation } from './route-start.ts';
import { storeIncoming } from './route-store.ts';
import { startedByAlert, startedByGithub } from './route-triggers.ts';
import type { Routed, RouteOutcome, RouterDeps } from './route-types.ts';

/**
 * Routing of what comes from outside Slack, the way a Slack message is routed:
 * an event on something a conversation owns (its GitHub issue, its incident) is stored and
 * may wake it, like a reply in its thread; an event that a workflow's trigger takes starts a
 * conversation anchored there; anything else is ignored with its reason.
 */

export async function routeGithubEvent(envelope: InboxGithubEvent, deps: RouterDeps): Promise<Routed> {
  // `user` wrote the text; `actor` did the action (labelled the issue, edited the comment).
  const actor = envelope.actor ?? envelope.user;
  // Our own GitHub App's comments come back as events too; no app or bot starts or wakes anything.
  if (envelope.senderIsBot) return { type: 'ignored', reason: `${actor} is a bot` };
  // With a token instead of an App, the platform's own comments come back as a user's: they
  // must not reach the agents' prompts nor count as people's answers. (Someone else's edit of
  // one is ignored below, as any edit by someone other than the author.)
  if (deps.githubLogin !== undefined && actor.toLowerCase() === `github:${deps.githubLogin}`.toLowerCase())
    return { type: 'ignored', reason: `${actor} is the platform's own GitHub login` };
  const what = `${envelope.event}.${envelope.action} on ${envelope.repository}#${envelope.number}`;
  const says = wakes(envelope);
  const text = githubText(envelope);
  const anchor = storedAnchor({
    kind: 'github_issue',
    repository: envelope.repository,
    number: envelope.number,
  });
  const registration = startedByGithub(envelope, deps.workflows);
  const source = envelope.sourceId === undefined ? {} : { sourceId: envelope.sourceId };
  const written = { user: envelope.user, ts: envelope.ts, text, receivedAt: envelope.receivedAt };
  const incoming = {
    kind: 'message',
    channel: anchor.channel,
    ...written,
    closable: false,
    ...source,
  } as const;
  const origin = {
    kind: 'github',
    repository: envelope.repository,
    number: envelope.number,
    url: envelope.url,
  } as const;
  // Who acted starts it (the labeller: the start's authority is theirs); the opening text
  // (the issue's body, a review) stays its author's.
  const start = { ...anchor, ...written, user: actor, author: envelope.user, origin };
  const link = await deps.store.findThread(anchor.channel, anchor.threadTs);
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
    if (envelope.event === 'issues' && registration !== undefined)
      return answerRetrigger(link.conversationId, { ...anchor, user: actor, ts: envelope.ts }, what, deps);
    if (!says)
      return { type: 'ignored', conversationId: link.conversationId, reason: `${what} says nothing` };
    return storeIncoming(link, incoming, deps);
  }
  if (!registration)
    return { type: 'ignored', reason: `${what}: no conversation owns it and no workflow starts on it` };
  return startConversation(registration, start, deps);
}

/**
 * A start trigger on an issue a conversation already owns (its label removed and added again):
 * one conversation per issue, so nothing starts; while it runs, its workflow is told, to answer
 * on the issue with where it runs. An ended one was the issue's run: the label starts nothing.
 */
async function answerRetrigger(
  conversationId: string,
  again: { channel: string; threadTs: string; user: string; ts: string },
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
  const told = await deps.retriggered({ conversationId, workflow: conversation.workflow, ...again });
  const answer = told === 'told' ? 'answered on the issue' : 'no one to tell it';
  return { type: 'ignored', conversationId, reason: `${what}: already running; ${answer}` };
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

export async function routeAlert(envelope: InboxAlert, deps: RouterDeps): Promise<Routed> {
  const anchor = storedAnchor({ kind: 'alert', source: envelope.source, incidentKey: envelope.incidentKey });
  // The alarm's name then leads a command naming the alarm to this run (route-command.ts).
  const alarm =
    envelope.source === 'cloudwatch' ? storedAnchor({ kind: 'alarm_name', name: envelope.name }) : undefined;
  const text = `[${envelope.source} ${envelope.state}] ${envelope.title}\n${envelope.text}`.trim();
  const registration = envelope.opens ? startedByAlert(envelope, deps.workflows) : undefined;
  const written = { user: envelope.user, ts: envelope.ts, text, receivedAt: envelope.receivedAt };
  const incoming = { kind: 'message', channel: anchor.channel, ...written, closable: false } as const;
  const url = envelope.url ? { url: envelope.url } : {};
  const start: ConversationStart = {
    ...anchor,
    ...written,
    origin: {
      kind: 'alert',
      source: envelope.source,
      name: envelope.name,
      incidentKey: envelope.incidentKey,
      ...url,
    },
    ...(alarm ? { alsoUnder: alarm } : {}),
  };
  const link = await deps.store.findThread(anchor.channel, anchor.threadTs);
  if (link) return storeIncoming(link, incoming, deps);
  if (!envelope.opens)
    return {
      type: 'ignored',
      reason: `${envelope.source} ${envelope.state} of ${envelope.name}: no conversation has this incident`,
    };
  if (!registration)
    return { type: 'ignored', reason: `no workflow takes ${envelope.source} alerts of ${envelope.name}` };
  return startConversation(registration, start, deps);
}
