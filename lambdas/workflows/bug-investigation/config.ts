import * as z from 'zod';

/**
 * The bug investigation's section of the stack configuration (`slackAgents.bugInvestigation`),
 * composed into the stack's schema by its module (statemachines/bug-investigation). Who is a
 * developer and who is on call (the group escalations mention) is `slackAgents.people`.
 */
export const BugInvestigationSettings = z.strictObject({
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
});
export type BugInvestigationSettings = z.infer<typeof BugInvestigationSettings>;
