import * as z from 'zod';

/**
 * The evidence ledger: every telemetry tool result gets an id (`ev-<n>`,
 * unique in the conversation, in the order results were produced) that the model cites, and
 * a record of what was asked where, kept in the conversations table. The incident workflow
 * validates each finding's citations against `listEvidence` and drops what cites nothing real.
 *
 * The per-scope query budget lives here too: it is counted in the same table, atomically, so
 * parallel hypothesis iterations of one round cannot overrun it together.
 */

export const EvidenceId = z.string().regex(/^ev-[1-9]\d*$/, 'an evidence id such as ev-3');
export type EvidenceId = z.infer<typeof EvidenceId>;

export const EvidenceRecord = z.object({
  id: EvidenceId,
  /** The tool that produced it (`query_logs`...). */
  tool: z.string().min(1),
  /** Where the data came from: `cloudwatch-logs:/ecs/payment-api`, `cloudformation:payment-api-prod`, `config`... */
  source: z.string().min(1),
  /** The query as run (filter pattern, Insights query, metric names...), after narrowing. */
  query: z.string(),
  /** ISO 8601 bounds of the data; absent for configuration (the service map). */
  timeRange: z.object({ start: z.string(), end: z.string() }).optional(),
  /** The scope the query was counted in (`round-2:h3`), or `unscoped`. */
  scope: z.string().min(1),
  /** A short line on what the result showed (the model reads the full result in its transcript). */
  summary: z.string().max(1000),
  /** When it was recorded (ISO 8601). */
  at: z.string(),
});
export type EvidenceRecord = z.infer<typeof EvidenceRecord>;
export type EvidenceDraft = Omit<EvidenceRecord, 'id' | 'at'>;

/** The scope a query without `context.scope` is counted in. */
export const UNSCOPED = 'unscoped';

/** Whether a query could be counted in its scope, and how many the scope has used. */
export type QueryReservation = { granted: true; used: number } | { granted: false; used: number };

/** Where evidence and query budgets are kept (DynamoDB: dynamo-evidence-ledger.ts). */
export interface EvidenceLedger {
  /** Counts one query in `scope` unless it already has `limit`; atomic. */
  reserveQuery(conversationId: string, scope: string, limit: number): Promise<QueryReservation>;
  /** Stores a record under the conversation's next id and returns it. */
  record(conversationId: string, draft: EvidenceDraft): Promise<EvidenceRecord>;
  /** Every record of the conversation, oldest first. */
  listEvidence(conversationId: string): Promise<EvidenceRecord[]>;
}

/** What a citation check needs: the ids that exist, and the records by id. */
export async function evidenceIndex(
  ledger: Pick<EvidenceLedger, 'listEvidence'>,
  conversationId: string,
): Promise<Map<EvidenceId, EvidenceRecord>> {
  return new Map((await ledger.listEvidence(conversationId)).map((r) => [r.id, r]));
}

/** The line a tool result opens with, telling the model what to cite. */
export function evidenceHeader(record: EvidenceRecord): string {
  const range = record.timeRange ? `, ${record.timeRange.start} .. ${record.timeRange.end}` : '';
  return `Evidence ${record.id} (${record.tool}, ${record.source}${range}; scope ${record.scope}). Cite it as ${record.id}.`;
}
