import type {
  ContentBlockParam,
  MessageParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import * as z from 'zod';
import type { AgentTurnInput } from './contract.ts';
import type { ToolUse } from './model-reply.ts';
import { type AgentProfile, submitToolOf } from './profile.ts';
import { toolError, toolResult } from './tool-results.ts';

/**
 * How a turn's result arrives: the model's call of its profile's final tool, accepted when it
 * matches the result schema and the profile's check, else answered with the errors to correct;
 * and the reminder a model gets when it has not submitted. Run by lambdas/agents/run-agent-turn.ts.
 */

/** Invalid submissions answered with the validation errors before the turn gives up. */
export const MAX_SUBMISSION_RETRIES = 2;

/** Replies without a submission after the reminder before the turn fails. */
export const ROUNDS_AFTER_REMINDER = 2;

/**
 * What the model is told when it has not submitted after `maxToolRounds` replies (or answered
 * in plain text), for a profile whose final tool is `tool`.
 */
export function submitNowNote(tool: string): string {
  return `[runtime] Call ${tool} now with what you have: this turn ends without a result otherwise.`;
}

/** Adds the reminder to submit to what the model reads next. */
export function remindToSubmit(content: ContentBlockParam[], submitTool: string): void {
  content.push({ type: 'text', text: submitNowNote(submitTool) });
}

/** Whether the runtime already reminded the model, in this turn, to submit. */
export function turnHasNudge(turn: readonly MessageParam[], submitTool: string): boolean {
  const note = submitNowNote(submitTool);
  return turn.some(
    (message) =>
      message.role === 'user' &&
      Array.isArray(message.content) &&
      message.content.some((block) => block.type === 'text' && block.text === note),
  );
}

/** The reply's first valid submission, with its result; undefined when it has none. */
export function acceptSubmission<Result>(
  profile: AgentProfile<Result, unknown>,
  input: AgentTurnInput,
  uses: readonly ToolUse[],
): { use: ToolUse; result: Result } | undefined {
  for (const use of uses) {
    if (use.name !== submitToolOf(profile)) continue;
    const parsed = profile.result.schema.safeParse(use.input);
    if (parsed.success && profile.check?.(parsed.data, input) === undefined)
      return { use, result: parsed.data };
  }
  return undefined;
}

/** The answers to a reply with an accepted submission: it is recorded, its other calls are not run. */
export function answersToSubmission(uses: readonly ToolUse[], accepted: ToolUse): ToolResultBlockParam[] {
  return uses.map((use) =>
    use === accepted
      ? toolResult(use.id, 'Result recorded. The turn is over.')
      : toolError(use.id, 'Not run: you submitted your result in the same reply.'),
  );
}

/** An invalid submission's errors, and the answer that asks the model to correct them. */
export function rejectSubmission<Result>(
  profile: AgentProfile<Result, unknown>,
  input: AgentTurnInput,
  use: ToolUse,
): { error: string; answer: ToolResultBlockParam } {
  const submitTool = submitToolOf(profile);
  const error = validationError(profile, input, use.input);
  const answer = toolError(
    use.id,
    `Your result does not match the schema of ${submitTool}:\n${error}\n` +
      `Correct these fields and call ${submitTool} again.`,
  );
  return { error, answer };
}

function validationError<Result>(
  profile: AgentProfile<Result, unknown>,
  input: AgentTurnInput,
  value: unknown,
): string {
  const parsed = profile.result.schema.safeParse(value);
  if (!parsed.success) return z.prettifyError(parsed.error);
  return profile.check?.(parsed.data, input) ?? 'no error';
}
