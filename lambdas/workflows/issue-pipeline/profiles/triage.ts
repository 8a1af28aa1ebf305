import { codeToolSpecs, READ_CODE_TOOLS } from '../../../tools/code/deployment.ts';
import { TriageSubmission } from '../submissions/triage.ts';
import { type IssueAgentSpec, issueAgentProfile, issueAnswerProfile } from './common.ts';
import { ROLES, TASKS } from './prompts.ts';

/** Triage: reads the issue and the code, and decides whether agents should work on it. */
const TRIAGE = {
  agent: 'triage',
  role: ROLES.triage,
  tools: () => codeToolSpecs(READ_CODE_TOOLS),
  schema: TriageSubmission,
  submitTool: 'submit_triage',
  submitDescription: 'Submit your triage of the issue. Call it last, exactly once.',
  task: TASKS.triage,
} satisfies IssueAgentSpec<TriageSubmission>;

export const issueTriage = issueAgentProfile(TRIAGE);
export const issueTriageAnswer = issueAnswerProfile(TRIAGE);
