import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { blocksOf } from './messages-wire.ts';

/** What the offline demo model's agents (demo-model.ts, demo-requirements.ts) share. */

/** Starts everything the demo model writes, so nobody takes it for a real model's work. */
export const DEMO_LABEL = '[offline demo model]';

export const labelled = (text: string) => `${DEMO_LABEL} ${text}`;

/** A Slack message as a prompt shows it: `- [Requester <@U1>]: text`. */
export type PromptLine = { sender: string; senderId: string; text: string };

/**
 * `- [Reporter <@U1>]: text` lines of a prompt (lambdas/agents/prompts.ts), with a message's
 * own line breaks, which the prompt indents by two spaces.
 */
const PROMPT_LINE = /^- \[(\w+) <@([^>]+)>\]: (.*(?:\n {2}.*)*)$/gm;

export function promptLines(text: string): PromptLine[] {
  return [...text.matchAll(PROMPT_LINE)].map((match) => ({
    sender: match[1] ?? '',
    senderId: match[2] ?? '',
    text: (match[3] ?? '').replace(/\n {2}/g, '\n'),
  }));
}

/** The runtime's notes in a transcript (`[runtime] This turn ran out of its budget...`). */
export function isRuntimeNote(text: string): boolean {
  return text.startsWith('[runtime]');
}

/** The texts of the request's user messages, oldest first, without the runtime's notes. */
export function userTexts(request: MessageCreateParamsNonStreaming): string[] {
  return request.messages.flatMap((message) =>
    message.role !== 'user'
      ? []
      : blocksOf(message).flatMap((block) =>
          block.type === 'text' && !isRuntimeNote(block.text) ? [block.text] : [],
        ),
  );
}

/** The text on one line, cut to `max` characters. */
export function excerpt(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
