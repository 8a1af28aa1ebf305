import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { IncidentInvestigationSettings } from '../../lambdas/workflows/incident-investigation/config.ts';
import { catchFailure, closeOut, FAILURE_PATH, replaceState } from '../kernel.ts';
import { failConversation, setConversationFields } from '../kernel-records.ts';
import { slackPost } from '../slack-post.ts';
import { noteTurnWithoutResult } from '../turn-stops.ts';
import { defineWorkflow, requireChannel } from '../workflow-module.ts';
import type { IncidentFunctionId } from './functions.ts';
import { INCIDENT_STATE } from './incident-state.ts';
import { incidentPhase, type PhaseProps } from './phases.ts';
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
import { recordsTask, showPhase } from './tasks.ts';
import { incidentTriggers } from './triggers.ts';

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

    // A phase's states leave for these: the incident's failure paths and its close.
    const phase = (p: PhaseProps) =>
      incidentPhase(
        { scope, kernel, post, exits: { failed, tellFailure, noteFailedAgent, acknowledgeClose } },
        p,
      );
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
