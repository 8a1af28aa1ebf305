import { defineProfiles } from '../../../agents/profile.ts';
import { incidentConcluder } from './concluder.ts';
import { incidentHypothesizer } from './hypothesizer.ts';
import { incidentInvestigator } from './investigator.ts';
import { incidentRemediator } from './remediator.ts';
import { incidentTriager } from './triager.ts';

/**
 * The incident investigation's agent roles (its phases), served by its AgentTurn
 * function. Triage and the investigator query the data tools; the others work from their
 * session and the notes the workflow gives them (the tree, the conclusion, the skills).
 */
export const INCIDENT_PROFILES = defineProfiles({
  incident_triager: incidentTriager,
  incident_hypothesizer: incidentHypothesizer,
  incident_investigator: incidentInvestigator,
  incident_concluder: incidentConcluder,
  incident_remediator: incidentRemediator,
});
