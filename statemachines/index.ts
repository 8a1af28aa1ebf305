import { BUG_INVESTIGATION } from './bug-investigation/workflow.ts';
import type { WorkflowDefinition } from './kernel.ts';
import { REQUIREMENTS_INTERVIEW } from './requirements-interview/workflow.ts';

/**
 * The workflows `cdk deploy` deploys: the bug investigation (seed 000) and the requirements
 * interview (seed 004); the others follow. The `kernel_probe` workflow (probe.ts) is for the sandbox tests and is
 * deliberately absent.
 */
export const PRODUCTION_WORKFLOWS: readonly WorkflowDefinition[] = [
  BUG_INVESTIGATION,
  REQUIREMENTS_INTERVIEW,
];
