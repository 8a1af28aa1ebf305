import { stagePlan } from '../../progress/stage-plan.ts';

/** The investigation's phases, shown above each agent turn's tasks (docs/live-progress.md). */
export const INCIDENT_PLAN = stagePlan('Investigating the incident', [
  { id: 'triage', title: 'Triage', profiles: ['incident_triager'] },
  { id: 'hypotheses', title: 'Hypotheses', profiles: ['incident_hypothesizer'] },
  { id: 'investigation', title: 'Testing the hypotheses', profiles: ['incident_investigator'] },
  { id: 'conclusion', title: 'Conclusion', profiles: ['incident_concluder'] },
  { id: 'remediation', title: 'Remediation plan', profiles: ['incident_remediator'] },
]);
