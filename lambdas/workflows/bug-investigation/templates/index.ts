import { defineTemplates } from '../../../slack/templates/index.ts';
import { BugEscalationData, renderBugEscalation } from './bug-escalation.ts';
import { BugFindingsData, renderBugFindings } from './bug-findings.ts';
import { BugQuestionData, renderBugQuestion } from './bug-question.ts';

/** The bug investigation's Slack messages, rendered by its SlackPost function. */
export const BUG_INVESTIGATION_TEMPLATES = defineTemplates({
  bug_findings: { data: BugFindingsData, render: renderBugFindings },
  bug_escalation: { data: BugEscalationData, render: renderBugEscalation },
  bug_question: { data: BugQuestionData, render: renderBugQuestion },
});
