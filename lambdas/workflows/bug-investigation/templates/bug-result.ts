import * as z from 'zod';

/**
 * What the bug templates read from a bug investigator's turn (`BugTurnOutput` in
 * lambdas/agents/contract.ts, or the stand-in result the workflow writes when a turn failed).
 * Deliberately lenient: a post must not fail because the agent's output grew a field, so
 * other fields are ignored and only what is shown is checked.
 */
export const BugResultView = z.object({
  summary: z.string(),
  rootCause: z.string().optional(),
  /** The root cause's primary location (`src/cart.ts:17`). */
  location: z.string().optional(),
  /** 0 to 100. */
  confidence: z.number().min(0).max(100).optional(),
  severity: z.string().optional(),
  fix: z
    .object({
      description: z.string(),
      pullRequestUrl: z.string().optional(),
      branch: z.string().optional(),
    })
    .optional(),
  /** Why the turn ended in an escalation by itself (a model or Lambda failure). */
  error: z.string().optional(),
});
export type BugResultView = z.infer<typeof BugResultView>;

const SEVERITY_EMOJI: Record<string, string> = {
  critical: ':red_circle:',
  high: ':large_orange_circle:',
  medium: ':large_yellow_circle:',
  low: ':white_circle:',
};

/** The severity as one word (`high`), or `unknown`: it is model output, so it is kept to a word. */
export function severityWord(severity: string | undefined): string {
  return severity?.replace(/[^a-z_-]/gi, '').slice(0, 20) || 'unknown';
}

/** `:large_orange_circle: high`, or `unknown` when the agent gave none. */
export function severityLabel(severity: string | undefined): string {
  const word = severityWord(severity);
  const emoji = SEVERITY_EMOJI[word];
  return emoji === undefined ? word : `${emoji} ${word}`;
}

export function confidenceLabel(confidence: number | undefined): string {
  return confidence === undefined ? 'unknown' : `${Math.round(confidence)}%`;
}
