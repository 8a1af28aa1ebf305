import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { STOPPED_BY_PERSON_FIELD } from '../../lambdas/agents/contract.ts';
import type { IncidentInvestigationSettings } from '../../lambdas/workflows/incident-investigation/config.ts';
import type { INCIDENT_PROFILES } from '../../lambdas/workflows/incident-investigation/profiles/index.ts';
import type { Phase } from '../../lambdas/workflows/incident-investigation/record.ts';
import { agentTurn } from '../agent-turn.ts';
import {
  catchFailure,
  catchTimeout,
  closeOut,
  DRAINED,
  drain,
  FAILURE_PATH,
  nextTurn,
  replaceState,
  waitForPeople,
} from '../kernel.ts';
import { failConversation, setConversationFields } from '../kernel-records.ts';
import { catchModelStop, modelRefused } from '../model-stops.ts';
import { slackPost } from '../slack-post.ts';
import { noteTurnWithoutResult } from '../turn-stops.ts';
import { defineWorkflow, requireChannel } from '../workflow-module.ts';
import type { IncidentFunctionId } from './functions.ts';
import { INCIDENT_STATE } from './incident-state.ts';
import { remediationSteps } from './remediation.ts';
import { investigationRound } from './rounds.ts';
import {
  alertOpeningText,
  INCIDENT_STATES,
  INCIDENT_TEXTS,
  openingText,
  ROUND_PLAN,
  STEP_DECISION,
  THREAD_POST,
} from './states.ts';
import { type RecordsCall, recordsTask, showPhase } from './tasks.ts';
import { incidentTriggers } from './triggers.ts';

type Profile = keyof typeof INCIDENT_PROFILES;

/**
 * `incident_investigation`: Triage -> Hypothesize -> rounds of a Map of
 * Investigate+Evaluate over the open hypotheses -> Conclude -> Remediate, in a thread of the
 * incidents channel. Its state is described in states.ts; the tree lives in DynamoDB.
 */
