import { createHash } from 'node:crypto';
import * as z from 'zod';
import { InboxSurface, surfaceKey } from './inbox-surface.ts';

/**
 * What the ingress puts on the SQS FIFO inbox and the Router takes off it: Slack's, GitHub's
 * and the alerting services' payloads reduced to the facts the kernel routes on. The raw
 * shapes stay at the ingress; this is the contract between the two Lambdas.
 */

/**
 * Ids (channel, user, ts, event id) are short in every source; a bound keeps a signed but
 * absurd one (a 100 KB "channel id") from reaching DynamoDB keys, which it would break later.
 */
export const MAX_ID_CHARS = 255;
const Id = z.string().min(1).max(MAX_ID_CHARS);

const Common = {
  /** Slack event id, or the payload's trigger id: the SQS deduplication id. */
  eventId: Id,
  teamId: z.string().max(MAX_ID_CHARS).optional(),
  channel: Id,
  user: Id,
  /** When the ingress accepted it (ISO 8601). */
  receivedAt: z.string(),
};

export const InboxMessage = z.object({
  kind: z.literal('message'),
  ...Common,
  text: z.string(),
  ts: Id,
  threadTs: Id.optional(),
  /** True when the bot was mentioned (`app_mention`, or `<@BOT>` in the text). */
  mentionsBot: z.boolean(),
  /**
   * Slack says this is an edit of a message already sent (`message_changed`, or an event that
   * carries `edited`). The Slack ingress ignores edits before the inbox; an envelope marked
   * so that reaches the Router anyway is ignored there too: an edit is never a new act.
   */
  edited: z.boolean().optional(),
});
export type InboxMessage = z.infer<typeof InboxMessage>;

export const InboxSlashCommand = z.object({
  kind: z.literal('slash_command'),
  ...Common,
  command: Id,
  text: z.string(),
  /** A synthetic, deterministic ts for storing the command as the conversation's first message. */
  ts: Id,
  responseUrl: z.string().optional(),
});
export type InboxSlashCommand = z.infer<typeof InboxSlashCommand>;

export const InboxAction = z.object({
  kind: z.literal('action'),
  ...Common,
  actionId: Id,
  value: z.string().optional(),
  /** ts of the message holding the button, and the root of its thread. */
  messageTs: Id,
  threadTs: Id.optional(),
  /** Deterministic ts for storing the action (the action_ts Slack sends). */
  ts: Id,
  /** Pressed in the App Home (its block named the message): the Home is published again after. */
  fromHome: z.literal(true).optional(),
});
export type InboxAction = z.infer<typeof InboxAction>;

export const GithubEventName = z.enum(['issues', 'issue_comment', 'pull_request_review']);
export type GithubEventName = z.infer<typeof GithubEventName>;

/** A GitHub webhook delivery about an issue or a pull request (a pull request is an issue too). */
export const InboxGithubEvent = z.object({
  kind: z.literal('github'),
  /** `X-GitHub-Delivery`: the same for a redelivery, so it is the deduplication id. */
  eventId: Id,
  receivedAt: z.string(),
  event: GithubEventName,
  action: Id,
  /** `owner/name` */
  repository: Id,
  /** The or pull request's number. */
  number: z.number().int().positive(),
  /** The label added or removed (`issues` `labeled` / `unlabeled`). */
  label: Id.optional(),
  /**
   * `github:<login>` of the author of `text`: the issue's, the comment's or the review's own
   * `user`, never the webhook's sender (an editor or a labeller is not the author).
   */
  user: Id,
  /**
   * `github:<login>` of the webhook's `sender`: who did the action (added the label, edited the
   * comment). Absent in envelopes enqueued before it existed: the same as `user` there.
   */
  actor: Id.optional(),
  /** The sender is an app or bot (our own GitHub App among them): starts and wakes nothing. */
  senderIsBot: z.boolean(),
  title: z.string(),
  /** The body, the comment, or the review's body. */
  text: z.string(),
  url: z.string(),
  /** From the payload's own time and the delivery id: equal for a redelivery, ordered in time. */
  ts: Id,
  /**
   * The comment's or review's own id (`github-comment:<id>`, `github-review:<id>`): the same
   * through every edit of it, so what was decided on one version holds for the next.
   */
  sourceId: Id.optional(),
});
export type InboxGithubEvent = z.infer<typeof InboxGithubEvent>;

/** An alert: a CloudWatch alarm's state change (EventBridge) or a PagerDuty V3 webhook event. */
export const InboxAlert = z.object({
  kind: z.literal('alert'),
  /** The EventBridge event id, or the PagerDuty event id. */
  eventId: Id,
  receivedAt: z.string(),
  source: z.enum(['cloudwatch', 'pagerduty']),
  /** The alarm's name, or the PagerDuty service's name. */
  name: Id,
  /** The PagerDuty service's id (absent for alarms). */
  serviceId: Id.optional(),
  /** One incident: the alarm and the time it went into ALARM, or the PagerDuty incident id. */
  incidentKey: Id,
  /** `ALARM`, `OK`, `INSUFFICIENT_DATA`, or PagerDuty's event type (`incident.triggered`...). */
  state: Id,
  /** Whether this event opens an incident (ALARM, `incident.triggered`) rather than updating one. */
  opens: z.boolean(),
  /** `cloudwatch`, or `pagerduty:<agent id>` when a person acted. */
  user: Id,
  title: z.string(),
  text: z.string(),
  url: z.string().optional(),
  ts: Id,
});
export type InboxAlert = z.infer<typeof InboxAlert>;

