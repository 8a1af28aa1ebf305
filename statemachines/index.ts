import { BUG_INVESTIGATION_MODULE } from './bug-investigation/index.ts';
import { CHANNEL_CONVERSATIONS_MODULE } from './channel-conversations.ts';
import { INCIDENT_INVESTIGATION_MODULE } from './incident-investigation/index.ts';
import { ISSUE_PIPELINE_MODULE } from './issue-pipeline/index.ts';
import { REQUIREMENTS_INTERVIEW_MODULE } from './requirements-interview/index.ts';
import type { AnyWorkflowModule } from './workflow-module.ts';

/**
 * The workflow modules `cdk deploy` deploys, and the sandbox runs: adding a workflow is a new
 * module (statemachines/<workflow> and lambdas/workflows/<workflow>) and one entry here. The
 * `kernel_probe` module (probe.ts) is for the sandbox tests and is deliberately absent.
 */
export const WORKFLOW_MODULES: readonly AnyWorkflowModule[] = [
  BUG_INVESTIGATION_MODULE,
  REQUIREMENTS_INTERVIEW_MODULE,
  CHANNEL_CONVERSATIONS_MODULE,
  ISSUE_PIPELINE_MODULE,
  INCIDENT_INVESTIGATION_MODULE,
];
