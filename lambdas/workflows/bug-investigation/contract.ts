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

/** What a bug investigator's turn returns to the state machine (texts capped to keep the payload small). */
export const BugTurnOutput = z.object({
  action: BugAction,
  sessionId: z.string().min(1),
  summary: z.string().max(3_000),
  rootCause: z.string().max(3_000).optional(),
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
});
export type BugTurnOutput = z.infer<typeof BugTurnOutput>;
