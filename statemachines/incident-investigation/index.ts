import { INCIDENT_ANSWER_KINDS } from '../../lambdas/workflows/incident-investigation/answer-kinds.ts';
import {
  type IncidentInvestigationSettings,
  incidentEnvironment,
} from '../../lambdas/workflows/incident-investigation/config.ts';
import { STEP_DECISION } from '../../lambdas/workflows/incident-investigation/remediation.ts';
import { defineWorkflowModule } from '../workflow-module.ts';
import { provisionAutomationRole } from './automation-role.ts';
import { incidentProblems } from './checks.ts';
import { INCIDENT_FUNCTIONS, type IncidentFunctionId } from './functions.ts';
import { incidentPermissions } from './permissions.ts';
import { incidentPreflight } from './preflight.ts';
import { INCIDENT_INVESTIGATION_SANDBOX } from './sandbox.ts';
import { grantTelemetryAccess } from './telemetry-access.ts';
import { INCIDENT_INVESTIGATION } from './workflow.ts';

/**
 * Incident investigation: `/investigate ...`, or an alert of a configured service,
 * opens a thread in the incidents channel where hypotheses are tested against telemetry, a
 * conclusion is drawn with its evidence chain, and remediation steps run only once approved.
 */
export const INCIDENT_INVESTIGATION_MODULE = defineWorkflowModule<
  IncidentFunctionId,
  IncidentInvestigationSettings
>({
  // Its name, configuration section, demo agents and view in the sandbox's console (sandbox.ts;
  // `workflows` is replaced below).
  ...INCIDENT_INVESTIGATION_SANDBOX,
  answerKinds: INCIDENT_ANSWER_KINDS,
  channels: {
    /** Every incident gets a thread here (placeholder id). */
    incidents: 'C_INCIDENTS',
  },
  roles: ['responder', 'incident_approver'],
  people: {
    /** Who may approve a remediation step (placeholder group: the on-call group). */
    incident_approver: { groups: ['S_ONCALL'] },
  },
  decisions: { [STEP_DECISION]: ['incident_approver'] },
  functions: INCIDENT_FUNCTIONS,
  // The demo skill is deployed only when a configured skill names it.
  disabledFunctions: (settings) =>
    settings.skills.some((s) => s.target.type === 'demo') ? [] : ['IncidentDemoSkill'],
  environment: (settings) => incidentEnvironment(settings),
  permissions: (settings) => incidentPermissions(settings),
  provision: (scope, settings, functions, stack) => {
    provisionAutomationRole(scope, settings, functions);
    // The telemetry tools read exactly what `incidentInvestigation.telemetry` names.
    if (functions.IncidentTelemetryTools !== undefined)
      grantTelemetryAccess(functions.IncidentTelemetryTools, settings.telemetry, stack);
  },
  check: (settings, kernel) => incidentProblems(settings, kernel),
  preflight: (settings) => incidentPreflight(settings),
  enabled: (settings) => settings.enabled,
  workflows: [INCIDENT_INVESTIGATION],
});
