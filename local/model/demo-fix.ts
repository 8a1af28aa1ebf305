import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { SUBMIT_TOOL } from '../../lambdas/agents/profile.ts';
import { CODE_TOOL_NAMES } from '../../lambdas/tools/code/tools.ts';
import type { BugFixResult } from '../../lambdas/workflows/bug-investigation/profiles/bug-fixer.ts';
import type { BugInvestigationResult } from '../../lambdas/workflows/bug-investigation/profiles/bug-investigator.ts';
import { DEMO_LABEL, excerpt, userTexts } from './demo-text.ts';
import { blocksOf, type MessageReply, toolResultText } from './messages-wire.ts';

/**
 * The offline demo model with code tools: the investigator reads the repository
 * before it posts findings, and the fixer applies a fix it can find by reading the code. No AI:
 *
 * - Investigator: `search_code` for the report's words, `read_file` of the file with the most
 *   hits outside tests, then findings citing `file:line` of a suspicious line (below), or
 *   saying it read the file and found none.
 * - A suspicious line: a value is adjusted (`const net = subtotal - discount;`) and a call a
 *   few lines later still passes the unadjusted one (`vatFor(subtotal, ...)`) while the
 *   adjusted one is used elsewhere. The fix passes the adjusted value.
 * - Fixer: reads the file its notes cite (or searches), writes the fix as a unified diff, and
 *   submits `fix_written`; finds nothing to change: `cannot_fix`, saying so.
 *
 * Every text it writes starts with `[offline demo model]`.
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
const submit = (result: BugInvestigationResult | BugFixResult) => call(SUBMIT_TOOL, result);

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

/** The investigator's turn once the history is read, when code tools are offered; else undefined. */
export function demoCodeInvestigation(
  request: MessageCreateParamsNonStreaming,
  report: string,
): MessageReply | undefined {
  if (!offers(request, CODE_TOOL_NAMES.searchCode)) return undefined;
  const rounds = toolRounds(request);
  const search = rounds.find((r) => r.name === CODE_TOOL_NAMES.searchCode);
  if (search === undefined) {
    const pattern = searchPattern(report);
    if (pattern === undefined) return undefined;
    return call(CODE_TOOL_NAMES.searchCode, {
      pattern,
      regex: true,
      case_sensitive: false,
      max_results: 100,
    });
  }
  const path = search.isError ? undefined : busiestFile(search.result ?? '');
  const read = rounds.find((r) => r.name === CODE_TOOL_NAMES.readFile);
  if (read === undefined && path !== undefined) return call(CODE_TOOL_NAMES.readFile, { path });
  const file = typeof read?.input.path === 'string' ? read.input.path : undefined;
  const suspect = read && !read.isError ? findStaleValue(unnumbered(read.result ?? '')) : undefined;
  if (file === undefined || suspect === undefined) {
    return submit({
      action: 'post_findings',
      summary: `${DEMO_LABEL} I searched the repository for the words of the report ("${excerpt(report, 120)}")${file ? ` and read ${file}` : ''}, but found no line I could point at. A developer should look.`,
      confidence: 20,
      severity: 'medium',
    });
  }
  const at = `${file}:${suspect.line}`;
  return submit({
    action: 'post_findings',
    summary: `${DEMO_LABEL} ${at} passes \`${suspect.stale}\` where the adjusted \`${suspect.adjusted}\` (computed at ${file}:${suspect.adjustedAt}) looks meant: \`${suspect.text.trim()}\`. The report: "${excerpt(report, 160)}".`,
    root_cause: `${DEMO_LABEL} ${at} uses the value from before the adjustment at ${file}:${suspect.adjustedAt}.`,
    location: at,
    confidence: 70,
    severity: 'medium',
  });
}

/** The investigator's answer to a developer's fix request when code tools are offered; else undefined. */
export function demoFixRequested(
  request: MessageCreateParamsNonStreaming,
  report: string,
  history: string,
  fixRequest: string,
): BugInvestigationResult | undefined {
  if (!offers(request, CODE_TOOL_NAMES.searchCode)) return undefined;
  // The code its earlier findings cited (they are in the conversation's history), for the fixer.
  const cited = [...history.matchAll(/([\w./-]+\.[a-z]{1,4}):(\d+)/g)].at(-1)?.[0];
  return {
    action: 'fix_requested',
    fix_request: fixRequest,
    summary: `${DEMO_LABEL} A developer asked for a fix${report ? ` of "${excerpt(report)}"` : ''}${cited ? `; my findings pointed at ${cited}` : ''}. The workflow has it made, built and opened as a draft pull request.`,
    confidence: 60,
    severity: 'medium',
  };
}

/** A one-line unified diff replacing `line` of `path`. */
function oneLineDiff(path: string, line: number, before: string, after: string): string {
  return `--- a/${path}\n+++ b/${path}\n@@ -${line},1 +${line},1 @@\n-${before}\n+${after}\n`;
}

/** The fixer's turn. */
export function demoFix(request: MessageCreateParamsNonStreaming): MessageReply {
  const rounds = toolRounds(request);
  const prompt = userTexts(request).join('\n');
  const cited = /([\w./-]+\.[a-z]{1,4}):(\d+)/.exec(prompt);
  const read = rounds.find((r) => r.name === CODE_TOOL_NAMES.readFile);
  if (read === undefined) {
    if (cited) return call(CODE_TOOL_NAMES.readFile, { path: cited[1] });
    const search = rounds.find((r) => r.name === CODE_TOOL_NAMES.searchCode);
    const path = search ? busiestFile(search.result ?? '') : undefined;
    if (path) return call(CODE_TOOL_NAMES.readFile, { path });
    const pattern = searchPattern(prompt);
    if (search === undefined && pattern) {
      return call(CODE_TOOL_NAMES.searchCode, {
        pattern,
        regex: true,
        case_sensitive: false,
        max_results: 100,
      });
    }
    return submit({ action: 'cannot_fix', summary: `${DEMO_LABEL} I could not find the code to change.` });
  }
  const path = String(read.input.path);
  const suspect = read.isError ? undefined : findStaleValue(unnumbered(read.result ?? ''));
  if (suspect === undefined) {
    return submit({
      action: 'cannot_fix',
      summary: `${DEMO_LABEL} I read ${path} but found nothing I know how to fix there; a developer should take over.`,
    });
  }
  const write = rounds.find((r) => r.name === CODE_TOOL_NAMES.writeFile);
  if (write === undefined) {
    const fixed = suspect.text.replace(new RegExp(`\\b${suspect.stale}\\b(?!\\s*[-+*/.])`), suspect.adjusted);
    return call(CODE_TOOL_NAMES.writeFile, {
      path,
      diff: oneLineDiff(path, suspect.line, suspect.text, fixed),
      message: `Use ${suspect.adjusted} instead of ${suspect.stale} at ${path}:${suspect.line}`,
    });
  }
  if (write.isError || /^error/i.test(write.result ?? '')) {
    return submit({
      action: 'cannot_fix',
      summary: `${DEMO_LABEL} My change to ${path} was refused: ${excerpt(write.result ?? 'no answer', 300)}`,
    });
  }
  return submit({
    action: 'fix_written',
    summary: `${DEMO_LABEL} ${path}:${suspect.line} now passes \`${suspect.adjusted}\` (computed at ${path}:${suspect.adjustedAt}) instead of \`${suspect.stale}\`.`,
  });
}
