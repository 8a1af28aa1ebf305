import { HypothesesResult } from '../results/hypotheses.ts';
import { INCIDENT_ROLE, incidentProfile } from './incident-common.ts';

/** Hypothesize: 3 to 5 competing hypotheses about the root cause. */
export const incidentHypothesizer = incidentProfile({
  name: 'incident_hypothesizer',
  submitTool: 'submit_hypotheses',
  system: `${INCIDENT_ROLE} This is HYPOTHESIZE: from the triage in your session, form 3 to 5 testable, competing hypotheses about the root cause, each with a category, a priority (1 is the most likely), what evidence would confirm it, what would refute it, and the targeted queries (tool and purpose) that would tell. Cover the dependencies as well as the service itself.`,
  tools: [],
  schema: HypothesesResult,
  description: 'Your 3 to 5 hypotheses. Ends the turn.',
  ask: () => 'Form the hypotheses from your triage, and submit them with submit_hypotheses.',
});