export const INCIDENT_INVESTIGATION = defineWorkflow<IncidentFunctionId, IncidentInvestigationSettings>({
  name: 'incident_investigation',
  triggers: (config, settings) => incidentTriggers(config, settings),
  ownerRole: 'responder',
  othersRole: 'responder',
  closeOnIntent: true,
  build(scope, kernel) {
    const { table } = kernel;
    const S = INCIDENT_STATES;
    const T = INCIDENT_TEXTS;
    const records = kernel.functions.IncidentRecords;
    const progress = kernel.functions.IncidentProgress;
    const agentTurnFn = kernel.functions.IncidentAgentTurn;
    const incidents = requireChannel(kernel.config, 'incidents');
    const thread = {
      channel: sfn.JsonPath.stringAt(THREAD_POST.at('channel')),
      threadTs: sfn.JsonPath.stringAt(THREAD_POST.at('threadTs')),
    };
    const post = (stateName: string, text: string, essential = true) =>
      slackPost(scope, stateName, { slackPostFn: kernel.slackPost, ...thread, text, essential });
    const mark = (stateName: string, phase: string, status = 'active') =>
      setConversationFields(scope, stateName, { table, status, phase });

    // --- Failure, stop, and the end ----------------------------------------------------------
    const failed = failConversation(scope, S.markFailed, {
      table,
      markStateName: S.markFailed,
      failStateName: S.failed,
    });
    // The stop's real cause (`$.failure`: a Catch's, or the note of a turn without a result) in words.
    const tellFailure = slackPost(scope, S.tellFailure, {
      slackPostFn: kernel.slackPost,
      ...thread,
      template: {
        name: 'agent_stopped',
        data: { failure: sfn.JsonPath.objectAt(FAILURE_PATH), ...T.stopped },
      },
    });
    tellFailure.addCatch(failed, {
      errors: [sfn.Errors.ALL],
      resultPath: INCIDENT_STATE.at('tellFailureError'),
    });
    tellFailure.next(failed);
    const noteFailedAgent = noteTurnWithoutResult(scope, {
      turnResultPath: INCIDENT_STATE.at('turnResult'),
      names: {
        choose: S.noteFailedAgent,
        refused: S.noteModelRefused,
        limit: S.noteStoppedAgent,
        unfinished: S.noteUnfinishedAgent,
      },
      next: tellFailure,
    });
    const closingTurn = closeOut(scope, {
      drainFn: kernel.drain,
      unhandledNotice: post(S.tellUnhandled, T.unhandled, false),
    });
    const markClosed = mark(S.markClosed, 'closed', 'closed');
    const markResolved = mark(S.markResolved, 'complete', 'resolved');
    // A plan whose step was rejected (or expired) left the incident unremediated: not resolved.
    const markUnremediated = mark(S.markUnremediated, 'remediation_stopped', 'closed');
    const ended = sfn.Choice.jsonPath(scope, S.remediationStopped)
      .when(
        sfn.Condition.and(
          sfn.Condition.isPresent(STEP_DECISION.at('decision')),
          sfn.Condition.not(sfn.Condition.stringEquals(STEP_DECISION.at('decision'), 'approve')),
        ),
        markUnremediated,
      )
      .otherwise(markResolved);
    for (const m of [markClosed, markResolved, markUnremediated]) {
      catchFailure(m, failed);
      m.next(closingTurn);
    }
    const acknowledgeClose = post(S.acknowledgeClose, T.acknowledgeClose, false);
    catchFailure(acknowledgeClose, markClosed);
    acknowledgeClose.next(markClosed);
    const finish = recordsTask(scope, S.finish, {
      fn: records,
      op: 'finish',
      resultPath: INCIDENT_STATE.at('metrics'),
    });
    // Metrics are bookkeeping: the incident is resolved even if they cannot be stored.
    finish.addCatch(ended, { errors: [sfn.Errors.ALL], resultPath: INCIDENT_STATE.at('metricsError') });
    finish.next(ended);

    /** A turn that failed as a task: its error as the turn's outcome, for the record that follows. */
    const turnFailed = (stateName: string, then: sfn.IChainable) =>
      sfn.Pass.jsonPath(scope, stateName, {
        parameters: { action: 'escalate', error: sfn.JsonPath.stringAt(`${FAILURE_PATH}.Error`) },
        resultPath: INCIDENT_STATE.at('turnResult'),
      }).next(then);

    /**
     * A phase's agent turn in the main session: next turn, Drain (the people's messages since
     * the last turn), the stop check, the turn (again while it runs out of budget), its session
     * kept, then `submitted` to `done`; a failed turn to `onFailed`.
     */
    const phaseTurn = (p: {
      name: string;
      profile: Profile;
      notesPath: string;
      done: sfn.IChainable;
      /** A turn that ended `escalate` (its error in `$.turnResult`). */
      onFailed: sfn.IChainable;
      /** A turn that failed as a task, after its retries (its error at `$.failure`). @default onFailed */
      onError?: sfn.IChainable;
    }) => {
      const turn = (stateName: string, mode: 'initial' | 'continuation') => {
        const task = agentTurn(scope, stateName, {
          stateName,
          agentTurnFn,
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
        catchModelStop(task, tellFailure);
        catchFailure(task, p.onError ?? tellFailure);
        return task;
      };
      const keep = sfn.Pass.jsonPath(scope, `Keep session of ${p.name}`, {
        inputPath: INCIDENT_STATE.at('turnResult.sessionId'),
        resultPath: INCIDENT_STATE.at('sessions.main'),
      });
      const drained = drain(scope, `Drain for ${p.name}`, { drainFn: kernel.drain });
      catchFailure(drained, failed);
      const start = nextTurn(scope, `Next ${p.name} turn`);
      // Stop ends the phase's turn and nothing else: the investigation waits for the responders,
      // and the phase goes on with what they write (closing stays their separate act).
      const waitAfterStop = waitForPeople(scope, `Wait after ${p.name} stopped`, {
        registerWait: kernel.registerWait,
        accepts: 'any',
        phase: 'awaiting_responders',
        timeout: Duration.seconds(kernel.settings.approvalWaitSeconds),
      });
      catchTimeout(waitAfterStop, acknowledgeClose);
      catchFailure(waitAfterStop, failed);
      waitAfterStop.next(start);
      const tellStopped = post(`Tell ${p.name} stopped`, T.stoppedWaiting, false);
      catchFailure(tellStopped, waitAfterStop);
      tellStopped.next(waitAfterStop);
      const route = sfn.Choice.jsonPath(scope, `Route ${p.name}`)
        .when(sfn.Condition.stringEquals(INCIDENT_STATE.at('turnResult.action'), 'submitted'), p.done)
        .when(sfn.Condition.isPresent(`$.turnResult.${STOPPED_BY_PERSON_FIELD}`), tellStopped)
        .when(sfn.Condition.stringEquals(INCIDENT_STATE.at('turnResult.action'), 'continue'), start)
        .when(modelRefused(INCIDENT_STATE.at('turnResult')), noteFailedAgent)
        .otherwise(p.onFailed);
      const initial = turn(p.name.charAt(0).toUpperCase() + p.name.slice(1), 'initial');
      const continued = turn(`Continue ${p.name}`, 'continuation');
      initial.next(keep);
      continued.next(keep);
      keep.next(route);
      start.next(drained).next(
        sfn.Choice.jsonPath(scope, `Stop requested before ${p.name}?`)
          .when(sfn.Condition.booleanEquals(DRAINED.at('closeRequested'), true), acknowledgeClose)
          .otherwise(
            sfn.Choice.jsonPath(scope, `Session for ${p.name}?`)
              .when(sfn.Condition.isPresent(INCIDENT_STATE.at('sessions.main')), continued)
              .otherwise(initial),
          ),
      );
      return start;
    };

    /**
     * A phase as the design tells it: the conversation marked, the phase's agent turn, its
     * result recorded, the phase's message shown, then `show.next`. A turn that fails stops the
     * incident, unless `failedTurnState` is given: then its failure is recorded as the phase's
     * outcome (an INCONCLUSIVE conclusion, no plan), not a failed incident.
     */
    const phase = (p: {
      mark: { stateName: string; phase: string };
      turn: { name: string; profile: Profile; notesPath: string };
      record: RecordsCall & { stateName: string; resultPath?: string };
      show: { stateName: string; phase: Phase; next: sfn.IChainable };
      /** @default - a failed turn fails the incident */
      failedTurnState?: string;
    }): sfn.IChainable => {
      const show = showPhase(scope, p.show.stateName, {
        fn: progress,
        phase: p.show.phase,
        next: p.show.next,
      });
      const { stateName, resultPath, ...call } = p.record;
      const record = recordsTask<RecordsCall['op']>(scope, stateName, {
        fn: records,
        ...call,
        ...(resultPath ? { resultPath } : {}),
      });
      catchFailure(record, failed);
      record.next(show);
      const turn = phaseTurn({
        ...p.turn,
        done: record,
        ...(p.failedTurnState
          ? { onFailed: record, onError: turnFailed(p.failedTurnState, record) }
          : { onFailed: noteFailedAgent }),
      });
      const marked = mark(p.mark.stateName, p.mark.phase);
      catchFailure(marked, failed);
      marked.next(turn);
      return marked;
    };
    const submitted = { result: sfn.JsonPath.objectAt(INCIDENT_STATE.at('turnResult.result')) };
    const wholeTurn = { turn: sfn.JsonPath.objectAt(INCIDENT_STATE.at('turnResult')) };

    // --- Remediate ----------------------------------------------------------------------------
    const markRemediating = phase({
      mark: { stateName: S.markRemediating, phase: 'remediating' },
      turn: {
        name: 'remediation',
        profile: 'incident_remediator',
        notesPath: INCIDENT_STATE.at('conclusion.notes'),
      },
      record: {
        stateName: S.recordPlan,
        op: 'plan',
        payload: wholeTurn,
        resultPath: INCIDENT_STATE.at('planned'),
      },
      show: {
        stateName: S.showPlan,
        phase: 'remediation',
        next: remediationSteps(scope, kernel, { finish, failed }),
      },
      // A failed planning turn is recorded (no plan, with the reason), not a failed incident.
      failedTurnState: 'Note failed plan',
    });

    // --- Conclude -----------------------------------------------------------------------------
    const markConcluding = phase({
      mark: { stateName: S.markConcluding, phase: 'concluding' },
      turn: { name: 'conclusion', profile: 'incident_concluder', notesPath: ROUND_PLAN.at('notes') },
      record: {
        stateName: S.recordConclusion,
        op: 'conclusion',
        payload: wholeTurn,
        resultPath: INCIDENT_STATE.at('conclusion'),
      },
      show: { stateName: S.showConclusion, phase: 'conclusion', next: markRemediating },
      failedTurnState: 'Note failed conclusion',
    });

    // --- Rounds ---------------------------------------------------------------------------------
    const planRound = recordsTask(scope, S.planRound, {
      fn: records,
      op: 'plan_round',
      payload: { turn: sfn.JsonPath.numberAt(INCIDENT_STATE.at('turn')) },
      resultPath: ROUND_PLAN.path,
    });
    catchFailure(planRound, failed);
    const round = investigationRound(scope, kernel, planRound, tellFailure);
    catchFailure(round.merge, failed);
    const markInvestigating = mark(S.markInvestigating, 'investigating');
    catchFailure(markInvestigating, failed);
    markInvestigating.next(round.start);
    planRound.next(
      sfn.Choice.jsonPath(scope, S.moreRounds)
        .when(sfn.Condition.stringEquals(ROUND_PLAN.at('decision'), 'investigate'), markInvestigating)
        .when(sfn.Condition.stringEquals(ROUND_PLAN.at('decision'), 'closed'), acknowledgeClose)
        // The tree's message says why the rounds ended, then the conclusion follows.
        .otherwise(
          showPhase(scope, S.showFinalTree, { fn: progress, phase: 'hypotheses', next: markConcluding }),
        ),
    );

    // --- Hypothesize, after Triage ----------------------------------------------------------------
    const markHypothesize = phase({
      mark: { stateName: S.markHypothesize, phase: 'hypothesize' },
      turn: { name: 'hypotheses', profile: 'incident_hypothesizer', notesPath: INCIDENT_STATE.at('notes') },
      record: {
        stateName: S.recordHypotheses,
        op: 'hypotheses',
        payload: submitted,
        resultPath: INCIDENT_STATE.at('formed'),
      },
      show: { stateName: S.showHypotheses, phase: 'hypotheses', next: planRound },
    });
    const markTriage = phase({
      mark: { stateName: S.markTriage, phase: 'triage' },
      turn: { name: 'triage', profile: 'incident_triager', notesPath: INCIDENT_STATE.at('notes') },
      record: { stateName: S.recordTriage, op: 'triage', payload: submitted },
      show: { stateName: S.showTriage, phase: 'triage', next: markHypothesize },
    });

    // --- The start: the incident's thread in the incidents channel ------------------------------
    const startRecord = recordsTask(scope, S.startRecord, {
      fn: records,
      op: 'start',
      payload: thread,
    });
    catchFailure(startRecord, failed);
    startRecord.next(markTriage);
    const anchor = { name: 'incident', ownerRole: 'responder', othersRole: 'responder' };
    const openThread = slackPost(scope, S.openThread, {
      slackPostFn: kernel.slackPost,
      channel: incidents,
      text: sfn.JsonPath.format(openingText('{}'), sfn.JsonPath.stringAt(INCIDENT_STATE.at('ownerId'))),
      anchor,
      resultPath: THREAD_POST.path,
    });
    const openThreadForAlert = slackPost(scope, S.openThreadForAlert, {
      slackPostFn: kernel.slackPost,
      channel: incidents,
      text: sfn.JsonPath.format(
        alertOpeningText('{}', '{}'),
        sfn.JsonPath.stringAt(INCIDENT_STATE.at('origin.source')),
        sfn.JsonPath.stringAt(INCIDENT_STATE.at('origin.name')),
      ),
      anchor,
      resultPath: THREAD_POST.path,
    });
    for (const open of [openThread, openThreadForAlert]) {
      catchFailure(open, failed);
      open.next(startRecord);
    }
    const prepare = sfn.Pass.jsonPath(scope, S.prepare, {
      ...replaceState(
        sfn.JsonPath.jsonMerge(
          sfn.JsonPath.entirePayload,
          sfn.JsonPath.stringToJson('{"agentState":"investigating","notes":[],"sessions":{}}'),
        ),
      ),
    });
    return prepare.next(
      sfn.Choice.jsonPath(scope, S.fromAlert)
        .when(sfn.Condition.isPresent(INCIDENT_STATE.at('origin')), openThreadForAlert)
        .otherwise(openThread),
    );
  },
});
