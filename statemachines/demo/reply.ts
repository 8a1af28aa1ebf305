import type {
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';

/**
 * What a model's answer is, and how a request's messages read, in the Anthropic Messages API's
 * terms: shared by the sandbox's model servers (local/model/messages-wire.ts sends these) and
 * the workflows' demo agents, which answer with them.
 */

export type ReplyBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown };

export interface UsageCounts {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

export type ModelReply =
  | {
      kind: 'message';
      content: ReplyBlock[];
      stopReason: 'end_turn' | 'tool_use' | 'max_tokens' | 'refusal';
      usage?: Partial<UsageCounts>;
    }
  /** An HTTP error with the API's error body (`{type:'error', error:{type, message}}`). */
  | {
      kind: 'error';
      status: number;
      errorType: string;
      message: string;
      shouldRetry?: boolean;
      /** Sent as `retry-after` (seconds), in place of the short `retry-after-ms` of scripted failures. */
      retryAfterSeconds?: number;
    }
  /** Anything else, byte for byte (a malformed answer). */
  | { kind: 'raw'; status: number; contentType: string; body: string };

export type MessageReply = Extract<ModelReply, { kind: 'message' }>;

export function blocksOf(message: MessageParam | undefined): ContentBlockParam[] {
  if (!message) return [];
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

/** A tool result's content as text. */
export function toolResultText(result: ToolResultBlockParam): string {
  if (typeof result.content === 'string') return result.content;
  return (result.content ?? []).flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
}

/** The system prompt as text. */
export function systemText(request: MessageCreateParamsNonStreaming): string {
  const system = request.system;
  if (system === undefined) return '';
  return typeof system === 'string' ? system : system.map((block) => block.text).join('\n');
}
