import type {
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages';
import { toInputSchema } from '../tools/invocation.ts';
import { type AgentProfile, submitToolOf } from './profile.ts';

/**
 * Builds one Messages API request of a turn: the profile's system prompt and tools, the
 * `submit_result` tool, and the session's transcript followed by this turn's messages.
 *
 * Prompt caching marks the stable prefix with `cache_control` (at most 4 breakpoints): the
 * tools, the system prompt, the last message of the resumed transcript (the same on every
 * call of the turn), and the newest message (so each call of the tool loop reads the
 * previous one's prefix from the cache). Stored transcripts never carry markers: they are
 * set on copies here, so old markers cannot pile up past the API's limit.
 */

export const MAX_OUTPUT_TOKENS = 8_192;

const EPHEMERAL = { type: 'ephemeral' } as const;

const submitTools = new WeakMap<object, Tool>();

function submitTool(profile: AgentProfile<unknown, unknown>): Tool {
  let tool = submitTools.get(profile);
  if (!tool) {
    tool = {
      name: submitToolOf(profile),
      description: profile.result.description,
      input_schema: toInputSchema(profile.result.schema) as Tool['input_schema'],
    };
    submitTools.set(profile, tool);
  }
  return tool;
}

export function buildRequest(options: {
  modelId: string;
  profile: AgentProfile<unknown, unknown>;
  /** The resumed session's transcript (earlier turns). */
  history: readonly MessageParam[];
  /** This turn's messages so far, starting with its prompt. */
  turn: readonly MessageParam[];
}): MessageCreateParamsNonStreaming {
  const { profile } = options;
  const tools: Tool[] = [
    ...profile.tools.map(
      (tool): Tool => ({
        name: tool.name,
        description: tool.description,
        input_schema: tool.inputSchema as Tool['input_schema'],
      }),
    ),
    { ...submitTool(profile), cache_control: EPHEMERAL },
  ];
  const history = options.history.map(unmarked);
  const turn = options.turn.map(unmarked);
  markLastBlock(history.at(-1));
  markLastBlock(turn.at(-1));
  return {
    model: options.modelId,
    max_tokens: MAX_OUTPUT_TOKENS,
    system: [{ type: 'text', text: profile.system, cache_control: EPHEMERAL }],
    tools,
    // Every reply calls a tool: a real one, or submit_result to end the turn. A reply of
    // plain text would leave the workflow without an action.
    tool_choice: { type: 'any' },
    messages: mergeConsecutiveRoles([...history, ...turn]),
  };
}

type Blocks = { role: 'user' | 'assistant'; content: ContentBlockParam[] };

/** A copy of the message with its content as blocks, without cache markers. */
function unmarked(message: MessageParam): Blocks {
  const role = message.role === 'assistant' ? 'assistant' : 'user';
  if (typeof message.content === 'string')
    return { role, content: [{ type: 'text', text: message.content }] };
  return {
    role,
    content: message.content.map((block) => {
      if (!('cache_control' in block)) return { ...block };
      const { cache_control: _marker, ...rest } = block;
      return rest as ContentBlockParam;
    }),
  };
}

function markLastBlock(message: Blocks | undefined): void {
  const last = message?.content.at(-1);
  if (last && last.type !== 'thinking' && last.type !== 'redacted_thinking') {
    (last as { cache_control?: unknown }).cache_control = EPHEMERAL;
  }
}

/**
 * A turn's prompt follows the previous turn's closing tool results: both are user
 * messages, sent as one (tool results first, as the API requires).
 */
function mergeConsecutiveRoles(messages: Blocks[]): MessageParam[] {
  const merged: Blocks[] = [];
  for (const message of messages) {
    const previous = merged.at(-1);
    if (previous && previous.role === message.role) previous.content.push(...message.content);
    else merged.push({ role: message.role, content: [...message.content] });
  }
  return merged;
}
