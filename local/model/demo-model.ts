import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { SUBMIT_TOOL } from '../../lambdas/agents/profile.ts';
import { CONVERSATION_HISTORY_TOOL } from '../../lambdas/tools/conversation-history.ts';
import type { BugInvestigationResult } from '../../lambdas/workflows/bug-investigation/profiles/bug-investigator.ts';
import { BUG_INVESTIGATION_PROFILES } from '../../lambdas/workflows/bug-investigation/profiles/index.ts';
import { INCIDENT_PROFILES } from '../../lambdas/workflows/incident-investigation/profiles/index.ts';
import { ISSUE_PIPELINE_PROFILES } from '../../lambdas/workflows/issue-pipeline/profiles/index.ts';
import { REQUIREMENTS_INTERVIEW_PROFILES } from '../../lambdas/workflows/requirements-interview/profiles/index.ts';
import { demoCodeInvestigation, demoFix, demoFixRequested } from './demo-fix.ts';
import { DEMO_INCIDENT_AGENTS } from './demo-incident.ts';
import { demoAnalyst, demoAnswer, demoReviewer, demoTriage, demoWriter } from './demo-issue.ts';
import { demoAnalysis, demoClarification, demoPrd } from './demo-requirements.ts';
import { demoTemplateReview, isTemplateReview } from './demo-templates.ts';
import { DEMO_LABEL, excerpt, isRuntimeNote, type PromptLine, promptLines, userTexts } from './demo-text.ts';
import {
  blocksOf,
  isMessagesCall,
  type MessageReply,
  type ModelReply,
  parseMessagesRequest,
  sendReply,
  systemText,
  toolResultText,
} from './messages-wire.ts';

/**
 * The offline demo model: what `npm run dev` talks to without model credentials, behind the
 * same Messages API as Anthropic's. It is no AI: a few deterministic rules per agent, told
 * apart by the request's system prompt (the profile's), and everything it writes starts with
 * `[offline demo model]`. The requirements interview's agents are in demo-requirements.ts; the
 * bug investigator's rules:
 *
 * - Every turn begins with `get_bug_conversations` (as the real prompt asks).
 * - First turn, vague report (under 12 words, or no detail such as steps, an error or a
 *   version): `ask_reporter` with a clarifying question.
 * - A developer asking for a fix or PR: `resolved`, with a fix that says no code was changed.
 * - Otherwise: `post_findings` built from the messages it saw, confidence 60, severity medium.
 */

export { DEMO_LABEL } from './demo-text.ts';

/** The agents the demo plays: the workflows' profiles (each workflow serves its own). */
const PROFILES = {
  ...BUG_INVESTIGATION_PROFILES,
  ...REQUIREMENTS_INTERVIEW_PROFILES,
  ...ISSUE_PIPELINE_PROFILES,
  ...INCIDENT_PROFILES,
};
type AgentProfileName = keyof typeof PROFILES;
export const DEMO_MODEL_ID = 'offline-demo-model';

/** Words of a report detailed enough to investigate without asking. */
const DETAIL =
  /\b(error|exception|steps?|expected|actual|version|v?\d+\.\d+|stack|trace|logs?|reproduc\w*|crash\w*|status|http|timeout|500|404)\b/i;
const FIX_REQUEST = /\b(fix|pr|pull request|patch)\b/i;

/** Each agent the demo plays, by profile: every profile must have its rules. */
const DEMO_AGENTS: Record<AgentProfileName, (request: MessageCreateParamsNonStreaming) => MessageReply> = {
  bug_investigator: investigate,
  bug_fixer: demoFix,
  requirements_clarifier: (request) => submitResult(demoClarification(request)),
  prd_writer: (request) => submitResult(demoPrd(request)),
  requirements_analyst: (request) => submitResult(demoAnalysis(request)),
  ...DEMO_INCIDENT_AGENTS,
  issue_triage: demoTriage,
  issue_analyst: demoAnalyst,
  issue_writer: demoWriter,
  issue_reviewer: demoReviewer,
  issue_triage_answer: demoAnswer,
  issue_analyst_answer: demoAnswer,
  issue_writer_answer: demoAnswer,
  issue_reviewer_answer: demoAnswer,
};

