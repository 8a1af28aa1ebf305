import type {
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { SUBMIT_TOOL } from '../../lambdas/agents/profile.ts';
import { CONVERSATION_HISTORY_TOOL } from '../../lambdas/tools/conversation-history.ts';
import type { BugInvestigationResult } from '../../lambdas/workflows/bug-investigation/profiles/bug-investigator.ts';
import { BUG_INVESTIGATION_PROFILES } from '../../lambdas/workflows/bug-investigation/profiles/index.ts';
import { callTool, type DemoAgents, playing, submitResult } from '../demo/agents.ts';
import { blocksOf, type MessageReply, toolResultText } from '../demo/reply.ts';
import { DEMO_LABEL, excerpt, isRuntimeNote, type PromptLine, promptLines, userTexts } from '../demo/text.ts';
import { demoCodeInvestigation, demoFix, demoFixRequested } from './demo-fix.ts';

/**
 * The bug investigation's agents as the offline demo model plays them (the module's
 * `demoAgents`). The fixer, and the investigator with code tools, are in demo-fix.ts; the
 * investigator's rules:
 *
 * - Every turn begins with `get_bug_conversations` (as the real prompt asks).
 * - First turn, vague report (under 12 words, or no detail such as steps, an error or a
 *   version, in what the reporter wrote in the turn's messages): `ask_reporter` with a
 *   clarifying question.
 * - A developer asking for a fix or PR: `resolved`, with a fix that says no code was changed.
 * - Otherwise: `post_findings` built from the messages it saw, confidence 60, severity medium.
 */

export const BUG_DEMO_AGENTS: DemoAgents = playing(BUG_INVESTIGATION_PROFILES, {
  bug_investigator: investigate,
  bug_fixer: demoFix,
});

/** Words of a report detailed enough to investigate without asking. */
const DETAIL =
  /\b(error|exception|steps?|expected|actual|version|v?\d+\.\d+|stack|trace|logs?|reproduc\w*|crash\w*|status|http|timeout|500|404)\b/i;
const FIX_REQUEST = /\b(fix|pr|pull request|patch)\b/i;

export function isVagueReport(text: string): boolean {
  const words = text.trim().split(/\s+/).filter(Boolean).length;
  return words < 12 || !DETAIL.test(text);
}

/** The bug investigator's turn: read the history, then decide. */
function investigate(request: MessageCreateParamsNonStreaming): MessageReply {
  const last = blocksOf(request.messages.at(-1));
  const prompt = last.flatMap((block) =>
    block.type === 'text' && !isRuntimeNote(block.text) ? [block.text] : [],
  );
  const historyResult = findHistoryResult(request, last);
  if (prompt.length > 0 || !historyResult) return callHistory(request);

  const turnPrompt = userTexts(request).at(-1) ?? '';
  const turnLines = promptLines(turnPrompt);
  const history = historyResult.is_error ? '' : toolResultText(historyResult);
  const historyLines = promptLines(history);
  const initial = turnPrompt.startsWith('A new bug report');
  // The report is the conversation's first reporter message; the prompt has it when the history does not.
  const report =
    historyLines.find((line) => line.sender === 'Reporter')?.text ??
    turnLines.find((line) => line.sender === 'Reporter')?.text ??
    '';

  // The request a fix rests on: a "Fix it" press, or a developer's own message asking for it.
  const fixRequest = [...turnLines]
    .reverse()
    .find(
      (line) =>
        line.sender === 'Developer' &&
        (line.type === 'action' ? line.text.includes('request_fix') : FIX_REQUEST.test(line.text)),
    );
  if (fixRequest?.id !== undefined)
    return submitResult(demoFixRequested(request, report, history, fixRequest.id) ?? resolved(report));
  // What the reporter said in this turn's messages: a vague report they explained in a later
  // message the turn holds too (both came in before it began) is investigated, not asked about.
  const reporterSaid = turnLines.flatMap((line) => (line.sender === 'Reporter' ? [line.text] : []));
  if (initial && isVagueReport(reporterSaid.length > 0 ? reporterSaid.join(' ') : report))
    return submitResult(askReporter());
  // With code tools on offer, the demo reads the code before it posts findings (demo-fix.ts).
  return demoCodeInvestigation(request, report) ?? submitResult(findings(report, turnLines, historyLines));
}

function askReporter(): BugInvestigationResult {
  return {
    action: 'ask_reporter',
    summary: `${DEMO_LABEL} The report is too short to investigate; I asked the reporter for details.`,
    confidence: 10,
    severity: 'medium',
    clarification_question:
      `${DEMO_LABEL} Could you tell me the steps to reproduce this, what you expected and what happened ` +
      'instead, any error message you saw, and the app version or environment?',
  };
}

function findings(
  report: string,
  turnLines: PromptLine[],
  historyLines: PromptLine[],
): BugInvestigationResult {
  const latest = [...historyLines, ...turnLines]
    .reverse()
    .find((line) => line.sender === 'Reporter' && line.text !== report);
  const seen = historyLines.length > 0 ? historyLines.length : turnLines.length;
  const parts = [
    `${DEMO_LABEL} Read ${seen} message(s) of this bug's conversation.`,
    report ? `The report: "${excerpt(report)}".` : 'The report text was not found.',
    latest ? `The reporter added: "${excerpt(latest.text)}".` : '',
    'This is a demo: no code, logs or metrics were inspected, so a developer should confirm the cause.',
  ];
  return {
    action: 'post_findings',
    summary: parts.filter(Boolean).join(' '),
    root_cause: `${DEMO_LABEL} Not determined: the demo model does not investigate, it only reads the conversation.`,
    confidence: 60,
    severity: 'medium',
  };
}

function resolved(report: string): BugInvestigationResult {
  return {
    action: 'resolved',
    summary: `${DEMO_LABEL} A developer asked for a fix${report ? ` of "${excerpt(report)}"` : ''}; this demo recorded it as resolved.`,
    confidence: 60,
    severity: 'medium',
    fix: {
      description: `${DEMO_LABEL} No real code was changed: this is the offline demo model, which cannot write fixes.`,
    },
  };
}

function callHistory(request: MessageCreateParamsNonStreaming): MessageReply {
  const prompt = userTexts(request).at(-1) ?? '';
  const bugId =
    /get_bug_conversations\("([^"]+)"\)/.exec(prompt)?.[1] ??
    /Bug id: "([^"]+)"/.exec(prompt)?.[1] ??
    'unknown';
  return callTool(CONVERSATION_HISTORY_TOOL, { bug_id: bugId });
}

/** The result of this turn's history call (or of a refused submission, which sends the model back to deciding). */
function findHistoryResult(
  request: MessageCreateParamsNonStreaming,
  last: ContentBlockParam[],
): ToolResultBlockParam | undefined {
  const calls = new Map<string, string>();
  for (const block of blocksOf(request.messages.at(-2))) {
    if (block.type === 'tool_use') calls.set(block.id, block.name);
  }
  const results = last.filter((block): block is ToolResultBlockParam => block.type === 'tool_result');
  const history = results.find((result) => calls.get(result.tool_use_id) === CONVERSATION_HISTORY_TOOL);
  if (history) return history;
  const refused = results.find((result) => calls.get(result.tool_use_id) === SUBMIT_TOOL && result.is_error);
  return refused ? { ...refused, is_error: true } : undefined;
}
