import { DEMO_SKILL_FUNCTION_KEY } from '../../lambdas/workflows/incident-investigation/adapters/skill-runner.ts';
import {
  TELEMETRY_TOOLS_FUNCTION,
  telemetryToolFunctions,
} from '../../lambdas/workflows/incident-investigation/telemetry/deployment.ts';
import { agentTurnFunction, type FunctionSpec, TASK_FUNCTION_TIMEOUT_SECONDS } from '../kernel-functions.ts';

/** The incident investigation's own functions, by construct id. */
export type IncidentFunctionId =
  | 'IncidentAgentTurn'
  | 'IncidentTelemetryTools'
  | 'IncidentRecords'
  | 'IncidentProgress'
  | 'IncidentRemediation'
  | 'IncidentDemoSkill';

const LAMBDAS = 'lambdas/workflows/incident-investigation/handlers';

/** A remediation step's skill may take minutes (an SSM Automation): the runner waits up to 4 of them. */
export const REMEDIATION_TIMEOUT_SECONDS = 300;

export const INCIDENT_FUNCTIONS = {
  /** The five agents' turns (triage, hypotheses, investigation, conclusion, plan) with the data tools. */
  IncidentAgentTurn: agentTurnFunction<IncidentFunctionId>(
    `${LAMBDAS}/agent-turn.ts`,
    telemetryToolFunctions('IncidentTelemetryTools'),
  ),
  /** The data tools (lambdas/workflows/incident-investigation/telemetry): logs, metrics, deployments, service map, PagerDuty; the evidence ledger. */
  IncidentTelemetryTools: TELEMETRY_TOOLS_FUNCTION,
  /** The record keeping: the tree, the rounds, the evidence rules, the plan, the metrics. */
  IncidentRecords: {
    entry: `${LAMBDAS}/records.ts`,
    timeoutSeconds: TASK_FUNCTION_TIMEOUT_SECONDS,
    memoryMb: 256,
    access: { table: 'read_write' },
  },
  /** One message per phase in the incident thread, posted once and updated in place. */
  IncidentProgress: {
    entry: `${LAMBDAS}/progress.ts`,
    timeoutSeconds: TASK_FUNCTION_TIMEOUT_SECONDS,
    memoryMb: 256,
    access: { table: 'read_write', slackSecret: true },
  },
  /** Runs an approved step through its skill (Lambda, SSM Automation, the demo skill), and its rollback. */
  IncidentRemediation: {
    entry: `${LAMBDAS}/remediation.ts`,
    timeoutSeconds: REMEDIATION_TIMEOUT_SECONDS,
    memoryMb: 256,
    access: { table: 'read_write', tools: { [DEMO_SKILL_FUNCTION_KEY]: 'IncidentDemoSkill' } },
  },
  /** The labelled demo skill (changes nothing): deployed only when a configured skill names it. */
  IncidentDemoSkill: {
    entry: `${LAMBDAS}/demo-skill.ts`,
    timeoutSeconds: TASK_FUNCTION_TIMEOUT_SECONDS,
    memoryMb: 128,
  },
} as const satisfies Record<IncidentFunctionId, FunctionSpec<IncidentFunctionId>>;
