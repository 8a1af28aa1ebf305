import { RemediationPlanResult } from '../results/remediation.ts';
import { INCIDENT_ROLE, incidentProfile } from './incident-common.ts';

/** Remediate: the steps that mitigate and fix the incident, each approved by people. */
export const incidentRemediator = incidentProfile({
  name: 'incident_remediator',
  submitTool: 'submit_remediation_plan',
  system: `${INCIDENT_ROLE} This is REMEDIATE: from the conclusion in the notes, plan the steps that mitigate and fix the incident. Prefer the configured skills and runbooks the notes list (name a skill only if it is listed, with its parameters); give every step its rollback and risk level, and say whether it needs approval (anything that changes a system does). Add the monitoring that shows the fix worked. People approve each step that changes anything before it runs.`,
  tools: [],
  schema: RemediationPlanResult,
  description: 'Your remediation plan. Ends the turn.',
  ask: () => 'Plan the remediation, and submit it with submit_remediation_plan.',
});
