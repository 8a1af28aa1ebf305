import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { STOPPED_BY_PERSON_FIELD } from '../../lambdas/agents/contract.ts';
import type { IncidentInvestigationSettings } from '../../lambdas/workflows/incident-investigation/config.ts';
import type { INCIDENT_PROFILES } from '../../lambdas/workflows/incident-investigation/profiles/index.ts';
import type { Phase } from '../../lambdas/workflows/incident-investigation/record.ts';
import { agentTurn } from '../agent-turn.ts';
import {
  catchFailure,
  catchTimeout,
  DRAINED,
  drain,
  FAILURE_PATH,
  nextTurn,
  waitForPeople,
} from '../kernel.ts';
import { setConversationFields } from '../kernel-records.ts';
import { catchModelStop, modelRefused } from '../model-stops.ts';
import type { KernelResources } from '../workflow-module.ts';
import type { IncidentFunctionId } from './functions.ts';
import { INCIDENT_STATE } from './incident-state.ts';
import { INCIDENT_TEXTS } from './states.ts';
import { type RecordsCall, recordsTask, showPhase } from './tasks.ts';

/**
 * A phase of the incident investigation (triage, hypotheses, conclusion, remediation plan), as
 * workflow.ts chains them: the conversation marked, the phase's agent turn in the main session
 * (again while it runs out of budget, with the stop and close checks between turns), its result
 * recorded, and the phase's message shown.
 */

type Profile = keyof typeof INCIDENT_PROFILES;

/** The states a phase leaves for: the incident's failure paths and its close. */
export interface PhaseExits {
  /** The conversation marked failed. */
  failed: sfn.IChainable;
  /** The stop told in the thread with its cause at `$.failure`, then `failed`. */
  tellFailure: sfn.IChainable;
  /** A turn that ended without a result: noted, then told. */
  noteFailedAgent: sfn.IChainable;
  /** The close the people asked for, acknowledged in the thread. */
  acknowledgeClose: sfn.IChainable;
}

/** What a phase builds with: the workflow's scope and kernel, a post in the incident's thread, and its exits. */
export interface PhaseContext {
  scope: Construct;
  kernel: KernelResources<IncidentFunctionId, IncidentInvestigationSettings>;
  post: (stateName: string, text: string, essential?: boolean) => sfn.TaskStateBase;
  exits: PhaseExits;
}

export interface PhaseProps {
  mark: { stateName: string; phase: string };
  turn: { name: string; profile: Profile; notesPath: string };
  record: RecordsCall & { stateName: string; resultPath?: string };
  show: { stateName: string; phase: Phase; next: sfn.IChainable };
  /** @default - a failed turn fails the incident */
  failedTurnState?: string;
}

/**
 * A phase as the design tells it: the conversation marked, the phase's agent turn, its
 * result recorded, the phase's message shown, then `show.next`. A turn that fails stops the
 * incident, unless `failedTurnState` is given: then its failure is recorded as the phase's
 * outcome (an INCONCLUSIVE conclusion, no plan), not a failed incident.
 */
export function incidentPhase(ctx: PhaseContext, p: PhaseProps): sfn.IChainable {
  const { scope, kernel, exits } = ctx;
  const show = showPhase(scope, p.show.stateName, {
    fn: kernel.functions.IncidentProgress,
    phase: p.show.phase,
    next: p.show.next,
  });
  const { stateName, resultPath, ...call } = p.record;
  const record = recordsTask<RecordsCall['op']>(scope, stateName, {
    fn: kernel.functions.IncidentRecords,
    ...call,
    ...(resultPath ? { resultPath } : {}),
  });
  catchFailure(record, exits.failed);
  record.next(show);
  const turn = phaseTurn(ctx, {
    ...p.turn,
    done: record,
    ...(p.failedTurnState
      ? { onFailed: record, onError: turnFailed(scope, p.failedTurnState, record) }
      : { onFailed: exits.noteFailedAgent }),
  });
  const marked = setConversationFields(scope, p.mark.stateName, {
    table: kernel.table,
    status: 'active',
    phase: p.mark.phase,
  });
  catchFailure(marked, exits.failed);
  marked.next(turn);
  return marked;
}

/** A turn that failed as a task: its error as the turn's outcome, for the record that follows. */
function turnFailed(scope: Construct, stateName: string, then: sfn.IChainable): sfn.IChainable {
  return sfn.Pass.jsonPath(scope, stateName, {
    parameters: { action: 'escalate', error: sfn.JsonPath.stringAt(`${FAILURE_PATH}.Error`) },
    resultPath: INCIDENT_STATE.at('turnResult'),
  }).next(then);
}

