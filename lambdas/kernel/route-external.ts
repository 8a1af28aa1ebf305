import type { InboxAlert, InboxGithubEvent } from './inbox.ts';
import {
  findRegistration,
  type RouteOutcome,
  type RouterDeps,
  startConversation,
  storeIncoming,
} from './route-steps.ts';
import type { Trigger } from './workflows.ts';

/**
 * Routing of what comes from outside Slack (DESIGN 7.3), the way a Slack message is routed:
 * an event on something a conversation owns (its GitHub issue, its incident) is stored and
 * may wake it, like a reply in its thread; an event that a workflow's trigger takes starts a
 * conversation anchored there; anything else is ignored with its reason.
 */

/** The anchor of a GitHub issue or pull request: the repository stands where a channel would. */
export function githubAnchor(repository: string, number: number): { channel: string; threadTs: string } {
  return { channel: `github:${repository}`, threadTs: String(number) };
}

/** The anchor of an incident: the alert source stands where a channel would. */
export function alertAnchor(source: InboxAlert['source'], incidentKey: string) {
  return { channel: `alert:${source}`, threadTs: incidentKey };
}

export async function routeGithubEvent(envelope: InboxGithubEvent, deps: RouterDeps): Promise<RouteOutcome> {
  // Our own GitHub App's comments come back as events too; no app or bot starts or wakes anything.
  if (envelope.senderIsBot) return { type: 'ignored', reason: `${envelope.user} is a bot` };
  const anchor = githubAnchor(envelope.repository, envelope.number);
  const link = await deps.store.findThread(anchor.channel, anchor.threadTs);
  const what = `${envelope.event}.${envelope.action} on ${envelope.repository}#${envelope.number}`;
  if (link) {
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
      user: envelope.user,
      ts: envelope.ts,
      text: githubText(envelope),
      receivedAt: envelope.receivedAt,
      origin: { kind: 'github', repository: envelope.repository, number: envelope.number, url: envelope.url },
    },
    deps,
  );
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
  return startConversation(
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
