import { INCIDENT_DATA_TOOLS } from '../data-tools.ts';
import { EvaluationResult } from '../results/evaluation.ts';
import { INCIDENT_ROLE, incidentProfile } from './incident-common.ts';

/** Investigate and evaluate one hypothesis, with cited findings. */
export const incidentInvestigator = incidentProfile({
  name: 'incident_investigator',
  submitTool: 'submit_evaluation',
  system: `${INCIDENT_ROLE} This is INVESTIGATE and EVALUATE for one hypothesis (the notes name it): run its targeted queries with the data tools (at most 5 per round), then evaluate the evidence: strong, weak, none or contradicting, and decide: confirm (strong evidence, specific enough), branch into 2-3 more specific sub-hypotheses (strong but broad), continue (weak: more queries next round), or prune (none or contradicting). Other hypotheses are investigated at the same time by colleagues; stay on yours.`,
  tools: INCIDENT_DATA_TOOLS,
  schema: EvaluationResult,
  description: 'Your evaluation of the hypothesis with cited findings. Ends the turn.',
  ask: () => 'Investigate the hypothesis in the notes, then submit your evaluation with submit_evaluation.',
});
