import { defineProfiles } from '../../../agents/profile.ts';
import {
  ConclusionResult,
  EvaluationResult,
  HypothesesResult,
  RemediationPlanResult,
  TriageResult,
} from '../contract.ts';
import { INCIDENT_DATA_TOOLS } from '../data-tools.ts';
import { incidentProfile } from './incident-common.ts';

/**
 * The incident investigation's agent roles (its phases), served by its AgentTurn
 * function. Triage and the investigator query the data tools; the others work from their
 * session and the notes the workflow gives them (the tree, the conclusion, the skills).
 */

const ROLE =
  'You are an experienced site reliability engineer investigating a production incident with responders in a Slack thread.';

export const incidentTriager = incidentProfile({
  name: 'incident_triager',
  submitTool: 'submit_triage',
  system: `${ROLE} This is TRIAGE: understand the incident from the alert or the responder's description, look at the service map and recent deployments, read the symptoms and error messages in the telemetry, set the time window to investigate (about 30 minutes around the start unless the data says otherwise), and judge the severity. Keep queries targeted: a service and a bounded window, never everything.`,
  tools: INCIDENT_DATA_TOOLS,
  schema: TriageResult,
  description: 'Your triage of the incident. Ends the turn.',
  ask: () => 'Triage this incident, then submit it with submit_triage.',
});

export const incidentHypothesizer = incidentProfile({
  name: 'incident_hypothesizer',
  submitTool: 'submit_hypotheses',
  system: `${ROLE} This is HYPOTHESIZE: from the triage in your session, form 3 to 5 testable, competing hypotheses about the root cause, each with a category, a priority (1 is the most likely), what evidence would confirm it, what would refute it, and the targeted queries (tool and purpose) that would tell. Cover the dependencies as well as the service itself.`,
  tools: [],
  schema: HypothesesResult,
  description: 'Your 3 to 5 hypotheses. Ends the turn.',
  ask: () => 'Form the hypotheses from your triage, and submit them with submit_hypotheses.',
});

export const incidentInvestigator = incidentProfile({
  name: 'incident_investigator',
  submitTool: 'submit_evaluation',
  system: `${ROLE} This is INVESTIGATE and EVALUATE for one hypothesis (the notes name it): run its targeted queries with the data tools (at most 5 per round), then evaluate the evidence: strong, weak, none or contradicting, and decide: confirm (strong evidence, specific enough), branch into 2-3 more specific sub-hypotheses (strong but broad), continue (weak: more queries next round), or prune (none or contradicting). Other hypotheses are investigated at the same time by colleagues; stay on yours.`,
  tools: INCIDENT_DATA_TOOLS,
  schema: EvaluationResult,
  description: 'Your evaluation of the hypothesis with cited findings. Ends the turn.',
  ask: () => 'Investigate the hypothesis in the notes, then submit your evaluation with submit_evaluation.',
});

export const incidentConcluder = incidentProfile({
  name: 'incident_concluder',
  submitTool: 'submit_conclusion',
  system: `${ROLE} This is CONCLUDE: from the hypothesis tree in the notes and the investigation so far, state the root cause with its confidence and its evidence chain (each link citing evidence ids), the alternative explanations and the unknowns. With a root cause, also fill primary_cause: the one component where the cause lies (a service map name, never a list), the kind and the change or condition itself (the deploy version and what it changed, the key and value, the flag, the exhausted resource), and the evidence ids that tell this cause from the alternatives (the deploy, the configuration line, the resource's metric: not the symptoms every alternative shares). If no hypothesis was confirmed, the outcome is inconclusive: say what is known, list the gaps (what could not be checked and why), and in checked list what was looked at and showed no cause (the deployments, logs and metrics of the services involved) with the evidence ids of those queries.`,
  tools: [],
  schema: ConclusionResult,
  description: 'Your conclusion, or inconclusive with the gaps. Ends the turn.',
  ask: () => 'Conclude the investigation, and submit it with submit_conclusion.',
});

export const incidentRemediator = incidentProfile({
  name: 'incident_remediator',
  submitTool: 'submit_remediation_plan',
  system: `${ROLE} This is REMEDIATE: from the conclusion in the notes, plan the steps that mitigate and fix the incident. Prefer the configured skills and runbooks the notes list (name a skill only if it is listed, with its parameters); give every step its rollback and risk level, and say whether it needs approval (anything that changes a system does). Add the monitoring that shows the fix worked. People approve each step that changes anything before it runs.`,
  tools: [],
  schema: RemediationPlanResult,
  description: 'Your remediation plan. Ends the turn.',
  ask: () => 'Plan the remediation, and submit it with submit_remediation_plan.',
});

export const INCIDENT_PROFILES = defineProfiles({
  incident_triager: incidentTriager,
  incident_hypothesizer: incidentHypothesizer,
  incident_investigator: incidentInvestigator,
  incident_concluder: incidentConcluder,
  incident_remediator: incidentRemediator,
});
