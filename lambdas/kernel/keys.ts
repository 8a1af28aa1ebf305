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
  /** One evidence record of the telemetry tools (`ev-<n>`), sorted by n (lambdas/tools/telemetry/evidence.ts). */
  evidence: (conversationId: string, n: number) => ({
    pk: `${keyFormat.conversationPrefix}${conversationId}`,
    sk: `EVIDENCE#${String(n).padStart(6, '0')}`,
  }),
  evidencePrefix: 'EVIDENCE#',
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
} as const;

/**
 * A conversation id that is also a valid, deterministic execution name (1-80 characters of
 * letters, digits, `-` and `_`): the same Slack message always yields the same id, so a
 * redelivered start is rejected by Step Functions as `ExecutionAlreadyExists`.
 */
export function conversationIdFor(workflow: string, channel: string, originId: string): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '-');
  return `${safe(workflow).replace(/_/g, '-')}-${safe(channel)}-${safe(originId)}`.slice(0, 80);
}
