import { codeToolSpecs } from '../../../tools/code/deployment.ts';
import { CODE_TOOL_NAMES } from '../../../tools/code/tools.ts';
import { ReviewSubmission } from '../submissions/review.ts';
import { type IssueAgentSpec, issueAgentProfile, issueAnswerProfile } from './common.ts';
import { ROLES, TASKS } from './prompts.ts';

/** The reviewer: reads the change through its diff only. */
const REVIEWER = {
  agent: 'reviewer',
  role: ROLES.reviewer,
  tools: () => codeToolSpecs([CODE_TOOL_NAMES.getDiff]),
  schema: ReviewSubmission,
  submitTool: 'submit_review',
  submitDescription: 'Submit your review verdict. Call it last, exactly once.',
  task: TASKS.reviewer,
} satisfies IssueAgentSpec<ReviewSubmission>;

export const issueReviewer = issueAgentProfile(REVIEWER);
export const issueReviewerAnswer = issueAnswerProfile(REVIEWER);
