import { createHash } from 'node:crypto';
import * as z from 'zod';
import { GithubEventName, InboxGithubEvent } from '../kernel/inbox.ts';

/**
 * The GitHub webhook payloads the ingress reads, as zod schemas of only the fields it uses
 * (loose objects: GitHub adds fields freely), and their reduction to an inbox envelope.
 */

const Login = z.string().min(1);
const User = z.looseObject({ login: Login, type: z.string().optional() });
const Repository = z.looseObject({ full_name: z.string().regex(/^[^/\s]+\/[^/\s]+$/) });
const Issue = z.looseObject({
  number: z.number().int().positive(),
  title: z.string(),
  /** Who wrote the issue (its body is theirs, whoever acts on the issue). */
  user: User,
  body: z.string().nullish(),
  html_url: z.string(),
  updated_at: z.string(),
});

export const IssuesPayload = z.looseObject({
  action: z.string().min(1),
  issue: Issue,
  label: z.looseObject({ name: z.string().min(1) }).nullish(),
  repository: Repository,
  sender: User,
});

export const IssueCommentPayload = z.looseObject({
  action: z.string().min(1),
  issue: Issue,
  comment: z.looseObject({
    id: z.number().int().positive(),
    /** Who wrote the comment: an edit by someone else keeps it theirs. */
    user: User,
    body: z.string().nullish(),
    html_url: z.string(),
    created_at: z.string(),
    updated_at: z.string().nullish(),
  }),
  repository: Repository,
  sender: User,
});

export const PullRequestReviewPayload = z.looseObject({
  action: z.string().min(1),
  review: z.looseObject({
    id: z.number().int().positive(),
    user: User,
    body: z.string().nullish(),
    state: z.string(),
    html_url: z.string(),
    submitted_at: z.string().nullish(),
  }),
  pull_request: z.looseObject({
    number: z.number().int().positive(),
    title: z.string(),
    updated_at: z.string(),
  }),
  repository: Repository,
  sender: User,
});

/** The events the ingress takes; anything else (push, star, ...) is acknowledged and ignored. */
export function isRoutedGithubEvent(name: string): name is GithubEventName {
  return GithubEventName.safeParse(name).success;
}

export type GithubParse =
  | { type: 'enqueue'; envelope: InboxGithubEvent; eventTime: string }
  | { type: 'invalid'; reason: string };

/**
 * Who an event's text is from, and who acted: GitHub's `sender` is whoever did the action (the
 * labeller, the editor of a comment), while the issue, comment or review is its author's
 * (`issue.user`, `comment.user`, `review.user`). The text is always attributed to its author:
 * a maintainer who edits an outsider's comment does not make it the maintainer's.
 */
function people(author: z.infer<typeof User>, sender: z.infer<typeof User>) {
  return {
    user: `github:${author.login}`,
    actor: `github:${sender.login}`,
    senderIsBot: sender.type === 'Bot',
  };
}

/** Reads a verified delivery of one of the routed events into an envelope. Pure. */
export function parseGithubEvent(
  name: GithubEventName,
  deliveryId: string,
  json: unknown,
  receivedAt: string,
): GithubParse {
  const common = { kind: 'github' as const, eventId: deliveryId, receivedAt, event: name };
  switch (name) {
    case 'issues': {
      const parsed = IssuesPayload.safeParse(json);
      if (!parsed.success) return invalidShape('issues', parsed.error);
      const { issue, sender } = parsed.data;
      return envelope(
        {
          ...common,
          action: parsed.data.action,
          repository: parsed.data.repository.full_name,
          number: issue.number,
          ...(parsed.data.label ? { label: parsed.data.label.name } : {}),
          ...people(issue.user, sender),
          title: issue.title,
          text: issue.body ?? '',
          url: issue.html_url,
          ts: eventTs(issue.updated_at, deliveryId),
        },
        issue.updated_at,
      );
    }
    case 'issue_comment': {
      const parsed = IssueCommentPayload.safeParse(json);
      if (!parsed.success) return invalidShape('issue_comment', parsed.error);
      const { issue, comment, sender } = parsed.data;
      const at = comment.updated_at ?? comment.created_at;
      const eventId = commentEventId(comment.id, at);
      return envelope(
        {
          ...common,
          eventId,
          action: parsed.data.action,
          repository: parsed.data.repository.full_name,
          number: issue.number,
          ...people(comment.user, sender),
          title: issue.title,
          text: comment.body ?? '',
          url: comment.html_url,
          ts: eventTs(at, eventId),
          sourceId: `github-comment:${comment.id}`,
        },
        at,
      );
    }
    case 'pull_request_review': {
      const parsed = PullRequestReviewPayload.safeParse(json);
      if (!parsed.success) return invalidShape('pull_request_review', parsed.error);
      const { review, pull_request: pullRequest, sender } = parsed.data;
      const at = review.submitted_at ?? pullRequest.updated_at;
      const eventId = reviewEventId(review.id, at);
      return envelope(
        {
          ...common,
          eventId,
          action: parsed.data.action,
          repository: parsed.data.repository.full_name,
          number: pullRequest.number,
          ...people(review.user, sender),
          title: pullRequest.title,
          text: `[review: ${review.state}] ${review.body ?? ''}`.trim(),
          url: review.html_url,
          ts: eventTs(at, eventId),
          sourceId: `github-review:${review.id}`,
        },
        at,
      );
    }
  }
}

/**
 * A comment's own identity, in place of the delivery id: GitHub redelivers a delivery for days,
 * and the same comment can come under two delivery ids (a redelivery asked for, a second hook).
 * A comment is one message; an edit of it (a new `updated_at`) is another.
 */
export function commentEventId(commentId: number, updatedAt: string): string {
  return `github-comment:${commentId}@${updatedAt}`;
}

/** A review's own identity, as `commentEventId` for comments. */
export function reviewEventId(reviewId: number, submittedAt: string): string {
  return `github-review:${reviewId}@${submittedAt}`;
}

/**
 * A message ts for an event from elsewhere: seconds of its own time (so a conversation's
 * messages sort in time) and twenty digits from a SHA-256 of its id (64 bits: two events in
 * one second never share a ts in practice, and a redelivery of the same one is equal, which
 * keeps it stored once). Stored messages are keyed by ts, so a shorter hash would let two
 * events of one second become one message.
 */
export function eventTs(isoTime: string, id: string): string {
  const seconds = Math.max(0, Math.floor(Date.parse(isoTime) / 1000) || 0);
  const fraction = createHash('sha256').update(id).digest().readBigUInt64BE(0);
  return `${String(seconds).padStart(10, '0')}.${String(fraction).padStart(20, '0')}`;
}

function envelope(candidate: InboxGithubEvent, eventTime: string): GithubParse {
  const checked = InboxGithubEvent.safeParse(candidate);
  if (!checked.success) return invalidShape(`${candidate.event} envelope`, checked.error);
  return { type: 'enqueue', envelope: checked.data, eventTime };
}

/** Field paths and zod's messages only: a reason is logged, and must not echo content. */
export function invalidShape(what: string, error: z.ZodError): { type: 'invalid'; reason: string } {
  const issues = error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
  return { type: 'invalid', reason: `${what}: ${issues}` };
}
