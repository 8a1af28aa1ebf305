import { createHash } from 'node:crypto';

/**
 * Single-table keys. Messages sort by Slack ts within a conversation (I2: stored order =
 * Slack order); the channel suffix keeps messages of two channels with equal ts apart,
 * since a ts is unique only per channel.
 */
/** The parts of the key format that state machines build keys from (statemachines/kernel-records.ts). */
export const keyFormat = {
  /** Partition key prefix of a conversation's items. */
  conversationPrefix: 'CONV#',
  /** Sort key of the conversation's own record. */
  conversationSort: 'META',
} as const;

export const keys = {
  conversation: (conversationId: string) => ({
    pk: `${keyFormat.conversationPrefix}${conversationId}`,
    sk: keyFormat.conversationSort,
  }),
  message: (conversationId: string, ts: string, channel: string) => ({
    pk: `${keyFormat.conversationPrefix}${conversationId}`,
    sk: `MSG#${ts}#${channel}`,
  }),
  messagePrefix: 'MSG#',
  thread: (channel: string, threadTs: string) => ({ pk: `THREAD#${channel}#${threadTs}`, sk: 'THREAD' }),
  /** An inbox envelope too large for an SQS message, by its deduplication id (kernel/inbox.ts). */
  inboxEnvelope: (deduplicationId: string) => ({ pk: `INBOX#${deduplicationId}`, sk: 'ENVELOPE' }),
  /**
   * An item a workflow keeps beside its conversation (the incident investigation's record and
   * hypothesis nodes), sorted under `WF#<sort>`, apart from the kernel's own sort keys.
   */
  workflowItem: (conversationId: string, sort: string) => ({
    pk: `${keyFormat.conversationPrefix}${conversationId}`,
    sk: `WF#${sort}`,
  }),
  /** The sort key prefix of a conversation's workflow items (`workflowItem`), to query them. */
  workflowItemPrefix: 'WF#',
  /** The platform's model spend of one UTC day (`YYYY-MM-DD`), across conversations (agents/limits.ts). */
  dailySpend: (day: string) => ({ pk: `SPEND#${day}`, sk: 'SPEND' }),
  post: (conversationId: string, idempotencyKey: string) => ({
    pk: `${keyFormat.conversationPrefix}${conversationId}`,
    sk: `POST#${idempotencyKey}`,
  }),
  /** One evidence record of a workflow's data tools (`ev-<n>`), sorted by n. */
  evidence: (conversationId: string, n: number) => ({
    pk: `${keyFormat.conversationPrefix}${conversationId}`,
    sk: `EVIDENCE#${String(n).padStart(6, '0')}`,
  }),
  evidencePrefix: 'EVIDENCE#',
  /**
   * The values of one kind (`secret:aws-access-key`) the redaction layer replaced in the
   * conversation, as a bitmap of their placeholders' tags, so the ledger counts each value once.
   */
  redactionsSeen: (conversationId: string, kind: string) => ({
    pk: `${keyFormat.conversationPrefix}${conversationId}`,
    sk: `REDACTED#${kind}`,
  }),
  /** The conversation's evidence counter: the last `n` handed out. */
  evidenceCounter: (conversationId: string) => ({
    pk: `${keyFormat.conversationPrefix}${conversationId}`,
    sk: 'EVIDENCE_COUNTER',
  }),
  /** Queries run in one scope (e.g. `round-2:h3`; the ToolContext refuses `/`), counted against the per-scope limit. */
  queryBudget: (conversationId: string, scope: string) => ({
    pk: `${keyFormat.conversationPrefix}${conversationId}`,
    sk: `QUERIES#${scope}`,
  }),
  /**
   * A checks build's results on a repository's commit (a base commit the workflows' changes
   * are judged against), cached per commit: the same commit builds the same way.
   */
  buildBaseline: (repository: string, sha: string) => ({ pk: `BASELINE#${repository}`, sk: `SHA#${sha}` }),
  /**
   * A GitHub comment (or review) of a repository whose author was refused, by its own id
   * (`github-comment:<id>`): every later version of it is refused too. GitHub's repository
   * names ignore case, so the key does.
   */
  refusedSource: (repository: string, sourceId: string) => ({
    pk: `REFUSED#${repository.toLowerCase()}`,
    sk: `SOURCE#${sourceId}`,
  }),
} as const;

/**
 * The longest conversation id: an execution name may have 80 characters, and a conversation's
 * later executions and children are named `<conversation id>-<turn>` (continue-as-new, SLA
 * tracking), so the id leaves room for a dash and a turn of up to 7 digits.
 */
const MAX_CONVERSATION_ID_LENGTH = 72;

/** Hex digits of the SHA-256 kept in a digested id: 96 bits, collision-free in practice. */
const DIGEST_HEX_DIGITS = 24;

/** A channel that maps to itself in an id, with no dash to blur where it ends: a Slack channel id. */
const PLAIN_CHANNEL = /^[A-Za-z0-9_]+$/;
/**
 * An origin whose only change is dots becoming dashes, which loses nothing when it holds no dash:
 * a Slack ts (`1700000000.000100`), a trigger id (`13345224609.738474920.8ee9...`), a number.
 */
const PLAIN_ORIGIN = /^[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*$/;

/**
 * A conversation id that is also a valid, deterministic execution name (letters, digits, `-`
 * and `_`, at most `MAX_CONVERSATION_ID_LENGTH`): the same origin always yields the same id, so
 * a redelivered start is rejected by Step Functions as `ExecutionAlreadyExists`.
 *
 * Two different origins never share an id. A Slack thread (channel id + ts) reads as itself,
 * `bug-investigation-C0123-1700000000-000100`, since turning the dots of a dashless id into
 * dashes loses nothing. Any other origin (a GitHub issue `github:owner/repo` + number, an alarm's ARN, a
 * PagerDuty incident) loses characters when made safe, and may be long: its id is a readable
 * head followed by a SHA-256 digest of the whole origin, so ids that share a long prefix, or
 * differ only in a character made safe (`a.b` and `a-b`), stay apart.
 */
export function conversationIdFor(workflow: string, channel: string, originId: string): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '-');
  const readable = `${safe(workflow).replace(/_/g, '-')}-${safe(channel)}-${safe(originId)}`;
  const exact = PLAIN_CHANNEL.test(channel) && PLAIN_ORIGIN.test(originId);
  if (exact && readable.length <= MAX_CONVERSATION_ID_LENGTH) return readable;
  const digest = digestOf([workflow, channel, originId]);
  const head = readable.slice(0, MAX_CONVERSATION_ID_LENGTH - DIGEST_HEX_DIGITS - 1).replace(/-+$/, '');
  return `${head}-${digest}`;
}

/**
 * The hex SHA-256 digest (first `DIGEST_HEX_DIGITS` digits) of parts joined without ambiguity
 * (as a JSON array, so `["a-b","c"]` and `["a","b-c"]` differ).
 */
export function digestOf(parts: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(parts), 'utf8').digest('hex').slice(0, DIGEST_HEX_DIGITS);
}
