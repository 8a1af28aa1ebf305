import * as z from 'zod';
import { BuildSettings } from '../../builds/contract.ts';
import { ProtectedChangeHandling } from '../../changes/protected-paths.ts';

/**
 * The bug investigation's section of the stack configuration (`slackAgents.bugInvestigation`),
 * composed into the stack's schema by its module (statemachines/bug-investigation). Who is a
 * developer and who is on call (the group escalations mention) is `slackAgents.people`.
 */
export const BugInvestigationSettings = z.strictObject({
  /**
   * Whether the bug investigation is deployed; on, it needs `channels.bugReports`,
   * `bugSummaries` and `developers`, and people in `developer` and `on_call`.
   * @default true
   */
  enabled: z.boolean().default(true),
  /**
   * SLA tracking of escalations: minutes a developer has to acknowledge, per severity, and
   * how many reminders (each escalating one level) are posted before it gives up.
   * @default { acknowledgeMinutes: { critical: 15, high: 60, medium: 240, low: 1440 }, maxReminders: 3 }
   */
  sla: z
    .strictObject({
      acknowledgeMinutes: z
        .strictObject({
          critical: z.number().int().positive().default(15),
          high: z.number().int().positive().default(60),
          medium: z.number().int().positive().default(240),
          low: z.number().int().positive().default(1440),
        })
        .prefault({}),
      maxReminders: z.number().int().min(0).max(10).default(3),
    })
    .prefault({}),
  /**
   * Agent turns after which an investigation hands its conversation to a fresh execution
   * (continue-as-new), far below Step Functions' 25,000-event history limit.
   * @default 40
   */
  continueAsNewAfterTurns: z.number().int().min(2).max(500).default(40),
  /**
   * The repository the investigator reads and the fixer changes, `owner/name`. Without one
   * the bug workflow runs without code tools and its findings say no code was inspected.
   * @default - none
   */
  repository: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'expected owner/name, e.g. demo/webshop')
    .optional(),
  /** The checks a fix must pass: the CodeBuild project's commands and limits. */
  build: BuildSettings,
  /**
   * A fix touching a protected path (`slackAgents.protectedPaths`): `approve` waits for an
   * approver's button (`slackAgents.approvals.approve_protected_fix`, developers by default)
   * with the real diff of those files; `refuse` opens no pull request and says why in both
   * threads. @default 'approve'
   */
  protectedChanges: ProtectedChangeHandling.default('approve'),
  /** Build-and-fix attempts before the workflow gives up on a fix (at most 3). @default 3 */
  maxFixAttempts: z.number().int().min(1).max(3).default(3),
});
export type BugInvestigationSettings = z.infer<typeof BugInvestigationSettings>;
