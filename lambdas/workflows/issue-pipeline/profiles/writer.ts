import { ALL_CODE_TOOLS, codeToolSpecs } from '../../../tools/code/deployment.ts';
import { ChangesSubmission } from '../submissions/changes.ts';
import { type IssueAgentSpec, issueAgentProfile, issueAnswerProfile } from './common.ts';
import { ROLES, TASKS } from './prompts.ts';

/** The writer: reads and writes on the pipeline's work branch. */
const WRITER = {
  agent: 'writer',
  role: ROLES.writer,
  tools: () => codeToolSpecs(ALL_CODE_TOOLS),
  schema: ChangesSubmission,
  submitTool: 'submit_changes',
  submitDescription: 'Submit the changes you committed on the work branch. Call it last, exactly once.',
  task: TASKS.writer,
} satisfies IssueAgentSpec<ChangesSubmission>;

export const issueWriter = issueAgentProfile(WRITER);
export const issueWriterAnswer = issueAnswerProfile(WRITER);
