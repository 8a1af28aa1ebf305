import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { CODE_TOOL_NAMES } from '../../lambdas/tools/code/tools.ts';
import { ISSUE_PIPELINE_PROFILES } from '../../lambdas/workflows/issue-pipeline/profiles/index.ts';
import { type DemoAgents, playing } from '../demo/agents.ts';
import { busiestFile, call, findStaleValue, searchPattern, toolRounds, unnumbered } from '../demo/code.ts';
import type { MessageReply } from '../demo/reply.ts';
import { DEMO_LABEL, excerpt, userTexts } from '../demo/text.ts';

/**
 * The issue pipeline's agents as the offline demo model plays them (the module's `demoAgents`). No AI, a few rules:
 *
 * - Triage: proceeds, as a small bug fix of simple complexity.
 * - Analyst: `search_code` for the issue's words, `read_file` of the busiest file outside
 *   tests, and a brief citing the suspicious line the demo knows (statemachines/demo/code.ts) (a value adjusted and then
 *   not used); with none, a brief saying so.
 * - Writer: reads the file the brief cites, writes the one-line fix as a diff and submits the
 *   change; finding nothing it knows how to fix, it asks people.
 * - Reviewer: reads the diff; approves a non-empty diff, rejects an empty one.
 * - A question from another agent: answered with what the demo knows (nothing more).
 *
 * Everything it writes starts with `[offline demo model]`.
 */

export const ISSUE_DEMO_AGENTS: DemoAgents = playing(ISSUE_PIPELINE_PROFILES, {
  issue_triage: demoTriage,
  issue_analyst: demoAnalyst,
  issue_writer: demoWriter,
  issue_reviewer: demoReviewer,
  issue_triage_answer: demoAnswer,
  issue_analyst_answer: demoAnswer,
  issue_writer_answer: demoAnswer,
  issue_reviewer_answer: demoAnswer,
});

const submitAs = (tool: string, input: Record<string, unknown>) => call(tool, input);
const prompt = (request: MessageCreateParamsNonStreaming) => userTexts(request).join('\n');

export function demoTriage(_request: MessageCreateParamsNonStreaming): MessageReply {
  return submitAs('submit_triage', {
    type: 'BUG_FIX',
    scope: 'SMALL',
    complexity: 'simple',
    should_proceed: true,
    observations: [{ type: 'other', content: `${DEMO_LABEL} Triage by rule: every issue proceeds.` }],
  });
}

export function demoAnalyst(request: MessageCreateParamsNonStreaming): MessageReply {
  const rounds = toolRounds(request);
  const text = prompt(request);
  const search = rounds.find((r) => r.name === CODE_TOOL_NAMES.searchCode);
  if (search === undefined) {
    const pattern = searchPattern(/Its body[^\n]*\n([\s\S]*)/.exec(text)?.[1] ?? text) ?? '\\bTODO\\b';
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
  const file = typeof read?.input.path === 'string' ? read.input.path : 'README.md';
  const suspect = read && !read.isError ? findStaleValue(unnumbered(read.result ?? '')) : undefined;
  const brief = suspect
    ? `${DEMO_LABEL} ${file}:${suspect.line} passes \`${suspect.stale}\` where \`${suspect.adjusted}\` (computed at ${file}:${suspect.adjustedAt}) looks meant. Pass \`${suspect.adjusted}\` there.`
    : `${DEMO_LABEL} I read ${file} but found no line I could point at; the writer should ask people.`;
  return submitAs('submit_analysis', {
    brief,
    files: [{ path: file, purpose: `${DEMO_LABEL} where the issue's words are`, action: 'modify' }],
    patterns: [`${DEMO_LABEL} none recorded`],
    test_requirement: {
      required: false,
      type: 'none',
      location: null,
      description: `${DEMO_LABEL} the repository's own tests cover it`,
    },
    must_do: [suspect ? `Pass ${suspect.adjusted} at ${file}:${suspect.line}` : 'Ask people what to change'],
    must_not_do: ['Change anything else'],
  });
}

export function demoWriter(request: MessageCreateParamsNonStreaming): MessageReply {
  const rounds = toolRounds(request);
  const cited = /([\w./-]+\.[a-z]{1,4}):(\d+)/.exec(prompt(request));
  const read = rounds.find((r) => r.name === CODE_TOOL_NAMES.readFile);
  if (read === undefined && cited) return call(CODE_TOOL_NAMES.readFile, { path: cited[1] });
  const path = String(read?.input.path ?? '');
  const suspect = read && !read.isError ? findStaleValue(unnumbered(read.result ?? '')) : undefined;
  if (suspect === undefined) {
    return submitAs('submit_changes', {
      changes: [{ file: path || 'none', description: 'nothing changed' }],
      test_written: false,
      summary: `${DEMO_LABEL} I found nothing I know how to change.`,
      question: {
        to: 'people',
        question: `${DEMO_LABEL} I could not find what to change. What should it be?`,
      },
    });
  }
  const write = rounds.find((r) => r.name === CODE_TOOL_NAMES.writeFile);
  if (write === undefined) {
    const fixed = suspect.text.replace(new RegExp(`\\b${suspect.stale}\\b(?!\\s*[-+*/.])`), suspect.adjusted);
    const diff = `--- a/${path}\n+++ b/${path}\n@@ -${suspect.line},1 +${suspect.line},1 @@\n-${suspect.text}\n+${fixed}\n`;
    return call(CODE_TOOL_NAMES.writeFile, {
      path,
      diff,
      message: `Pass ${suspect.adjusted} at ${path}:${suspect.line}`,
    });
  }
  if (write.isError || /^error/i.test(write.result ?? '')) {
    return submitAs('submit_changes', {
      changes: [{ file: path, description: 'refused' }],
      test_written: false,
      summary: `${DEMO_LABEL} My change was refused: ${excerpt(write.result ?? '', 300)}`,
      escalation: { reason: `${DEMO_LABEL} my change to ${path} was refused`, requires_human: true },
    });
  }
  return submitAs('submit_changes', {
    changes: [
      { file: path, description: `${DEMO_LABEL} pass ${suspect.adjusted} instead of ${suspect.stale}` },
    ],
    test_written: false,
    summary: `${DEMO_LABEL} ${path}:${suspect.line} now passes \`${suspect.adjusted}\` instead of \`${suspect.stale}\`.`,
  });
}

export function demoReviewer(request: MessageCreateParamsNonStreaming): MessageReply {
  const diff = toolRounds(request).find((r) => r.name === CODE_TOOL_NAMES.getDiff);
  if (diff === undefined) return call(CODE_TOOL_NAMES.getDiff, {});
  const changed = !diff.isError && /^[+-](?![+-])/m.test(diff.result ?? '');
  return submitAs('submit_review', {
    verdict: changed ? 'APPROVED' : 'REJECTED',
    findings: { good: changed ? [`${DEMO_LABEL} the diff is small`] : [], issues: [] },
    ...(changed ? {} : { feedback_for_writer: `${DEMO_LABEL} The diff is empty: make the change.` }),
  });
}

export function demoAnswer(_request: MessageCreateParamsNonStreaming): MessageReply {
  return submitAs('submit_answer', {
    answer: `${DEMO_LABEL} I have nothing to add beyond my earlier output; a person should decide.`,
  });
}
