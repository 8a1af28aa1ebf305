import type * as z from 'zod';
import type { ToolSpec } from '../tools/invocation.ts';
import type { AgentProfileName, AgentTurnInput } from './contract.ts';

/**
 * A role profile (DESIGN 3.4): the system prompt, the tools, the prompts of each turn, and
 * the structured result, which the model sends as the input of the final `submit_result`
 * tool. One module per role under `profiles/`; the runtime in `run-agent-turn.ts` is shared.
 */

/** The final tool every profile gets; its input schema is the profile's result schema. */
export const SUBMIT_TOOL = 'submit_result';

/** How a turn ended without a valid submission. */
export type UnfinishedTurn =
  /** The time budget or the tool-call cap ran out: the workflow runs another turn. */
  | { kind: 'out_of_budget'; reason: string; progress: string | undefined }
  /** A failure after retries: the workflow escalates to people. */
  | { kind: 'failed'; error: string; progress: string | undefined };

export interface AgentProfile<Result, Output> {
  name: AgentProfileName;
  system: string;
  /** The tools offered to the model (each a Lambda, which validates its own arguments). */
  tools: readonly ToolSpec[];
  result: { schema: z.ZodType<Result>; description: string };
  /**
   * A check of a schema-valid result against the turn's input (e.g. questions required below
   * the confidence threshold): a message rejects it, and the model corrects it like a schema error.
   * @default - every schema-valid result is accepted
   */
  check?(result: Result, input: AgentTurnInput): string | undefined;
  /** The user message that opens the turn (initial or continuation, by `input.mode`). */
  prompt(input: AgentTurnInput): string;
  /** The task output of a turn that ended with a valid submission. */
  output(result: Result, sessionId: string): Output;
  /** The task output of a turn that did not: always a value the workflow's Choice knows. */
  unfinished(end: UnfinishedTurn, sessionId: string): Output;
  /** The task output's schema, checked before the turn returns. */
  outputSchema: z.ZodType<Output>;
}
