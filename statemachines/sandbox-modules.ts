import { BUG_INVESTIGATION_SANDBOX } from './bug-investigation/sandbox.ts';
import { CHANNEL_CONVERSATIONS_MODULE } from './channel-conversations.ts';
import { INCIDENT_INVESTIGATION_SANDBOX } from './incident-investigation/sandbox.ts';
import { ISSUE_PIPELINE_SANDBOX } from './issue-pipeline/sandbox.ts';
import type { SandboxModule } from './module-sandbox.ts';
import { REQUIREMENTS_INTERVIEW_SANDBOX } from './requirements-interview/sandbox.ts';

/**
 * What the sandbox reads of `WORKFLOW_MODULES` (index.ts), in the same order, without the code
 * that builds their state machines: the sandbox runs the synthesized template (synthesized in a
 * process of its own), so loading that code, and aws-cdk-lib with it, would cost every process
 * that runs a sandbox about a CPU-second for nothing. Each module takes these parts from here,
 * and test/statemachines/sandbox-modules.test.ts checks the two lists agree. The channel
 * conversations' module has no state machine, so it is its own.
 */
export const SANDBOX_MODULES: readonly SandboxModule[] = [
  BUG_INVESTIGATION_SANDBOX,
  REQUIREMENTS_INTERVIEW_SANDBOX,
  CHANNEL_CONVERSATIONS_MODULE,
  ISSUE_PIPELINE_SANDBOX,
  INCIDENT_INVESTIGATION_SANDBOX,
];
