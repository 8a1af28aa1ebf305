import { BUG_INVESTIGATION } from './bug-investigation.ts';
import type { WorkflowDefinition } from './kernel.ts';

/**
 * The workflows `cdk deploy` deploys: the bug investigation (seed 000) today, the other four
 * after it. The `kernel_probe` workflow (probe.ts) is for the sandbox tests and is
 * deliberately absent.
 */
export const PRODUCTION_WORKFLOWS: readonly WorkflowDefinition[] = [BUG_INVESTIGATION];