/** What the demo model says where it plays no agent (a channel conversation): for people, no agent names. */
export const DEMO_CHANNEL_ANSWER =
  'I cannot answer questions here: this sandbox runs without a real model. The workflows (bug reports, incidents, /prd interviews, issues) still run offline. Set ANTHROPIC_API_KEY for real answers.';

/** The demo model's answer to one Messages API request. */
export function demoReply(request: MessageCreateParamsNonStreaming): ModelReply {
  const system = systemText(request);
  const profile = (Object.keys(DEMO_AGENTS) as AgentProfileName[]).find(
    (name) => PROFILES[name].system === system,
  );
  if (profile) return DEMO_AGENTS[profile](request);
  // The log template review of query_logs (an option of the telemetry configuration).
  const prompt = userTexts(request).at(-1) ?? '';
  if (isTemplateReview(prompt))
    return {
      kind: 'message',
      content: [{ type: 'text', text: demoTemplateReview(prompt) }],
      stopReason: 'end_turn',
    };
  // Not one of the agents (e.g. a channel conversation's answer): say so, in plain text.
  return {
    kind: 'message',
    content: [
      {
        type: 'text',
        text: `${DEMO_LABEL} ${DEMO_CHANNEL_ANSWER}`,
      },
    ],
    stopReason: 'end_turn',
  };
}

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
  if (initial && isVagueReport(report)) return submitResult(askReporter());
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

/** Ends the turn with `submit_result`; the turn checks the result against the profile's schema. */
function submitResult(result: unknown): MessageReply {
  return message([{ type: 'tool_use', id: nextToolUseId(), name: SUBMIT_TOOL, input: result }]);
}

function callHistory(request: MessageCreateParamsNonStreaming): MessageReply {
  const prompt = userTexts(request).at(-1) ?? '';
  const bugId =
    /get_bug_conversations\("([^"]+)"\)/.exec(prompt)?.[1] ??
    /Bug id: "([^"]+)"/.exec(prompt)?.[1] ??
    'unknown';
  return message([
    { type: 'tool_use', id: nextToolUseId(), name: CONVERSATION_HISTORY_TOOL, input: { bug_id: bugId } },
  ]);
}

function message(content: MessageReply['content']): MessageReply {
  return { kind: 'message', content, stopReason: 'tool_use' };
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

let toolUseCounter = 0;
function nextToolUseId(): string {
  toolUseCounter += 1;
  return `toolu_demo_${String(toolUseCounter).padStart(6, '0')}`;
}

/**
 * `POST .../v1/messages` for the sandbox: mount it under any prefix and point
 * `ANTHROPIC_BASE_URL` at that prefix (with any `ANTHROPIC_API_KEY`; the demo ignores it).
 */
export function createDemoModelHandler(): (
  req: IncomingMessage,
  res: ServerResponse,
  body: string,
) => Promise<void> {
  let served = 0;
  return async (req, res, body) => {
    served += 1;
    const id = `msg_demo_${String(served).padStart(6, '0')}`;
    if (!isMessagesCall(req)) {
      sendReply(
        res,
        {
          kind: 'error',
          status: 404,
          errorType: 'not_found_error',
          message: `${DEMO_LABEL} serves POST /v1/messages only`,
        },
        { id, model: DEMO_MODEL_ID },
      );
      return;
    }
    const parsed = parseMessagesRequest(body);
    if (!parsed.ok) {
      sendReply(res, parsed.reply, { id, model: DEMO_MODEL_ID });
      return;
    }
    const answer = demoReply(parsed.request);
    if (answer.kind === 'message') {
      // Rough token counts, so the ledger shows something plausible in the demo.
      answer.usage = {
        input_tokens: Math.ceil(body.length / 4),
        output_tokens: Math.ceil(JSON.stringify(answer.content).length / 4),
      };
    }
    sendReply(res, answer, { id, model: parsed.request.model });
  };
}
