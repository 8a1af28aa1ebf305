import * as z from 'zod';
import { executionConsoleUrl, link } from '../../../slack/templates/links.ts';
import { FALLBACK_TEXT_LIMIT, labelledSection, mrkdwnText } from '../../../slack/templates/text.ts';
import type { Block, RenderedMessage } from '../../../slack/templates/types.ts';
import { BugResultView, confidenceLabel, severityLabel, severityWord } from './bug-result.ts';

/** `bug_escalation`: a bug handed to the on-call developers, posted in the developers' channel. */
export const BugEscalationData = z.object({
  result: BugResultView,
  /** The Slack user group paged (`<!subteam^ID>`), from the stack configuration. */
  onCallGroupId: z.string().regex(/^S[A-Z0-9_]+$/, 'expected a Slack user group id such as S0123456789'),
  /** The execution that escalated (`$$.Execution.Id`), for the console link. */
  executionArn: z.string().min(1),
  /** The channel the findings were posted in, pointed to when given. */
  findingsChannel: z
    .string()
    .regex(/^[A-Z][A-Z0-9_]+$/)
    .optional(),
});
export type BugEscalationData = z.infer<typeof BugEscalationData>;

/**
 * Pages the on-call group with the summary and severity, the error when the escalation came
 * from a failure, and where to find the findings and the execution.
 */
export function renderBugEscalation(data: BugEscalationData): RenderedMessage {
  const { result } = data;
  const mention = `<!subteam^${data.onCallGroupId}>`;
  const severity = severityWord(result.severity);
  const blocks: Block[] = [
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `:rotating_light: ${mention} a bug needs a developer: *${severityLabel(result.severity)}* severity, ${confidenceLabel(result.confidence)} confidence.`,
      },
    },
    { type: 'section', text: { type: 'mrkdwn', text: labelledSection('Summary', result.summary) } },
  ];
  if (result.error !== undefined) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: labelledSection('Error', result.error) } });
  }
  const where = [
    data.findingsChannel === undefined ? undefined : `Findings in <#${data.findingsChannel}>`,
    link(executionConsoleUrl(data.executionArn), 'Investigation in the Step Functions console'),
    'press Acknowledge or reply in this thread to acknowledge',
  ].filter((part) => part !== undefined);
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: where.join(' · ') }] });
  // The mention leads the text too: notifications are built from `text`, not from the blocks.
  const lead = `${mention} Bug escalation (${severity} severity): `;
  const text = `${lead}${mrkdwnText(result.summary, FALLBACK_TEXT_LIMIT - lead.length)}`;
  return { text, blocks };
}
