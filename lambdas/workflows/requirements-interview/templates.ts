import * as z from 'zod';
import { withFeedback } from '../../slack/templates/feedback.ts';
import { defineTemplates } from '../../slack/templates/index.ts';
import {
  FALLBACK_TEXT_LIMIT,
  labelledSection,
  mrkdwnText,
  plainText,
  SECTION_TEXT_LIMIT,
} from '../../slack/templates/text.ts';
import type { Block, RenderedMessage } from '../../slack/templates/types.ts';

/**
 * The requirements interview's messages: the clarification questions as a numbered
 * list with the confidence, and the PRD and its analysis as readable messages with the same
 * content attached as Markdown files.
 */

/** Slack shows at most 50 blocks; the header and the context line take two. */
const MAX_SECTIONS = 48;

/** `requirements_questions`: a clarification turn's questions in the requester's thread. */
export const RequirementsQuestionsData = z.object({
  result: z.object({
    confidence: z.number(),
    confidenceReason: z.string(),
    questions: z.array(z.string()),
  }),
  /** The confidence the interview needs to move on. */
  threshold: z.number(),
});
export type RequirementsQuestionsData = z.infer<typeof RequirementsQuestionsData>;

export function renderRequirementsQuestions(data: RequirementsQuestionsData): RenderedMessage {
  const { result } = data;
  const confidence = `*Confidence: ${result.confidence}%* (${data.threshold}% needed to write the PRD) — ${mrkdwnText(result.confidenceReason, 1_000)}`;
  const questions = result.questions
    .map((question, index) => `${index + 1}. ${mrkdwnText(question, 1_000)}`)
    .join('\n');
  // At most 10 questions of 1,000 characters (ClarificationOutput): well within Slack's 40,000.
  return {
    text: `${confidence}\n\n${questions}\n\n_Reply in this thread. Say "cancel" to stop the interview._`,
  };
}

/** `requirements_prd`: the PRD the generator wrote. */
export const RequirementsPrdData = z.object({
  result: z.object({ title: z.string(), markdown: z.string() }),
});
export type RequirementsPrdData = z.infer<typeof RequirementsPrdData>;

export function renderRequirementsPrd(data: RequirementsPrdData): RenderedMessage {
  const { title, markdown } = data.result;
  return {
    text: mrkdwnText(`PRD: ${title}`, FALLBACK_TEXT_LIMIT),
    blocks: withFeedback(
      {
        text: title,
        blocks: markdownBlocks(`:memo: PRD: ${title}`, markdown, 'The full PRD is attached as Markdown.'),
      },
      'prd',
    ),
    file: { filename: `prd-${slug(title)}.md`, title: `PRD: ${title}`, content: markdown },
  };
}

/** `requirements_analysis`: the analysis of the PRD, its findings grouped by kind. */
export const RequirementsAnalysisData = z.object({
  result: z.object({
    summary: z.string(),
    findings: z.array(z.object({ kind: z.string(), section: z.string(), finding: z.string() })),
  }),
  /** The PRD's title, to name the file after it. */
  title: z.string(),
});
export type RequirementsAnalysisData = z.infer<typeof RequirementsAnalysisData>;

const FINDING_HEADINGS = [
  ['gap', 'Gaps'],
  ['risk', 'Risks'],
  ['contradiction', 'Contradictions'],
  ['recommendation', 'Recommendations'],
] as const;

/** The analysis as Markdown: the summary, then each kind's findings with their PRD section. */
export function analysisMarkdown(data: RequirementsAnalysisData): string {
  const sections = FINDING_HEADINGS.map(([kind, heading]) => {
    const findings = data.result.findings.filter((finding) => finding.kind === kind);
    const body =
      findings.length === 0
        ? '_None._'
        : findings.map((finding) => `- **${finding.section}**: ${finding.finding}`).join('\n');
    return `## ${heading}\n\n${body}`;
  });
  return `# Analysis: ${data.title}\n\n## Summary\n\n${data.result.summary}\n\n${sections.join('\n\n')}\n`;
}

export function renderRequirementsAnalysis(data: RequirementsAnalysisData): RenderedMessage {
  const markdown = analysisMarkdown(data);
  return {
    text: mrkdwnText(`Analysis of the PRD: ${data.result.summary}`, FALLBACK_TEXT_LIMIT),
    blocks: withFeedback(
      {
        text: data.title,
        blocks: markdownBlocks(
          `:mag: Analysis: ${data.title}`,
          markdown,
          'The full analysis is attached as Markdown.',
        ),
      },
      'analysis',
    ),
    file: {
      filename: `analysis-${slug(data.title)}.md`,
      title: `Analysis: ${data.title}`,
      content: markdown,
    },
  };
}

/**
 * A Markdown document as Block Kit: a header, one section per `##` heading (its text in
 * mrkdwn, cut to Slack's section limit), and a context line. The document's own `#` title is
 * left out: the header says it.
 */
function markdownBlocks(header: string, markdown: string, context: string): Block[] {
  const sections = markdown
    .split(/^## /m)
    .slice(1)
    .map((section) => {
      const [heading = '', ...body] = section.split('\n');
      return { heading: heading.trim(), body: toMrkdwn(body.join('\n').trim()) };
    });
  return [
    { type: 'header', text: { type: 'plain_text', text: plainText(header), emoji: true } },
    ...sections.slice(0, MAX_SECTIONS).map(
      ({ heading, body }): Block => ({
        type: 'section',
        text: { type: 'mrkdwn', text: labelledSection(heading, body || '-', SECTION_TEXT_LIMIT) },
      }),
    ),
    { type: 'context', elements: [{ type: 'mrkdwn', text: context }] },
  ];
}

/** Markdown's `**bold**` as Slack's `*bold*`; lists read the same in both. */
function toMrkdwn(markdown: string): string {
  return markdown.replace(/\*\*(.+?)\*\*/g, '*$1*');
}

function slug(title: string): string {
  const cut = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return cut || 'untitled';
}

/** The requirements interview's Slack messages, rendered by its SlackPost function. */
export const REQUIREMENTS_INTERVIEW_TEMPLATES = defineTemplates({
  requirements_questions: { data: RequirementsQuestionsData, render: renderRequirementsQuestions },
  requirements_prd: { data: RequirementsPrdData, render: renderRequirementsPrd },
  requirements_analysis: { data: RequirementsAnalysisData, render: renderRequirementsAnalysis },
});
