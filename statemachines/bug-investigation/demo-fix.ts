import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { SUBMIT_TOOL } from '../../lambdas/agents/profile.ts';
import { CODE_TOOL_NAMES } from '../../lambdas/tools/code/tools.ts';
import type { BugFixResult } from '../../lambdas/workflows/bug-investigation/profiles/bug-fixer.ts';
import type { BugInvestigationResult } from '../../lambdas/workflows/bug-investigation/profiles/bug-investigator.ts';
import {
  busiestFile,
  call,
  findStaleValue,
  offers,
  searchPattern,
  toolRounds,
  unnumbered,
} from '../demo/code.ts';
import type { MessageReply } from '../demo/reply.ts';
import { DEMO_LABEL, excerpt, userTexts } from '../demo/text.ts';

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

const submit = (result: BugInvestigationResult | BugFixResult) => call(SUBMIT_TOOL, result);

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