/**
 * A phase's agent turn in the main session: next turn, Drain (the people's messages since
 * the last turn), the stop check, the turn (again while it runs out of budget), its session
 * kept, then `submitted` to `done`; a failed turn to `onFailed`.
 */
function phaseTurn(
  ctx: PhaseContext,
  p: {
    name: string;
    profile: Profile;
    notesPath: string;
    done: sfn.IChainable;
    /** A turn that ended `escalate` (its error in `$.turnResult`). */
    onFailed: sfn.IChainable;
    /** A turn that failed as a task, after its retries (its error at `$.failure`). @default onFailed */
    onError?: sfn.IChainable;
  },
): sfn.IChainable {
  const { scope, kernel, exits } = ctx;
  const turn = (stateName: string, mode: 'initial' | 'continuation') => {
    const task = agentTurn(scope, stateName, {
      stateName,
      agentTurnFn: kernel.functions.IncidentAgentTurn,
      profile: p.profile,
      mode,
      statePath: INCIDENT_STATE.at('agentState'),
      notesPath: p.notesPath,
      resultPath: INCIDENT_STATE.at('turnResult'),
      ...(mode === 'continuation' ? { sessionIdPath: INCIDENT_STATE.at('sessions.main') } : {}),
      modelRetry: kernel.config.agentLimits.modelRetry,
    });
    // A turn that failed as a task keeps the Catch's error: the stop is told with it. A
    // model that cannot serve the incident ends it in every phase (model-stops.ts).
    catchModelStop(task, exits.tellFailure);
    catchFailure(task, p.onError ?? exits.tellFailure);
    return task;
  };
  const keep = sfn.Pass.jsonPath(scope, `Keep session of ${p.name}`, {
    inputPath: INCIDENT_STATE.at('turnResult.sessionId'),
    resultPath: INCIDENT_STATE.at('sessions.main'),
  });
  const drained = drain(scope, `Drain for ${p.name}`, { drainFn: kernel.drain });
  catchFailure(drained, exits.failed);
  const start = nextTurn(scope, `Next ${p.name} turn`);
  // Stop ends the phase's turn and nothing else: the investigation waits for the responders,
  // and the phase goes on with what they write (closing stays their separate act).
  const waitAfterStop = waitForPeople(scope, `Wait after ${p.name} stopped`, {
    registerWait: kernel.registerWait,
    accepts: 'any',
    phase: 'awaiting_responders',
    timeout: Duration.seconds(kernel.settings.approvalWaitSeconds),
  });
  catchTimeout(waitAfterStop, exits.acknowledgeClose);
  catchFailure(waitAfterStop, exits.failed);
  waitAfterStop.next(start);
  const tellStopped = ctx.post(`Tell ${p.name} stopped`, INCIDENT_TEXTS.stoppedWaiting, false);
  catchFailure(tellStopped, waitAfterStop);
  tellStopped.next(waitAfterStop);
  const route = sfn.Choice.jsonPath(scope, `Route ${p.name}`)
    .when(sfn.Condition.stringEquals(INCIDENT_STATE.at('turnResult.action'), 'submitted'), p.done)
    .when(sfn.Condition.isPresent(`$.turnResult.${STOPPED_BY_PERSON_FIELD}`), tellStopped)
    .when(sfn.Condition.stringEquals(INCIDENT_STATE.at('turnResult.action'), 'continue'), start)
    .when(modelRefused(INCIDENT_STATE.at('turnResult')), exits.noteFailedAgent)
    .otherwise(p.onFailed);
  const initial = turn(p.name.charAt(0).toUpperCase() + p.name.slice(1), 'initial');
  const continued = turn(`Continue ${p.name}`, 'continuation');
  initial.next(keep);
  continued.next(keep);
  keep.next(route);
  start.next(drained).next(
    sfn.Choice.jsonPath(scope, `Stop requested before ${p.name}?`)
      .when(sfn.Condition.booleanEquals(DRAINED.at('closeRequested'), true), exits.acknowledgeClose)
      .otherwise(
        sfn.Choice.jsonPath(scope, `Session for ${p.name}?`)
          .when(sfn.Condition.isPresent(INCIDENT_STATE.at('sessions.main')), continued)
          .otherwise(initial),
      ),
  );
  return start;
}
