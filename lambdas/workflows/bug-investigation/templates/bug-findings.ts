import * as z from 'zod';
import { withFeedback } from '../../../slack/templates/feedback.ts';
import { executionConsoleUrl, link, safeHttpUrl } from '../../../slack/templates/links.ts';
import {
  FALLBACK_TEXT_LIMIT,
  FIELD_TEXT_LIMIT,
  labelledSection,
  mrkdwnText,
  plainText,
  SECTION_TEXT_LIMIT,
} from '../../../slack/templates/text.ts';
import type { Block, RenderedMessage } from '../../../slack/templates/types.ts';
import { BugResultView, confidenceLabel, severityLabel, severityWord } from './bug-result.ts';

/** `bug_findings`: an investigation's findings, posted for developers in the bug-summaries channel. */
export const BugFindingsData = z.object({
  result: BugResultView,
  /** The execution that investigated (`$$.Execution.Id`), for the console link. */
  executionArn: z.string().min(1),
});
export type BugFindingsData = z.infer<typeof BugFindingsData>;

/**
 * Header, the summary, the root cause, confidence and severity as fields, the fix when one
 * was made, the error when the turn failed, and a context line linking the execution.
 */
export function renderBugFindings(data: BugFindingsData): RenderedMessage {
  const { result } = data;
  const blocks: Block[] = [
    {
      type: 'header',
      text: { type: 'plain_text', text: plainText(':mag: Bug investigation findings'), emoji: true },
    },
    { type: 'section', text: { type: 'mrkdwn', text: labelledSection('Summary', result.summary) } },
    {
      type: 'section',
      fields: [
        {
          type: 'mrkdwn',
          text: labelledSection('Root cause', result.rootCause ?? 'Not found yet', FIELD_TEXT_LIMIT),
        },
        ...(result.location === undefined
          ? []
          : [
              {
                type: 'mrkdwn' as const,
                text: labelledSection(
                  'Location',
                  `\`${result.location.replace(/`/g, '')}\``,
                  FIELD_TEXT_LIMIT,
                ),
              },
            ]),
        { type: 'mrkdwn', text: `*Confidence*\n${confidenceLabel(result.confidence)}` },
        { type: 'mrkdwn', text: `*Severity*\n${severityLabel(result.severity)}` },
      ],
    },
  ];
  if (result.fix !== undefined) blocks.push(fixSection(result.fix));
  if (result.error !== undefined) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: labelledSection('Error', result.error) } });
  }
  blocks.push({
    type: 'context',
    elements: [
      {
        type: 'mrkdwn',
        text: `${link(executionConsoleUrl(data.executionArn), 'Investigation in the Step Functions console')} · reply in this thread to ask for a follow-up`,
      },
    ],
  });
  const text = `Bug findings (${severityWord(result.severity)} severity, ${confidenceLabel(result.confidence)} confidence): ${result.summary}`;
  return { text: mrkdwnText(text, FALLBACK_TEXT_LIMIT), blocks: withFeedback({ text, blocks }, 'findings') };
}

function fixSection(fix: NonNullable<BugResultView['fix']>): Block {
  const url = safeHttpUrl(fix.pullRequestUrl);
  const extra = [
    url === undefined ? undefined : link(url, 'Pull request'),
    fix.branch === undefined ? undefined : `branch \`${mrkdwnText(fix.branch.replace(/`/g, ''), 200)}\``,
  ].filter((part) => part !== undefined);
  const tail = extra.length === 0 ? '' : `\n${extra.join(' · ')}`;
  const heading = '*Fix*\n';
  const description = mrkdwnText(fix.description, SECTION_TEXT_LIMIT - heading.length - tail.length);
  return { type: 'section', text: { type: 'mrkdwn', text: `${heading}${description}${tail}` } };
}
