import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { blocksOf } from './reply.ts';

/** What the offline demo model's agents (each workflow's `demoAgents`) share: their label and how they read a prompt. */

/** Starts everything the demo model writes, so nobody takes it for a real model's work. */
export const DEMO_LABEL = '[offline demo model]';

export const labelled = (text: string) => `${DEMO_LABEL} ${text}`;

/** A message as a prompt (or the history tool) shows it: its sender's role label, id, text and message id. */
export type PromptLine = { sender: string; senderId: string; text: string; id?: string; type?: string };

/**
 * The people's messages of a prompt or of a history page (lambdas/kernel/people-text.ts): one
 * JSON object per line, `{"from":"U1","role":"reporter","verified":true,"text":"..."}`, in a
 * history page after the time (`[09:14:03] {...}`). `sender` is the role as a label (`Reporter`).
 */
const PERSON_LINE = /^(?:\[[0-9?]{2}:[0-9?]{2}:[0-9?]{2}\] )?(\{"from":.*\})$/gm;

export function promptLines(text: string): PromptLine[] {
  return [...text.matchAll(PERSON_LINE)].flatMap((match) => {
    try {
      const entry = JSON.parse(match[1] ?? '') as Record<string, unknown>;
      const role = String(entry.role ?? '');
      return [
        {
          sender: `${role.charAt(0).toUpperCase()}${role.slice(1).replace(/_/g, ' ')}`,
          senderId: String(entry.from ?? ''),
          text: typeof entry.text === 'string' ? entry.text : '',
          ...(typeof entry.id === 'string' ? { id: entry.id } : {}),
          ...(typeof entry.type === 'string' ? { type: entry.type } : {}),
        },
      ];
    } catch {
      return [];
    }
  });
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
