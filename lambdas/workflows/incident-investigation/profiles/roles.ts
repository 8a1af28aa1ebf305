import type { ProfileLoaders } from '../../../agents/profile.ts';

/**
 * The incident investigation's roles as its AgentTurn function loads them: each on the first
 * turn that runs it, with its result's schemas (results/), so an investigator's cold start
 * leaves the triage, conclusion and remediation contracts unread. The same roles as
 * `INCIDENT_PROFILES` (index.ts); a test checks they stay so.
 */
export const INCIDENT_ROLES: ProfileLoaders = {
  incident_triager: async () => (await import('./triager.ts')).incidentTriager,
  incident_hypothesizer: async () => (await import('./hypothesizer.ts')).incidentHypothesizer,
  incident_investigator: async () => (await import('./investigator.ts')).incidentInvestigator,
  incident_concluder: async () => (await import('./concluder.ts')).incidentConcluder,
  incident_remediator: async () => (await import('./remediator.ts')).incidentRemediator,
};
