import type { SenderType } from '../kernel/model.ts';
import { indentSenderText } from '../kernel/sender-text.ts';
import type { DrainedMessage } from '../kernel/tasks.ts';

/**
 * Prompt pieces every profile shares. Slack users' messages enter prompts as data: each is
 * one line labelled with the sender's type and Slack id, and a message's own line breaks are
 * indented, so no text a user writes can pass for another labelled line (DESIGN 3.4).
 */

/** A role as the prompt labels it: `developer` -> `Developer`, `on_call` -> `On call`. */
export function senderLabel(role: SenderType): string {
  const words = role.replace(/_/g, ' ');
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}`;
}

/** `- [Developer <@U123>]: text`, the seed's line format (section 11) with the sender id. */
export function messageLine(message: Pick<DrainedMessage, 'senderType' | 'senderId' | 'text' | 'truncated'>) {
  // Every Unicode line break, not only LF: a U+2028 must not start a forged labelled line.
  const text = indentSenderText(message.text, '  ');
  const cut = message.truncated ? ' [message shortened here; the history tool has it whole]' : '';
  return `- [${senderLabel(message.senderType)} <@${message.senderId}>]: ${text}${cut}`;
}

export function messageLines(messages: readonly DrainedMessage[]): string {
  return messages.map(messageLine).join('\n');
}

/** Facts the workflow tells the agent (e.g. the reporter's wait timed out), appended to the turn's prompt. */
export function withNotes(prompt: string, notes: readonly string[]): string {
  if (notes.length === 0) return prompt;
  return `${prompt}\n\nNotes from the workflow:\n${notes.map((note) => `- ${note}`).join('\n')}`;
}
