import type { ChangeKind } from '../../lambdas/workflows/incident-investigation/contract.ts';
import type { Scenario } from '../telemetry/scenario.ts';
import type { CaseBase } from '../types.ts';

/**
 * Incident cases: what a responder types after `/investigate`, the telemetry the emulators
 * serve (eval/telemetry/scenario.ts), and the truth responders established, which only the
 * grader reads (eval/graders/incident.ts grades the conclusion's fields against it).
 */

export interface IncidentTruth {
  outcome: 'root_cause' | 'inconclusive';
  /** root_cause: the names of the one component where the cause lies (the primary cause's `component` must be one). */
  component?: string[];
  /** root_cause: the kinds it may be filed as, and words one of which its `change` must contain. */
  change?: { kinds: ChangeKind[]; names: string[] };
  /**
   * root_cause: strings only the cause's own data shows (its deploy, its configuration line, the
   * exhausted resource's metric), never a symptom the alternatives share: one evidence id the
   * primary cause calls discriminating must show one.
   */
  evidence?: string[];
  /** inconclusive: the queries that would have shown a cause; each must have run and be cited as checked. */
  mustCheck?: { tool: 'query_logs' | 'query_metrics' | 'recent_deployments'; service: string }[];
}

export interface IncidentCase extends CaseBase {
  workflow: 'incident_investigation';
  request: string;
  scenario: Scenario;
  truth: IncidentTruth;
}

export const incident = (c: Omit<IncidentCase, 'workflow'>): IncidentCase => ({
  workflow: 'incident_investigation',
  ...c,
});
