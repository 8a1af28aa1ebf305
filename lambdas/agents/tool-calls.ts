import type { ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { type RedactionCounts, type Redactor, redactedForLog, redactedValuesIn } from '../redaction/index.ts';
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
  toolFinished(use: ToolUse, result: ToolOutcome): void;
}

/** How a tool call ended: its output as the model reads it, and the values redacted in it. */
export interface ToolOutcome {
  output: string;
  failed: boolean;
  /**
   * Values the output holds redacted, by `family:kind`: its distinct placeholders, whether this
   * call's door made them or an earlier one did (a stored message read back); never the values.
   */
  redacted: RedactionCounts;
}

/**
 * Runs one tool call. Whatever goes wrong becomes an `is_error` result the model reads; the
 * loop goes on. Every result, an error's text too, passes the redaction layer before it enters
 * the transcript: this is where logs, files, diffs, issues and alert payloads reach a prompt.
 * The whole output is redacted before it is cut to size, so a secret on the cut is still seen whole.
 */
export async function callTool(
  use: ToolUse,
  known: ReadonlySet<string>,
  submitTool: string,
  input: AgentTurnInput,
  deps: AgentTurnDeps & { redactor: Redactor },
  log: NonNullable<AgentTurnDeps['logger']>,
): Promise<{ block: ToolResultBlockParam; redacted: RedactionCounts }> {
  if (!known.has(use.name)) {
    log.warn('the model asked for an unknown tool', { tool: use.name });
    const text = `Unknown tool "${use.name}". The tools you have are: ${[...known, submitTool].join(', ')}.`;
    return { block: toolError(use.id, text), redacted: {} };
  }
  let output: string;
  let failed = false;
  try {
    output = await deps.tools.invoke(use.name, use.input, {
      conversationId: input.conversationId,
      ...(input.toolContext === undefined ? {} : { toolContext: input.toolContext }),
    });
  } catch (error) {
    // A tool's error may quote what it read (an MCP server's or an API's answer): redacted as the prompt's is.
    log.error('tool call failed', {
      tool: use.name,
      error: await redactedForLog(error, input.conversationId),
    });
    output = `${use.name} failed: ${describe(error)}`;
    failed = true;
  }
  const { text } = await deps.redactor.redact(output);
  const capped = capToolOutput(text);
  return {
    block: failed ? toolError(use.id, capped) : toolResult(use.id, capped),
    redacted: redactedValuesIn(capped),
  };
}

export function hear(tell: () => void, log: NonNullable<AgentTurnDeps['logger']>): void {
  try {
    tell();
  } catch (error) {
    log.warn('a tool-call listener failed', { error });
  }
}

export function outcomeOf(result: ToolResultBlockParam, redacted: RedactionCounts = {}): ToolOutcome {
  const output =
    typeof result.content === 'string'
      ? result.content
      : (result.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('\n');
  return { output, failed: result.is_error === true, redacted };
}

/** An error as one line the model or a person reads. */
export function describe(error: unknown): string {
  if (error instanceof Error)
    return error.name === 'Error' ? error.message : `${error.name}: ${error.message}`;
  return String(error);
}
