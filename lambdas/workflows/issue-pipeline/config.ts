import * as z from 'zod';
import { BuildSettings } from '../../builds/contract.ts';
import { ProtectedChangeHandling } from '../../changes/protected-paths.ts';

/**
 * The issue pipeline's section of the stack configuration (`slackAgents.issuePipeline`),
 * composed into the stack's schema by its module (statemachines/issue-pipeline). Without a
 * repository the module deploys nothing.
 */
export const IssuePipelineSettings = z.strictObject({
  /**
   * The repository whose labelled issues start a pipeline, `owner/name`; the agents read and
   * write it and the Committer opens pull requests on it.
   * @default - none: the pipeline is not deployed
   */
  repository: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'expected owner/name, e.g. demo/webshop')
    .optional(),
  /** The label that starts a pipeline on an issue. @default 'agent' */
  label: z.string().min(1).max(50).default('agent'),
  /** Writer attempts (a rejection or a failed build sends it back) before the pipeline fails. @default 3 */
  maxAttempts: z.number().int().min(1).max(10).default(3),
  /** Model tokens (input + output) one pipeline may spend before it is blocked. @default 1500000 */
  maxTokens: z.number().int().positive().default(1_500_000),
  /**
   * Cost ceiling in US dollars, held against the conversation ledger's estimated cost (each
   * model call priced by the platform's price table, lambdas/agents/pricing.ts): the pipeline
   * is blocked at whichever of the two ceilings comes first. @default 20
   */
  maxCostUsd: z.number().positive().default(20),
  /** Wall-clock limit of one pipeline, from its start, in minutes. @default 240 */
  wallClockMinutes: z.number().int().min(5).max(10_080).default(240),
  /** How long a question to people or an escalation waits for an answer, in seconds. @default 86400 */
  humanWaitSeconds: z.number().int().min(60).max(604_800).default(86_400),
  /**
   * Path prefixes protected for this pipeline besides `slackAgents.protectedPaths` (each: every
   * path that starts with it, in any case). @default []
   */
  sensitivePaths: z.array(z.string().min(1)).default([]),
  /**
   * A change touching a protected path: `approve` waits for an approver's button
   * (`slackAgents.approvals.approve_sensitive_change`, developers by default) with the real
   * diff of those files before the Committer; `refuse` blocks the pipeline with the reason, in
   * Slack and on the issue. @default 'approve'
   */
  protectedChanges: ProtectedChangeHandling.default('approve'),
  /** Whether the Committer opens a draft or a ready pull request. @default 'draft' */
  pullRequest: z.enum(['draft', 'ready']).default('draft'),
  /** The checks a change must pass (CodeBuild). */
  build: BuildSettings,
});
export type IssuePipelineSettings = z.infer<typeof IssuePipelineSettings>;

/** The variable carrying the validated settings (JSON) to the pipeline's functions. */
export const ISSUE_PIPELINE_SETTINGS_ENV = 'ISSUE_PIPELINE_SETTINGS';
