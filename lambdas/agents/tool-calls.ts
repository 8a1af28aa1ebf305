import type { ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import type { AgentTurnInput } from './contract.ts';
import type { ToolUse } from './model-reply.ts';
import type { AgentTurnDeps } from './ports.ts';
import { capToolOutput, toolError, toolResult } from './tool-results.ts';

/**
 * One tool call of a turn, and who hears of it: whatever goes wrong in a tool or a listener
 * becomes something the model or the log reads, never a failed turn.
 */

/** Hears a turn's tool calls; whatever it throws is logged, never fails the turn. */
export interface ToolCallListener {
  toolStarted(use: ToolUse): void;
  toolFinished(use: ToolUse, result: { output: string; failed: boolean }): void;
}

/** Runs one tool call. Whatever goes wrong becomes an `is_error` result the model reads; the loop goes on. */
export async function callTool(
  use: ToolUse,
  known: ReadonlySet<string>,
  submitTool: string,
  input: AgentTurnInput,
  deps: AgentTurnDeps,
  log: NonNullable<AgentTurnDeps['logger']>,
): Promise<ToolResultBlockParam> {
  if (!known.has(use.name)) {
    log.warn('the model asked for an unknown tool', { tool: use.name });
    return toolError(
      use.id,
      `Unknown tool "${use.name}". The tools you have are: ${[...known, submitTool].join(', ')}.`,
    );
  }
  try {
    const output = await deps.tools.invoke(use.name, use.input, {
      conversationId: input.conversationId,
      ...(input.toolContext === undefined ? {} : { toolContext: input.toolContext }),
    });
    return toolResult(use.id, capToolOutput(output));
  } catch (error) {
    log.error('tool call failed', { tool: use.name, error });
    return toolError(use.id, `${use.name} failed: ${describe(error)}`);
  }
}

export function hear(tell: () => void, log: NonNullable<AgentTurnDeps['logger']>): void {
  try {
    tell();
  } catch (error) {
    log.warn('a tool-call listener failed', { error });
  }
}

export function outcomeOf(result: ToolResultBlockParam): { output: string; failed: boolean } {
  const output =
    typeof result.content === 'string'
      ? result.content
      : (result.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('\n');
  return { output, failed: result.is_error === true };
}

/** An error as one line the model or a person reads. */
export function describe(error: unknown): string {
  if (error instanceof Error)
    return error.name === 'Error' ? error.message : `${error.name}: ${error.message}`;
  return String(error);
}
