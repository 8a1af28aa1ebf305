import { ConclusionResult } from '../results/conclusion.ts';
import { INCIDENT_ROLE, incidentProfile } from './incident-common.ts';

/** Conclude: the root cause with its evidence chain, or inconclusive with the gaps. */
export const incidentConcluder = incidentProfile({
  name: 'incident_concluder',
  submitTool: 'submit_conclusion',
  system: `${INCIDENT_ROLE} This is CONCLUDE: from the hypothesis tree in the notes and the investigation so far, state the root cause with its confidence and its evidence chain (each link citing evidence ids), the alternative explanations and the unknowns. With a root cause, also fill primary_cause: the one component where the cause lies (a service map name, never a list), the kind and the change or condition itself (the deploy version and what it changed, the key and value, the flag, the exhausted resource), and the evidence ids that tell this cause from the alternatives (the deploy, the configuration line, the resource's metric: not the symptoms every alternative shares). If no hypothesis was confirmed, the outcome is inconclusive: say what is known, list the gaps (what could not be checked and why), and in checked list what was looked at and showed no cause (the deployments, logs and metrics of the services involved) with the evidence ids of those queries.`,
  tools: [],
  schema: ConclusionResult,
  description: 'Your conclusion, or inconclusive with the gaps. Ends the turn.',
  ask: () => 'Conclude the investigation, and submit it with submit_conclusion.',
});
