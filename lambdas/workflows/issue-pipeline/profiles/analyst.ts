import { codeToolSpecs, READ_CODE_TOOLS } from '../../../tools/code/deployment.ts';
import { AnalysisSubmission } from '../submissions/analysis.ts';
import { type IssueAgentSpec, issueAgentProfile, issueAnswerProfile } from './common.ts';
import { ROLES, TASKS } from './prompts.ts';

/** The analyst: reads the code and writes the writer's brief. */
const ANALYST = {
  agent: 'analyst',
  role: ROLES.analyst,
  tools: () => codeToolSpecs(READ_CODE_TOOLS),
  schema: AnalysisSubmission,
  submitTool: 'submit_analysis',
  submitDescription: "Submit your analysis and the writer's brief. Call it last, exactly once.",
  task: TASKS.analyst,
} satisfies IssueAgentSpec<AnalysisSubmission>;

export const issueAnalyst = issueAgentProfile(ANALYST);
export const issueAnalystAnswer = issueAnswerProfile(ANALYST);
