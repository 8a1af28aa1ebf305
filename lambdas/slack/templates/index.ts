import * as z from 'zod';
import {
  BugEscalationData,
  renderBugEscalation,
} from '../../workflows/bug-investigation/templates/bug-escalation.ts';
import {
  BugFindingsData,
  renderBugFindings,
} from '../../workflows/bug-investigation/templates/bug-findings.ts';
import {
  BugQuestionData,
  renderBugQuestion,
} from '../../workflows/bug-investigation/templates/bug-question.ts';
import {
  RequirementsAnalysisData,
  RequirementsPrdData,
  RequirementsQuestionsData,
  renderRequirementsAnalysis,
  renderRequirementsPrd,
  renderRequirementsQuestions,
} from '../../workflows/requirements-interview/templates.ts';
import type { RenderedMessage } from './types.ts';

export type { Block, RenderedFile, RenderedMessage } from './types.ts';

/**
 * The message templates SlackPost renders (`SlackPostInput.template`). A state machine passes
 * the template's name and its data (an agent's result, ids); the text, the Block Kit blocks and
 * every Slack limit are handled here, in code with tests, instead of in `States.Format`.
 */
export const SlackTemplate = z.discriminatedUnion('name', [
  z.object({ name: z.literal('bug_findings'), data: BugFindingsData }),
  z.object({ name: z.literal('bug_escalation'), data: BugEscalationData }),
  z.object({ name: z.literal('bug_question'), data: BugQuestionData }),
  z.object({ name: z.literal('requirements_questions'), data: RequirementsQuestionsData }),
  z.object({ name: z.literal('requirements_prd'), data: RequirementsPrdData }),
  z.object({ name: z.literal('requirements_analysis'), data: RequirementsAnalysisData }),
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
    case 'requirements_questions':
      return renderRequirementsQuestions(template.data);
    case 'requirements_prd':
      return renderRequirementsPrd(template.data);
    case 'requirements_analysis':
      return renderRequirementsAnalysis(template.data);
  }
}
