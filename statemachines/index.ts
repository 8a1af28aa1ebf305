import type { WorkflowDefinition } from './kernel.ts';

/**
 * The workflows `cdk deploy` deploys. Empty until the first one lands: the bug-investigation
 * workflow (seed 000) arrives with the next issue, the other four after it. The
 * `kernel_probe` workflow (probe.ts) is for the sandbox tests and is deliberately absent.
 */
export const PRODUCTION_WORKFLOWS: readonly WorkflowDefinition[] = [];
