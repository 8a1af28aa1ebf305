import { INCIDENT_DATA_TOOLS } from '../data-tools.ts';
import { TriageResult } from '../results/triage.ts';
import { INCIDENT_ROLE, incidentProfile } from './incident-common.ts';

/** Triage: the incident understood, its window and severity. */
export const incidentTriager = incidentProfile({
  name: 'incident_triager',
  submitTool: 'submit_triage',
  system: `${INCIDENT_ROLE} This is TRIAGE: understand the incident from the alert or the responder's description, look at the service map and recent deployments, read the symptoms and error messages in the telemetry, set the time window to investigate (about 30 minutes around the start unless the data says otherwise), and judge the severity. Keep queries targeted: a service and a bounded window, never everything.`,
  tools: INCIDENT_DATA_TOOLS,
  schema: TriageResult,
  description: 'Your triage of the incident. Ends the turn.',
  ask: () => 'Triage this incident, then submit it with submit_triage.',
});
