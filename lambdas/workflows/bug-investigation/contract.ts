import * as z from 'zod';

/** The bug investigation's agent contract: its turn states and the investigator's output. */

/** The bug investigation's states: each selects a prompt addition. */
export const BugTurnState = z.enum(['investigating', 'awaiting_reporter', 'awaiting_dev']);
export type BugTurnState = z.infer<typeof BugTurnState>;

export const BugAction = z.enum([
  'ask_reporter',
  'post_findings',
  'escalate',
  'resolved',
  'continue',
  /** A developer asked for a fix: the workflow checks who asked, then runs the fix path. */
  'fix_requested',
]);
export type BugAction = z.infer<typeof BugAction>;

export const Severity = z.enum(['low', 'medium', 'high', 'critical']);
export type Severity = z.infer<typeof Severity>;

/** A code location as the investigator names it: `src/cart.ts:17` or `src/cart.ts:15-19`. */
export const LOCATION = /^[A-Za-z0-9_./-]+:\d+(?:-\d+)?$/;
/** The most lines a location's range may span: a wider range is no location. */
export const MAX_LOCATION_LINES = 15;

/** The number of lines `file:from-to` spans (1 for `file:line`), undefined when it is no location. */
export function locationSpan(location: string): number | undefined {
  const m = /:(\d+)(?:-(\d+))?$/.exec(location);
  if (!LOCATION.test(location) || !m) return undefined;
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  return to >= from ? to - from + 1 : undefined;
}

/** What a bug investigator's turn returns to the state machine (texts capped to keep the payload small). */
export const BugTurnOutput = z.object({
  action: BugAction,
  sessionId: z.string().min(1),
  summary: z.string().max(3_000),
  rootCause: z.string().max(3_000).optional(),
  /** The root cause's primary location, `file:line` or `file:from-to` (at most 15 lines). */
  location: z.string().max(300).optional(),
  /** 0 to 100. */
  confidence: z.number().int().min(0).max(100),
  severity: Severity,
  clarificationQuestion: z.string().max(2_000).optional(),
  fix: z
    .object({
      description: z.string().max(2_000),
      pullRequestUrl: z.string().optional(),
      branch: z.string().optional(),
    })
    .optional(),
  /**
   * With `fix_requested`: the id (Slack ts) of the message, or the "Fix it" press, that asked
   * for the fix. "Check fix request" verifies its sender; nothing else of the turn counts.
   */
  fixRequest: z.string().max(100).optional(),
  /** Why the turn became `escalate` on its own (model failures after retries), when it did. */
  error: z.string().max(2_000).optional(),
  /**
   * The model's answer when it refused the turn's call (a rejected key, an unknown model), as
   * the agent runtime marks every workflow's output (`MODEL_ERROR_FIELD`): no developer can take
   * that over, so the workflow tells the reporter and ends as failed.
   */
  modelError: z.string().max(2_000).optional(),
});
export type BugTurnOutput = z.infer<typeof BugTurnOutput>;
