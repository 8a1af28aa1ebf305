import { REQUIREMENTS_ANSWER_KINDS } from '../../lambdas/workflows/requirements-interview/answer-kinds.ts';
import type { RequirementsInterviewSettings } from '../../lambdas/workflows/requirements-interview/config.ts';
import { defineWorkflowModule } from '../workflow-module.ts';
import { REQUIREMENTS_FUNCTIONS, type RequirementsFunctionId } from './functions.ts';
import { REQUIREMENTS_INTERVIEW_SANDBOX } from './sandbox.ts';
import { REQUIREMENTS_INTERVIEW } from './workflow.ts';

/**
 * The requirements interview: `/prd <idea>`, or a mention of the bot with a
 * product idea, opens a thread where three agents interview the requester and write a PRD.
 */
export const REQUIREMENTS_INTERVIEW_MODULE = defineWorkflowModule<
  RequirementsFunctionId,
  RequirementsInterviewSettings
>({
  // Its name, configuration section and demo agents (sandbox.ts; `workflows` is replaced below).
  ...REQUIREMENTS_INTERVIEW_SANDBOX,
  answerKinds: REQUIREMENTS_ANSWER_KINDS,
  roles: ['requester', 'participant'],
  statuses: [],
  functions: REQUIREMENTS_FUNCTIONS,
  enabled: (settings) => settings.enabled,
  workflows: [REQUIREMENTS_INTERVIEW],
});
