import { stagePlan } from '../../progress/stage-plan.ts';

/** The investigation's phases, shown above each agent turn's tasks (docs/live-progress.md). */
export const INCIDENT_PLAN = stagePlan('Investigating the incident', [
  { id: 'triage', title: 'Triage', profiles: ['incident_triager'] },
  { id: 'hypotheses', title: 'Hypotheses', profiles: ['incident_hypothesizer'] },
  { id: 'investigation', title: 'Testing the hypotheses', profiles: ['incident_investigator'] },
  { id: 'conclusion', title: 'Conclusion', profiles: ['incident_concluder'] },
  { id: 'remediation', title: 'Remediation plan', profiles: ['incident_remediator'] },
]);

/**
 * One timeline per round: the investigation's turns, from the triage to the remediation plan,
 * the hypotheses tested at once among them, share one timeline. It closes with the plan's turn
 * (then people decide, step by step), with a phase's turn a person stopped (the investigation
 * then waits for people), or, should the investigation fail, with the post that says so. A
 * stopped hypothesis's turn leaves it open: the round's other hypotheses go on.
 */
export const INCIDENT_ROUND = {
  ends: (input: { profile: string }, how: { stopped: boolean }) =>
    input.profile === 'incident_remediator' || (how.stopped && input.profile !== 'incident_investigator'),
};
