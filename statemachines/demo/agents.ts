import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { SUBMIT_TOOL } from '../../lambdas/agents/profile.ts';
import type { MessageReply } from './reply.ts';

/**
 * A workflow's agents as the offline demo model plays them (a module's `demoAgents`): each
 * agent profile with its rules, an answer to one Messages API request. The demo model tells the
 * agents apart by the request's system prompt, the profile's.
 */

/** One agent's rules: its answer to a request whose system prompt is its profile's. */
export type DemoPlay = (request: MessageCreateParamsNonStreaming) => MessageReply;

/** One agent the demo plays: its profile's system prompt and its rules. */
export interface DemoAgent {
  readonly system: string;
  readonly play: DemoPlay;
}

/** A module's demo agents, by profile name. */
export type DemoAgents = Readonly<Record<string, DemoAgent>>;

/** The demo agents of `profiles`, each with its rules: a profile without rules fails `tsc`. */
export function playing<P extends Readonly<Record<string, { readonly system: string }>>>(
  profiles: P,
  plays: { readonly [K in keyof P]: DemoPlay },
): DemoAgents {
  return Object.fromEntries(
    Object.entries(profiles).map(([name, { system }]) => [name, { system, play: plays[name as keyof P] }]),
  );
}

let toolUseCounter = 0;
/** The id of the demo's next tool call. */
function nextToolUseId(): string {
  toolUseCounter += 1;
  return `toolu_demo_${String(toolUseCounter).padStart(6, '0')}`;
}

/** A turn that calls one tool. */
export function callTool(name: string, input: unknown): MessageReply {
  return {
    kind: 'message',
    content: [{ type: 'tool_use', id: nextToolUseId(), name, input }],
    stopReason: 'tool_use',
  };
}

/** Ends the turn with `submit_result`; the turn checks the result against the profile's schema. */
export function submitResult(result: unknown): MessageReply {
  return callTool(SUBMIT_TOOL, result);
}
