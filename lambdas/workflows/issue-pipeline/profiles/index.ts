import { defineProfiles } from '../../../agents/profile.ts';
import { ALL_CODE_TOOLS, codeToolSpecs, READ_CODE_TOOLS } from '../../../tools/code/deployment.ts';
import { CODE_TOOL_NAMES } from '../../../tools/code/tools.ts';
import { AnalysisSubmission, ChangesSubmission, ReviewSubmission, TriageSubmission } from '../contract.ts';
import { type IssueAgentSpec, issueAgentProfile, issueAnswerProfile } from './common.ts';
import { ROLES, TASKS } from './prompts.ts';

/**
 * The issue pipeline's agents, each its own profile: triage, analyst and reviewer
 * read the code (the reviewer through the diff only), the writer reads and writes on the
 * pipeline's work branch. Each submits through its own final tool.
 */

const readTools = () => codeToolSpecs(READ_CODE_TOOLS);

const SPECS = {
  triage: {
    agent: 'triage',
    role: ROLES.triage,
    tools: readTools,
    schema: TriageSubmission,
    submitTool: 'submit_triage',
    submitDescription: 'Submit your triage of the issue. Call it last, exactly once.',
    task: TASKS.triage,
  } satisfies IssueAgentSpec<TriageSubmission>,
  analyst: {
    agent: 'analyst',
    role: ROLES.analyst,
    tools: readTools,
    schema: AnalysisSubmission,
    submitTool: 'submit_analysis',
    submitDescription: "Submit your analysis and the writer's brief. Call it last, exactly once.",
    task: TASKS.analyst,
  } satisfies IssueAgentSpec<AnalysisSubmission>,
  writer: {
    agent: 'writer',
    role: ROLES.writer,
    tools: () => codeToolSpecs(ALL_CODE_TOOLS),
    schema: ChangesSubmission,
    submitTool: 'submit_changes',
    submitDescription: 'Submit the changes you committed on the work branch. Call it last, exactly once.',
    task: TASKS.writer,
  } satisfies IssueAgentSpec<ChangesSubmission>,
  reviewer: {
    agent: 'reviewer',
    role: ROLES.reviewer,
    tools: () => codeToolSpecs([CODE_TOOL_NAMES.getDiff]),
    schema: ReviewSubmission,
    submitTool: 'submit_review',
    submitDescription: 'Submit your review verdict. Call it last, exactly once.',
    task: TASKS.reviewer,
  } satisfies IssueAgentSpec<ReviewSubmission>,
} as const;

export const ISSUE_PIPELINE_PROFILES = defineProfiles({
  issue_triage: issueAgentProfile(SPECS.triage),
  issue_analyst: issueAgentProfile(SPECS.analyst),
  issue_writer: issueAgentProfile(SPECS.writer),
  issue_reviewer: issueAgentProfile(SPECS.reviewer),
  issue_triage_answer: issueAnswerProfile(SPECS.triage),
  issue_analyst_answer: issueAnswerProfile(SPECS.analyst),
  issue_writer_answer: issueAnswerProfile(SPECS.writer),
  issue_reviewer_answer: issueAnswerProfile(SPECS.reviewer),
});
