import type { ApprovalWaitResult } from '../../lambdas/kernel/approval-wait.ts';
import type { IncidentTurnOutput } from '../../lambdas/workflows/incident-investigation/contract.ts';
import type { planRound, RoundItem } from '../../lambdas/workflows/incident-investigation/investigation.ts';
import type { decideStep, nextStep } from '../../lambdas/workflows/incident-investigation/remediation.ts';
import type { CaughtError, KernelState } from '../kernel-state.ts';
import { stateOf } from '../result-paths.ts';
import type { PostedMessage } from '../slack-post.ts';

/**
 * The incident investigation's state as a type (described field by field in states.ts): every
 * JSONPath of its graph comes from `INCIDENT_STATE`, or `ITERATION_STATE` inside the Map.
 */

/** What IncidentRecords answers to an op: the answer of the record keeping the op runs. */
type Answer<F extends (...args: never[]) => Promise<unknown>> = Awaited<ReturnType<F>>;

export type IncidentState = KernelState & {
  readonly thread: PostedMessage;
  /** `investigating`, the `state` of every agent turn. */
  readonly agentState: string;
  /** Notes of the triage and hypothesis turns. */
  readonly notes: readonly string[];
  readonly sessions: { readonly main?: string };
  /** The last agent turn's output; its result is the phase's own (recorded by the next task). */
  readonly turnResult?: IncidentTurnOutput<unknown>;
  readonly roundPlan?: Answer<typeof planRound>;
  /** The conclusion's outcome and the remediation agent's notes (the `conclusion` op's answer). */
  readonly conclusion?: { readonly notes: readonly string[] };
  readonly step?: Answer<typeof nextStep>;
  readonly stepApproval?: ApprovalWaitResult;
  readonly stepDecision?: Answer<typeof decideStep>;
  /** The skill's run, kept for the execution history. */
  readonly stepRun?: unknown;
  /** IncidentRecords' answers that only the execution history reads. */
  readonly formed?: unknown;
  readonly planned?: unknown;
  readonly merged?: unknown;
  readonly metrics?: unknown;
  /** Errors caught on the way that do not end the investigation. */
  readonly roundFailure?: CaughtError;
  readonly progressError?: CaughtError;
  readonly metricsError?: CaughtError;
  readonly tellFailureError?: CaughtError;
};

/** The state of one iteration of the round's Map: one hypothesis investigated and evaluated. */
export type IterationState = Pick<KernelState, 'conversationId' | 'turn' | 'drained' | 'failure'> & {
  readonly agentState: string;
  readonly item: RoundItem;
  readonly turnResult?: IncidentTurnOutput<unknown>;
};

export const INCIDENT_STATE = stateOf<IncidentState>();
export const ITERATION_STATE = stateOf<IterationState>();
