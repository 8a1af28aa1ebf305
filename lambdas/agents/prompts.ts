import type { DrainedMessage } from '../kernel/drained-message.ts';
import type { SenderType } from '../kernel/model.ts';
import { peopleBlock } from '../kernel/people-text.ts';

/**
 * Prompt pieces every profile shares. People's messages enter prompts as data, in the one
 * structural form of people-text.ts: a JSON object per message, its sender's verified role
 * outside the text, so no text a person writes can pass for another message or for the
 * platform's words.
 */

/** A role as people read it: `developer` -> `Developer`, `on_call` -> `On call`. */
export function senderLabel(role: SenderType): string {
  const words = role.replace(/_/g, ' ');
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}`;
}

/** A turn's messages as they enter a prompt: the data header, then one line per message; empty when none. */
export function messageLines(messages: readonly DrainedMessage[]): string {
  return peopleBlock(messages);
}

/** Facts the workflow tells the agent (e.g. the reporter's wait timed out), appended to the turn's prompt. */
export function withNotes(prompt: string, notes: readonly string[]): string {
  if (notes.length === 0) return prompt;
  return `${prompt}\n\nNotes from the workflow:\n${notes.map((note) => `- ${note}`).join('\n')}`;
}
