import type { ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';

/** Characters of one tool output that enter the transcript (tool output is size-capped). */
const TOOL_OUTPUT_LIMIT = 20_000;

/** Cuts a tool's output to `limit` characters, saying so, never inside a surrogate pair. */
export function capToolOutput(output: string, limit = TOOL_OUTPUT_LIMIT): string {
  if (output.length <= limit) return output;
  let keep = limit;
  const last = output.charCodeAt(keep - 1);
  if (last >= 0xd800 && last <= 0xdbff) keep -= 1;
  return `${output.slice(0, keep)}\n\n[output truncated: the first ${keep} of ${output.length} characters are shown]`;
}

export function toolResult(toolUseId: string, content: string): ToolResultBlockParam {
  return { type: 'tool_result', tool_use_id: toolUseId, content };
}

export function toolError(toolUseId: string, content: string): ToolResultBlockParam {
  return { type: 'tool_result', tool_use_id: toolUseId, content, is_error: true };
}
