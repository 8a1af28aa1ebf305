import * as z from 'zod';
import { DrainedMessage } from '../kernel/drained-message.ts';
import { ToolContext } from '../tools/invocation.ts';

/**
 * The AgentTurn task's contract with the state machines. Each workflow deploys its own
 * AgentTurn function serving its own roles; the `profile` names one of them (system prompt,
 * tools, output schema). The output always carries `action`, which the workflow's Choice
 * routes on, and the session id the next turn resumes.
 */

export const AgentTurnInput = z.object({
  conversationId: z.string().min(1),
  /** The agent role, a key of the profiles the function serves (its workflow's). */
  profile: z.string().regex(/^[a-z][a-z0-9_]*$/),
  turn: z.number().int().positive(),
  /** The first turn builds the initial prompt; later turns the continuation prompt. */
  mode: z.enum(['initial', 'continuation']),
  /** The workflow state the turn runs in (each workflow names its own, e.g. `investigating`). */
  state: z.string().min(1),
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
  /**
   * What the turn's tools are told (the work branch, a scope): set by the state machine,
   * never by the model, and passed to every tool Lambda as `ToolInvocation.context`.
   */
  toolContext: ToolContext.optional(),
});
export type AgentTurnInput = z.infer<typeof AgentTurnInput>;

/** How an agent calls its tools (Lambdas in AWS and in the sandbox); output is text, size-capped by the caller. */
export interface ToolInvoker {
  invoke(
    tool: string,
    args: unknown,
    context: { conversationId: string; toolContext?: ToolContext },
  ): Promise<string>;
}

/**
 * Marked on a turn's output (with `action: continue`) when a person stopped it with Stop: the
 * workflow goes on to its wait for people instead of another turn.
 */
export const STOPPED_BY_PERSON_FIELD = 'stoppedByPerson';

/**
 * Marked on a turn's output, whatever its workflow, when the model refused the turn's call (an
 * HTTP error no retry can fix: a rejected key, an unknown model): the API's answer, without the
 * error's name. Every workflow ends the conversation as failed with it, the execution's error
 * `ModelCallError` and its cause this answer (statemachines/model-stops.ts).
 */
export const MODEL_ERROR_FIELD = 'modelError';
