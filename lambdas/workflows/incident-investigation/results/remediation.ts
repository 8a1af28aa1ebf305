import * as z from 'zod';
import { Text } from './shared.ts';

/** The remediator's result (profiles/remediator.ts). */

export const RiskLevel = z.enum(['low', 'medium', 'high']);

/** `submit_remediation_plan`: the RemediationPlan. */
export const RemediationPlanResult = z.strictObject({
  steps: z
    .array(
      z.strictObject({
        action: Text(500),
        /** A command for people to run (shown, never run by the workflow). */
        command: Text(500).optional(),
        /** A configured skill the workflow runs for this step, after approval when it mutates. */
        skill: Text(64).optional(),
        parameters: z.record(z.string().max(64), z.string().max(500)).optional(),
        rollback: Text(500).optional(),
        risk_level: RiskLevel,
        requires_approval: z.boolean(),
        runbook: Text(64).optional(),
      }),
    )
    .max(8),
  estimated_recovery_time: Text(100),
  monitoring: z.array(Text(300)).max(8),
});
export type RemediationPlanResult = z.infer<typeof RemediationPlanResult>;
