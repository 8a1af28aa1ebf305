import * as z from 'zod';
import { taskHandler } from '../../../handlers/task-handler.ts';
import { createLogger } from '../../../shared/logger.ts';
import { powertoolsMetricsSink } from '../adapters/metrics-sink.ts';
import {
  ConclusionResult,
  EvaluationResult,
  HypothesesResult,
  RemediationPlanResult,
  TriageResult,
} from '../contract.ts';
import {
  mergeInvestigationRound,
  planRound,
  recordConclusion,
  recordEvaluation,
  recordHypotheses,
  recordTriage,
  startIncident,
} from '../investigation.ts';
import { finishInvestigation } from '../metrics.ts';
import { decideStep, failStep, nextStep, recordPlan } from '../remediation.ts';
import { remediationNotes } from '../remediation-notes.ts';
import {
  conversations,
  evidenceLedger,
  incidentStore,
  investigationConfig,
  remediationConfig,
} from '../wiring.ts';

const logger = createLogger('incident-records');
const metricsSink = powertoolsMetricsSink();

const Id = { conversationId: z.string().min(1) };
/** An agent turn's outcome as the state machine hands it over: its result when it submitted one. */
const Turn = <R extends z.ZodType>(result: R) => ({
  turn: z.object({
    action: z.enum(['submitted', 'continue', 'escalate']),
    result: result.optional(),
    error: z.string().optional(),
    sessionId: z.string().optional(),
  }),
});

/** The IncidentRecords task's input: which record keeping step, with what (small: ids, a turn's result). */
export const IncidentRecordsInput = z.discriminatedUnion('op', [
  z.object({ op: z.literal('start'), ...Id, channel: z.string().min(1), threadTs: z.string().min(1) }),
  z.object({ op: z.literal('triage'), ...Id, result: TriageResult }),
  z.object({ op: z.literal('hypotheses'), ...Id, result: HypothesesResult }),
  z.object({ op: z.literal('plan_round'), ...Id, turn: z.number().int().nonnegative() }),
  z.object({
    op: z.literal('evaluation'),
    ...Id,
    hypothesisId: z.string().min(1),
    round: z.number().int().positive(),
    ...Turn(EvaluationResult),
  }),
  z.object({ op: z.literal('merge'), ...Id, round: z.number().int().positive() }),
  z.object({ op: z.literal('conclusion'), ...Id, ...Turn(ConclusionResult) }),
  z.object({ op: z.literal('plan'), ...Id, ...Turn(RemediationPlanResult) }),
  z.object({ op: z.literal('next_step'), ...Id }),
  z.object({
    op: z.literal('decide_step'),
    ...Id,
    index: z.number().int().nonnegative(),
    outcome: z.enum(['decided', 'expired']),
  }),
  z.object({
    op: z.literal('fail_step'),
    ...Id,
    index: z.number().int().nonnegative(),
    error: z.string().min(1),
    cause: z.string().optional(),
  }),
  z.object({ op: z.literal('finish'), ...Id }),
]);
export type IncidentRecordsInput = z.infer<typeof IncidentRecordsInput>;

/** A turn that did not submit: its error, or why it has none. */
const failure = (turn: { action: string; error?: string | undefined; stoppedByPerson?: true | undefined }) =>
  turn.error ??
  (turn.stoppedByPerson
    ? 'a person stopped the turn before it submitted (its session goes on next round)'
    : turn.action === 'continue'
      ? 'the turn ran out of its budget before it submitted (its session goes on next round)'
      : `the turn ended with ${turn.action}`);

/** The result of a turn that submitted one, or the error of one that did not. */
function turnOutcome<R>(turn: {
  action: string;
  result?: R | undefined;
  error?: string | undefined;
  stoppedByPerson?: true | undefined;
}) {
  return turn.action === 'submitted' && turn.result !== undefined
    ? { result: turn.result }
    : { error: failure(turn) };
}

async function run(input: IncidentRecordsInput): Promise<unknown> {
  const now = () => new Date();
  const base = { incidents: incidentStore(), conversations: conversations(), now };
  const investigation = () => ({ ...base, evidence: evidenceLedger(), config: investigationConfig() });
  const remediation = () => ({ ...base, config: remediationConfig() });
  switch (input.op) {
    case 'start':
      return startIncident(input, investigation());
    case 'triage':
      return recordTriage(input, investigation());
    case 'hypotheses':
      return recordHypotheses(input, investigation());
    case 'plan_round':
      return planRound(input, investigation());
    case 'evaluation':
      return recordEvaluation(
        {
          conversationId: input.conversationId,
          hypothesisId: input.hypothesisId,
          round: input.round,
          ...(input.turn.sessionId ? { sessionId: input.turn.sessionId } : {}),
          ...turnOutcome(input.turn),
        },
        investigation(),
      );
    case 'merge':
      return mergeInvestigationRound(input, investigation());
    case 'conclusion': {
      const outcome = await recordConclusion(
        {
          conversationId: input.conversationId,
          ...turnOutcome(input.turn),
        },
        investigation(),
      );
      const record = await base.incidents.getRecord(input.conversationId);
      return { ...outcome, notes: remediationNotes(record?.conclusion, remediationConfig()) };
    }
    case 'plan':
      return recordPlan(
        {
          conversationId: input.conversationId,
          ...turnOutcome(input.turn),
        },
        remediation(),
      );
    case 'next_step':
      return nextStep(input, remediation());
    case 'decide_step':
      return decideStep(input, remediation());
    case 'fail_step':
      return failStep(input, remediation());
    case 'finish':
      return finishInvestigation(input, { ...base, evidence: evidenceLedger(), sink: metricsSink });
  }
}

/**
 * IncidentRecords: the investigation's record keeping (investigation.ts, remediation.ts,
 * metrics.ts), one step per call, each idempotent so the state machine may retry it.
 */
export const handler = taskHandler({
  task: 'IncidentRecords',
  schema: IncidentRecordsInput,
  logger,
  run: (input) => run(input),
  summary: (input, output) => ({ op: input.op, output }),
});
