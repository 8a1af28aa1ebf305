import * as z from 'zod';
import { BugEscalationData, renderBugEscalation } from './bug-escalation.ts';
import { BugFindingsData, renderBugFindings } from './bug-findings.ts';
import { BugQuestionData, renderBugQuestion } from './bug-question.ts';
import type { RenderedMessage } from './types.ts';

export type { Block, RenderedMessage } from './types.ts';

/**
 * The message templates SlackPost renders (`SlackPostInput.template`). A state machine passes
 * the template's name and its data (an agent's result, ids); the text, the Block Kit blocks and
 * every Slack limit are handled here, in code with tests, instead of in `States.Format`.
 */
export const SlackTemplate = z.discriminatedUnion('name', [
  z.object({ name: z.literal('bug_findings'), data: BugFindingsData }),
  z.object({ name: z.literal('bug_escalation'), data: BugEscalationData }),
  z.object({ name: z.literal('bug_question'), data: BugQuestionData }),
]);
export type SlackTemplate = z.infer<typeof SlackTemplate>;
export type SlackTemplateName = SlackTemplate['name'];

export function renderTemplate(template: SlackTemplate): RenderedMessage {
  switch (template.name) {
    case 'bug_findings':
      return renderBugFindings(template.data);
    case 'bug_escalation':
      return renderBugEscalation(template.data);
    case 'bug_question':
      return renderBugQuestion(template.data);
  }
}
