import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { blocksOf, type MessageReply, toolResultText } from './reply.ts';

/**
 * How the demo agents that have code tools read code (the bug investigation's, the issue
 * pipeline's): this turn's tool calls, a search for a text's words, the file a search hit most,
 * and the one kind of bug they know how to see: a value is adjusted (`const net = subtotal -
 * discount;`) and a call a few lines later still passes the unadjusted one (`vatFor(subtotal,
 * ...)`) while the adjusted one is used elsewhere.
 */

/** A tool call of this turn and its result, in order. */
interface ToolRound {
  readonly name: string;
  readonly input: Record<string, unknown>;
  readonly result: string | undefined;
  readonly isError: boolean;
}

/** This turn's tool calls: those after the turn's prompt (a resumed session carries earlier turns'). */
export function toolRounds(request: MessageCreateParamsNonStreaming): ToolRound[] {
  const turnStart = request.messages.findLastIndex(
    (m) => m.role === 'user' && !blocksOf(m).some((b) => b.type === 'tool_result'),
  );
  const messages = request.messages.slice(Math.max(0, turnStart));
  const results = new Map<string, { text: string; isError: boolean }>();
  for (const message of messages) {
    for (const block of blocksOf(message)) {
      if (block.type === 'tool_result') {
        results.set(block.tool_use_id, { text: toolResultText(block), isError: block.is_error === true });
      }
    }
  }
  const rounds: ToolRound[] = [];
  for (const message of messages) {
    for (const block of blocksOf(message)) {
      if (block.type !== 'tool_use') continue;
      const result = results.get(block.id);
      rounds.push({
        name: block.name,
        input: (block.input ?? {}) as Record<string, unknown>,
        result: result?.text,
        isError: result?.isError ?? false,
      });
    }
  }
  return rounds;
}

export const offers = (request: MessageCreateParamsNonStreaming, tool: string) =>
  (request.tools ?? []).some((t) => 'name' in t && t.name === tool);

let counter = 0;
export function call(name: string, input: Record<string, unknown>): MessageReply {
  counter += 1;
  return {
    kind: 'message',
    content: [{ type: 'tool_use', id: `toolu_demofix_${Date.now().toString(36)}_${counter}`, name, input }],
    stopReason: 'tool_use',
  };
}

const STOP_WORDS = new Set(
  'about after again always because before being could doesn every first their there these thing think those today using where which while would should when what with from have this that your they them then than were will just like some into only also very much more most other'.split(
    ' ',
  ),
);

/** Up to five distinctive words of a text, singular, as a case-insensitive search pattern. */
export function searchPattern(text: string): string | undefined {
  const words = [
    ...new Set(
      (text.toLowerCase().match(/[a-z][a-z_]{4,}/g) ?? [])
        .filter((w) => !STOP_WORDS.has(w))
        .map((w) => (w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w)),
    ),
  ].slice(0, 5);
  return words.length === 0 ? undefined : `\\b(${words.join('|')})`;
}

/** The file with the most matching lines in `search_code`'s output, preferring non-test files. */
export function busiestFile(searchOutput: string): string | undefined {
  const counts = new Map<string, number>();
  for (const match of searchOutput.matchAll(/^([^\s:][^:\n]*):(\d+):/gm)) {
    const path = match[1] as string;
    counts.set(path, (counts.get(path) ?? 0) + 1);
  }
  const ranked = [...counts.entries()].sort(
    (a, b) => Number(/test|spec/.test(a[0])) - Number(/test|spec/.test(b[0])) || b[1] - a[1],
  );
  return ranked[0]?.[0];
}

/** `read_file`'s numbered lines back to the file's lines (line numbers from 1). */
export function unnumbered(readOutput: string): { number: number; text: string }[] {
  return [...readOutput.matchAll(/^\s*(\d+)\t(.*)$/gm)].map((m) => ({
    number: Number(m[1]),
    text: m[2] ?? '',
  }));
}

export interface StaleValue {
  /** 1-based line of the call that passes the unadjusted value. */
  readonly line: number;
  readonly text: string;
  readonly stale: string;
  readonly adjusted: string;
  readonly adjustedAt: number;
}

/** The first call that still passes a value after an adjusted copy of it was made (see above). */
export function findStaleValue(lines: readonly { number: number; text: string }[]): StaleValue | undefined {
  for (const [i, line] of lines.entries()) {
    const adjust = /\b(?:const|let)\s+(\w+)\s*=\s*(\w+)\s*[-+*/]\s*[\w.]+\s*;/.exec(line.text);
    if (adjust === null) continue;
    const [, adjusted, base] = adjust as unknown as [string, string, string];
    const later = lines.slice(i + 1, i + 11);
    const usesAdjusted = later.some((l) => new RegExp(`\\b${adjusted}\\b`).test(l.text));
    if (!usesAdjusted) continue;
    const passesBase = new RegExp(`\\w+\\(([^()]*,\\s*)?${base}\\b(?!\\s*[-+*/.])`);
    const stale = later.find((l) => passesBase.test(l.text) && !new RegExp(`\\b${adjusted}\\b`).test(l.text));
    if (stale !== undefined) {
      return { line: stale.number, text: stale.text, stale: base, adjusted, adjustedAt: line.number };
    }
  }
  return undefined;
}
