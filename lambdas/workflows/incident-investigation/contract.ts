/**
 * The incident investigation's structured answers, as the model submits them
 * through its final tools (`submit_triage`, `submit_hypotheses`, `submit_evaluation`,
 * `submit_conclusion`, `submit_remediation_plan`), and the small outputs its agent turns give
 * the state machine. Field names are the model's (snake case); code checks every rule that
 * matters (evidence.ts), whatever the model wrote.
 *
 * Each role's result is a module of its own (results/), so a turn builds the schemas of the role
 * it runs only (profiles/roles.ts); this module gathers them for the rest of the workflow.
 */

export {
  ChangeKind,
  CheckedQuery,
  ConclusionResult,
  ConfidenceLevel,
  PrimaryCause,
} from './results/conclusion.ts';
export { EvaluationAction, EvaluationResult, EvidenceStrength } from './results/evaluation.ts';
export { HypothesesResult, SuggestedQuery } from './results/hypotheses.ts';
export { RemediationPlanResult, RiskLevel } from './results/remediation.ts';
export { Category, CitedFinding, type IncidentTurnOutput, incidentTurnOutput } from './results/shared.ts';
export { Severity, TriageResult } from './results/triage.ts';
