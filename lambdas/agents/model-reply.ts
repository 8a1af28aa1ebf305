import type { ContentBlockParam } from '@anthropic-ai/sdk/resources/messages';
import * as z from 'zod';
import type { Ledger } from '../kernel/model.ts';
import { MalformedModelReplyError } from './errors.ts';

/**
 * Reads a Messages API reply. The SDK returns whatever JSON the server sent, unchecked, so
 * the runtime checks the parts it relies on here: a reply it cannot use is a
 * `MalformedModelReplyError`, never a crash further down.
 */

const TextBlock = z.object({ type: z.literal('text'), text: z.string() });
const ToolUseBlock = z.object({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.unknown(),
});
export type ToolUse = z.infer<typeof ToolUseBlock>;

const Count = z.number().int().nonnegative();
const Usage = z.object({
  input_tokens: Count.catch(0),
  output_tokens: Count.catch(0),
  cache_read_input_tokens: Count.nullish().catch(0),
  cache_creation_input_tokens: Count.nullish().catch(0),
});

const Reply = z.object({
  content: z.array(z.looseObject({ type: z.string() })),
  stop_reason: z.string().nullish(),
});

export interface ModelReply {
  /** The reply's blocks as the transcript keeps them (text and tool calls). */
  blocks: ContentBlockParam[];
  toolUses: ToolUse[];
  /** The reply's text, if it wrote any (the turn's progress so far). */
  text: string | undefined;
  stopReason: string | undefined;
}

export function readReply(message: unknown): ModelReply {
  const parsed = Reply.safeParse(message);
  if (!parsed.success) {
    throw new MalformedModelReplyError('the model API answered with something that is not a message', {
      cause: parsed.error,
    });
  }
  const blocks: ContentBlockParam[] = [];
  const toolUses: ToolUse[] = [];
  const texts: string[] = [];
  for (const block of parsed.data.content) {
    if (block.type === 'text') {
      const text = TextBlock.safeParse(block);
      if (!text.success) throw new MalformedModelReplyError('the model sent a malformed text block');
      if (text.data.text.trim() === '') continue;
      texts.push(text.data.text);
      blocks.push({ type: 'text', text: text.data.text });
    } else if (block.type === 'tool_use') {
      const toolUse = ToolUseBlock.safeParse(block);
      if (!toolUse.success) throw new MalformedModelReplyError('the model sent a malformed tool call');
      toolUses.push(toolUse.data);
      blocks.push({
        type: 'tool_use',
        id: toolUse.data.id,
        name: toolUse.data.name,
        input: toolUse.data.input,
      });
    }
    // Other block types (thinking, server tools) are not enabled for agent turns.
  }
  return {
    blocks,
    toolUses,
    text: texts.length > 0 ? texts.join('\n') : undefined,
    stopReason: parsed.data.stop_reason ?? undefined,
  };
}

/** The reply's token usage as ledger fields; input counts every uncached input token, cache writes included. */
export function usageOf(message: unknown): Partial<Ledger> {
  const usage = Usage.safeParse((message as { usage?: unknown } | null)?.usage);
  if (!usage.success) return {};
  return {
    inputTokens: usage.data.input_tokens + (usage.data.cache_creation_input_tokens ?? 0),
    outputTokens: usage.data.output_tokens,
    cacheReadTokens: usage.data.cache_read_input_tokens ?? 0,
    cacheWriteTokens: usage.data.cache_creation_input_tokens ?? 0,
  };
}
