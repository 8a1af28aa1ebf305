import * as z from 'zod';
import { DrainedMessage } from '../kernel/tasks.ts';

/**
 * The AgentTurn task's contract with the state machines. One AgentTurn Lambda serves every
 * agent role; the `profile` names the role module (system prompt, tools, output schema).
 * The output always carries `action`, which the workflow's Choice routes on, and the
 * session id the next turn resumes.
 */

export const AgentProfileName = z.enum([
  'bug_investigator',
  'requirements_clarifier',
  'prd_writer',
  'requirements_analyst',
]);
export type AgentProfileName = z.infer<typeof AgentProfileName>;

/** The bug investigation's states: each selects a prompt addition (seed 000, section 11). */
export const BugTurnState = z.enum(['investigating', 'awaiting_reporter', 'awaiting_dev']);
export type BugTurnState = z.infer<typeof BugTurnState>;

/** The requirements interview's agents (seed 004's `current_agent`, before `complete`). */
export const RequirementsTurnState = z.enum(['clarification', 'prd_generator', 'analysis']);
export type RequirementsTurnState = z.infer<typeof RequirementsTurnState>;

/** The conversation state the turn runs in, of whichever workflow runs it. */
export const TurnState = z.enum([...BugTurnState.options, ...RequirementsTurnState.options]);
export type TurnState = z.infer<typeof TurnState>;

export const AgentTurnInput = z.object({
  conversationId: z.string().min(1),
  profile: AgentProfileName,
  turn: z.number().int().positive(),
  /** The first turn builds the initial prompt; later turns the continuation prompt. */
  mode: z.enum(['initial', 'continuation']),
  state: TurnState,
  /** The session to resume (absent on the first turn). */
  sessionId: z.string().min(1).optional(),
  /** The messages Drain handed to this turn (small; the history tool has everything). */
  messages: z.array(DrainedMessage),
  /** Facts the workflow tells the agent, e.g. that the reporter did not answer in time. */
  notes: z.array(z.string()).default([]),
  /**
   * For a profile that reports its confidence (the requirements clarifier): the confidence
   * (0-100) below which it must ask questions.
   */
  confidenceThreshold: z.number().int().min(0).max(100).optional(),
});
export type AgentTurnInput = z.infer<typeof AgentTurnInput>;

export const BugAction = z.enum(['ask_reporter', 'post_findings', 'escalate', 'resolved', 'continue']);
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
  /** Why the turn became `escalate` on its own (model failures after retries), when it did. */
  error: z.string().max(2_000).optional(),
});
export type BugTurnOutput = z.infer<typeof BugTurnOutput>;

/** How an agent calls its tools (Lambdas in AWS and in the sandbox); output is text, size-capped by the caller. */
export interface ToolInvoker {
  invoke(tool: string, args: unknown, context: { conversationId: string }): Promise<string>;
}
