import type { Scenario } from '../telemetry/scenario.ts';
import type { CaseBase } from '../types.ts';

/**
 * Incident cases: what a responder types after `/investigate`, the telemetry the emulators
 * serve (eval/telemetry/scenario.ts), and the truth responders established, which only the
 * grader reads. `component` and `change`: the concluded root cause must name one alias of
 * each; `evidence`: one cited tool result must show one of these strings.
 */

export interface IncidentTruth {
  outcome: 'root_cause' | 'inconclusive';
  component?: string[];
  change?: string[];
  evidence?: string[];
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
