import { defineTemplates } from '../../../slack/templates/index.ts';
import { BugEscalationData, renderBugEscalation } from './bug-escalation.ts';
import { BugFindingsData, renderBugFindings } from './bug-findings.ts';
import { BugFindingsPostedData, renderBugFindingsPosted } from './bug-findings-posted.ts';
import { BugFixOutcomeData, renderBugFixOutcome } from './bug-fix-outcome.ts';
import { BugQuestionData, renderBugQuestion } from './bug-question.ts';

/** The bug investigation's Slack messages, rendered by its SlackPost function. */
export const BUG_INVESTIGATION_TEMPLATES = defineTemplates({
  bug_findings: { data: BugFindingsData, render: renderBugFindings },
  bug_escalation: { data: BugEscalationData, render: renderBugEscalation },
  bug_question: { data: BugQuestionData, render: renderBugQuestion },
  bug_fix_outcome: { data: BugFixOutcomeData, render: renderBugFixOutcome },
  bug_findings_posted: { data: BugFindingsPostedData, render: renderBugFindingsPosted },
});