export const InboxEnvelope = z.discriminatedUnion('kind', [
  InboxMessage,
  InboxSlashCommand,
  InboxAction,
  InboxGithubEvent,
  InboxAlert,
  InboxSurface,
]);
export type InboxEnvelope = z.infer<typeof InboxEnvelope>;

/**
 * What goes on the queue in place of an envelope too large for an SQS message: the envelope
 * itself is in the conversations table under `key`, and the Router reads it from there.
 */
export const InboxStoredEnvelope = z.object({
  kind: z.literal('stored'),
  eventId: Id,
  /** The envelope's kind, for logs. */
  storedKind: z.string(),
  bytes: z.number().int().positive(),
});
export type InboxStoredEnvelope = z.infer<typeof InboxStoredEnvelope>;

/** A record of the inbox: an envelope, or the reference to one kept in the table. */
export const InboxRecord = z.union([InboxEnvelope, InboxStoredEnvelope]);
export type InboxRecord = z.infer<typeof InboxRecord>;

/** Where envelopes too large for an SQS message wait for the Router. */
export interface EnvelopeStore {
  /** Stores the serialized envelope under its deduplication id; storing it again is harmless. */
  putEnvelope(deduplicationId: string, body: string): Promise<void>;
  /** The serialized envelope, read strongly consistent (the Router may read right after the put). */
  getEnvelope(deduplicationId: string): Promise<string | undefined>;
}

/** A reference on the inbox whose envelope is not (or no longer) in the table. */
export class StoredEnvelopeMissingError extends Error {
  override readonly name = 'StoredEnvelopeMissingError';
  constructor(readonly eventId: string) {
    super(`the envelope of event ${eventId} is not in the table`);
  }
}

/** The envelope a record stands for: itself, or the one its reference points at. */
export async function resolveInboxRecord(
  record: InboxRecord,
  envelopes: EnvelopeStore,
): Promise<InboxEnvelope> {
  if (record.kind !== 'stored') return record;
  const body = await envelopes.getEnvelope(deduplicationId(record));
  // Written before the reference was sent: missing means expired or deleted, and a retry
  // cannot bring it back, but the error lets the record reach the DLQ with its reason.
  if (body === undefined) throw new StoredEnvelopeMissingError(record.eventId);
  return InboxEnvelope.parse(JSON.parse(body));
}

/** SQS's message size limit (256 KiB) less room for the message's own attributes. */
export const INLINE_ENVELOPE_BYTES = 250 * 1024;
/**
 * The largest envelope accepted at all: it is stored in one DynamoDB item (400 KB), and so is
 * the message the Router stores from it. Larger requests are refused with 413.
 */
export const MAX_ENVELOPE_BYTES = 380 * 1000;

/**
 * The envelope as a message body: JSON, with the characters SQS refuses in a body (outside
 * XML 1.0: U+FFFE, U+FFFF; JSON.stringify already escapes controls and lone surrogates)
 * written as escapes, which JSON.parse reads back to the same text.
 */
export function serializeEnvelope(envelope: InboxEnvelope | InboxStoredEnvelope): string {
  return JSON.stringify(envelope).replace(
    /[\ufffe\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The conversation key of an envelope, before it is made a valid message group id. */
function conversationKey(envelope: InboxEnvelope): string {
  switch (envelope.kind) {
    case 'message':
      return `${envelope.channel}:${envelope.threadTs ?? envelope.ts}`;
    case 'action':
      return `${envelope.channel}:${envelope.threadTs ?? envelope.messageTs}`;
    case 'slash_command':
      return `${envelope.channel}:${envelope.command}:${envelope.user}`;
    case 'github':
      return `github:${envelope.repository}#${envelope.number}`;
    case 'alert':
      return `alert:${envelope.source}:${envelope.incidentKey}`;
    case 'surface':
      return surfaceKey(envelope);
  }
}

/**
 * The SQS message group: one per conversation key (a Slack thread, a GitHub issue, an
 * incident), so the Router sees a conversation's messages in order while different ones
 * proceed in parallel. Channel conversations (lambdas/channel) keep this grouping rather than
 * one group per channel: a thread's root and its replies must share a group, and per-channel
 * order is not needed for correctness there (messages sort by Slack ts, last activity only
 * moves forward, and conditional writes keep one conversation per channel and one answer per
 * message).
 */
export function messageGroupId(envelope: InboxEnvelope): string {
  return sqsId(conversationKey(envelope));
}

/** The deduplication id: the event id, made valid for SQS without merging two different ids. */
export function deduplicationId(envelope: Pick<InboxEnvelope, 'eventId'>): string {
  return sqsId(envelope.eventId);
}

/** What SQS allows in group and deduplication ids: 1-128 of these characters. */
const SQS_ID = /^[A-Za-z0-9!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]{1,128}$/;

/**
 * A valid SQS id for any key: the key itself when SQS allows it, otherwise a hash of it.
 * Deterministic, so a conversation keeps one group (and its order), and injective in practice:
 * unlike replacing bad characters, two keys that differ never share an id (`a b` and `a_b`).
 */
function sqsId(key: string): string {
  if (SQS_ID.test(key) && !key.startsWith('h~')) return key;
  // The `h~` prefix keeps a hash from ever equalling a key that was valid as it stood.
  return `h~${createHash('sha256').update(key, 'utf8').digest('base64url')}`;
}
