import * as z from 'zod';

/** What the incident investigation's results share: texts, categories, cited findings, the turn's output. */

/** A trimmed, non-empty text of at most `max` characters. */
export const Text = (max: number) => z.string().trim().min(1).max(max);

export const Category = z.enum(['infrastructure', 'application', 'dependency', 'configuration', 'capacity']);
export type Category = z.infer<typeof Category>;

/** A finding and the evidence ids (from the data tools' results) it rests on. */
export const CitedFinding = z.strictObject({
  finding: Text(500),
  evidence_ids: z.array(Text(100)).max(10),
  strength: z.enum(['strong', 'weak', 'contradicting']),
});
export type CitedFinding = z.infer<typeof CitedFinding>;

/** The output of an incident agent turn: `submitted` with its result, or the kernel's `continue` / `escalate`. */
export function incidentTurnOutput<R extends z.ZodType>(result: R) {
  return z.object({
    action: z.enum(['submitted', 'continue', 'escalate']),
    sessionId: z.string().min(1),
    result: result.optional(),
    error: z.string().optional(),
    /** With `escalate`: the limit held by code that stopped the turn, in words for people. */
    stoppedBy: z.string().optional(),
    /** With `continue`: a person stopped the turn (Stop). */
    stoppedByPerson: z.literal(true).optional(),
    progress: z.string().optional(),
  });
}
export type IncidentTurnOutput<R> = {
  action: 'submitted' | 'continue' | 'escalate';
  sessionId: string;
  result?: R;
  error?: string;
  stoppedBy?: string;
  stoppedByPerson?: true;
  progress?: string;
};
