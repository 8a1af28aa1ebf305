import type { ContentBlockParam } from '@anthropic-ai/sdk/resources/messages';
import type { Redactor } from '../redaction/index.ts';
import type { AgentTurnInput } from './contract.ts';
import type { ToolUse } from './model-reply.ts';
import type { AgentTurnDeps } from './ports.ts';
import { type AgentProfile, submitToolOf } from './profile.ts';
import { rejectSubmission } from './submissions.ts';
import { callTool, hear, outcomeOf, type ToolCallListener } from './tool-calls.ts';
import { toolError } from './tool-results.ts';

/**
 * One round of a turn's tool loop (lambdas/agents/run-agent-turn.ts): the calls of a reply that
 * submitted no valid result, each run within the turn's tool-call cap and time, or answered with
 * why it was not run; an invalid submission among them is answered with its errors. The turn
 * decides from what the round says whether it goes on.
 */

/** A round's answers, in the order of the calls, and what ended it short. */
export interface ToolRound {
  results: ContentBlockParam[];
  /** The errors of the reply's invalid submission, when it made one. */
  submissionError: string | undefined;
  /** The budget that ran out (a call was not run for it), when one did. */
  outOfBudget: string | undefined;
}

/** What a round reads from its turn; `stats.toolCalls` counts the calls it runs. */
export interface ToolRoundTurn<Result> {
  profile: AgentProfile<Result, unknown>;
  input: AgentTurnInput;
  toolNames: ReadonlySet<string>;
  stats: { toolCalls: number };
  remainingMs: () => number;
  deps: AgentTurnDeps & { redactor: Redactor; toolCalls?: ToolCallListener };
  log: NonNullable<AgentTurnDeps['logger']>;
}

export async function runToolRound<Result>(
  uses: readonly ToolUse[],
  turn: ToolRoundTurn<Result>,
): Promise<ToolRound> {
  const { profile, input, stats, deps, log } = turn;
  const submitTool = submitToolOf(profile);
  const results: ContentBlockParam[] = [];
  let submissionError: string | undefined;
  let outOfBudget: string | undefined;
  for (const use of uses) {
    if (use.name === submitTool) {
      const rejected = rejectSubmission(profile, input, use);
      submissionError = rejected.error;
      results.push(rejected.answer);
      continue;
    }
    if (stats.toolCalls >= deps.budget.maxToolCalls) {
      outOfBudget = `tool-call cap of ${deps.budget.maxToolCalls}`;
      results.push(toolError(use.id, `Not run: this turn reached its ${outOfBudget}.`));
      continue;
    }
    if (turn.remainingMs() <= 0) {
      outOfBudget = 'time budget';
      results.push(toolError(use.id, 'Not run: this turn ran out of time.'));
      continue;
    }
    stats.toolCalls += 1;
    hear(() => deps.toolCalls?.toolStarted(use), log);
    const { block, redacted } = await callTool(use, turn.toolNames, submitTool, input, deps, log);
    hear(() => deps.toolCalls?.toolFinished(use, outcomeOf(block, redacted)), log);
    results.push(block);
  }
  return { results, submissionError, outOfBudget };
}
