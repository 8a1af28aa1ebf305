import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { STOPPED_BY_PERSON_FIELD } from '../../lambdas/agents/contract.ts';
import type { BugInvestigationSettings } from '../../lambdas/workflows/bug-investigation/config.ts';
import { agentTurn } from '../agent-turn.ts';
import { acceptHandover, continueAsNew, HANDED_OVER_FROM } from '../continue-as-new.ts';
import {
  catchFailure,
  catchTimeout,
  closeOut,
  DRAINED,
  drain,
  nextTurn,
  replaceState,
  waitForPeople,
} from '../kernel.ts';
import { failConversation, setConversationFields, tellThen } from '../kernel-records.ts';
import { catchModelStop, modelRefused } from '../model-stops.ts';
import { slackPost } from '../slack-post.ts';
import { defineWorkflow, requireChannel, requireChild, requireRoleGroup } from '../workflow-module.ts';
import { BUG_STATE } from './bug-state.ts';
import { FIX_IT_APPROVAL, fixPathOr } from './fix-path.ts';
import type { BugFunctionId } from './functions.ts';
import {
  acknowledgeClose as closeWithNotices,
  tellFindingsPosted,
  tellResolved,
} from './reporter-updates.ts';
import { ESCALATION_APPROVAL, SLA_TRACKING, startSlaTrackingOf } from './sla-tracking.ts';
import {
  actionIs,
  awaitingPass,
  BUG_CARRIED_FIELDS,
  BUG_INVESTIGATION_STATES,
  BUG_INVESTIGATION_TEXTS,
  BUG_INVESTIGATOR_PROFILE,
  ESCALATION_POST,
  reporterSilenceNote,
  SUMMARY_POST,
  TURN_RESULT,
  turnContext,
} from './states.ts';
import { backToTheWait, failedTurn, modelStop, tellReporterStopped, tellUnhandled } from './stops.ts';

/** `bug_investigation`; its state and its names are described in states.ts. */
export const BUG_INVESTIGATION = defineWorkflow<BugFunctionId, BugInvestigationSettings>({
  name: 'bug_investigation',
  triggers: (config) => [{ type: 'channel_message', channel: requireChannel(config, 'bugReports') }],
  ownerRole: 'reporter',
  // a third party's reply in the reporter's thread triggers nothing.
  othersRole: null,
  closeOnIntent: true,
  children: [SLA_TRACKING],
  continuesAsNew: true,
  build(scope, kernel, children) {
    const { registerWait, drain: drainFn, table, config, settings } = kernel;
    const slackPostFn = kernel.functions.BugInvestigationSlackPost;
    const agentTurnFn = kernel.functions.BugInvestigationAgentTurn;
    const S = BUG_INVESTIGATION_STATES;
    const T = BUG_INVESTIGATION_TEXTS;
    const reporterThread = {
      channel: sfn.JsonPath.stringAt(BUG_STATE.at('channel')),
      threadTs: sfn.JsonPath.stringAt(BUG_STATE.at('threadTs')),
    };
    const summaryThread = {
      channel: sfn.JsonPath.stringAt(SUMMARY_POST.at('channel')),
      threadTs: sfn.JsonPath.stringAt(SUMMARY_POST.at('threadTs')),
    };
    const failing = { table, markStateName: S.markFailed, failStateName: S.failed };
    const markFailed = failConversation(scope, S.markFailed, failing);
    const failureNotice = { slackPostFn, ...reporterThread, text: T.failed, stateName: S.tellFailure };
    const failed = tellThen(scope, `${S.markFailed} notice`, failureNotice, markFailed);
    const model = modelStop(scope, { slackPostFn, reporterThread, failed: markFailed });

    // --- The end: resolve, then a last Drain ---------------------------------------------
    // The closing turn's Drain records the messages that came after the last agent turn
    // (I3: "or recorded with the conversation's close") and clears the open wait, if any,
    // so no Router tries to wake this execution again.
    const markResolved = setConversationFields(scope, S.markResolved, {
      table,
      status: 'resolved',
      phase: 'resolved',
    });
    catchFailure(markResolved, failed);
    // A message no turn saw (one that came as a wait timed out) is said to be unhandled.
    const unhandledNotice = tellUnhandled(scope, { slackPostFn, ...reporterThread });
    markResolved.next(closeOut(scope, { drainFn, unhandledNotice }));

    // The reporter asked to close: close even if the acknowledgement cannot be posted.
    const acknowledgeClose = closeWithNotices(scope, { slackPostFn, reporterThread, markResolved });
    const resolvedNotice = tellResolved(scope, {
      slackPostFn,
      reporterThread,
      developerWaitSeconds: config.developerWaitSeconds,
      markResolved,
    });

    // --- The top of the loop: hand over, or start the next turn ---------------------------
    // Drain marks the conversation investigating (status active) in the write that ends the
    // wait: no "Mark" state on the wake path.
    const drainMessages = drain(scope, S.drain, {
      drainFn,
      mark: { status: 'active', phase: 'investigating' },
    });
    catchFailure(drainMessages, failed);
    const startTurn = nextTurn(scope, S.nextTurn);
    startTurn.next(drainMessages);
    // Here nothing is in flight: the last wait has ended and the pending messages are in the
    // table for the next Drain, whichever execution runs it.
    const handOver = continueAsNew(scope, 'Continue as new', {
      table,
      carry: BUG_CARRIED_FIELDS,
      onStartFailure: startTurn,
      handOverStateName: S.handOver,
      recordStateName: S.recordHandover,
      doneStateName: S.handedOver,
    });
    const timeToHandOver = sfn.Choice.jsonPath(scope, S.timeToHandOver)
      .when(
        sfn.Condition.numberGreaterThanEqualsJsonPath(BUG_STATE.at('turn'), BUG_STATE.at('handoverAtTurn')),
        handOver,
      )
      .otherwise(startTurn);

    // --- The agent's turn ------------------------------------------------------------------
    const turnProps = {
      agentTurnFn,
      profile: BUG_INVESTIGATOR_PROFILE,
      statePath: BUG_STATE.at('turnContext.state'),
      notesPath: BUG_STATE.at('turnContext.notes'),
      resultPath: TURN_RESULT.path,
      modelRetry: config.agentLimits.modelRetry,
    } as const;
    const investigate = agentTurn(scope, S.investigate, {
      ...turnProps,
      stateName: S.investigate,
      mode: 'initial',
    });
    const continueInvestigation = agentTurn(scope, S.continueInvestigation, {
      ...turnProps,
      stateName: S.continueInvestigation,
      mode: 'continuation',
      sessionIdPath: TURN_RESULT.at('sessionId'),
    });
    const routeOnAction = sfn.Choice.jsonPath(scope, S.routeOnAction);
    investigate.next(routeOnAction);
    continueInvestigation.next(routeOnAction);

    // A turn that failed after its retries (the function crashed or timed out) becomes an
    // `escalate` result with the error, and takes the escalation path like any other; a model
    // that stayed unavailable or refused the turn ends the conversation instead (`modelStop`).
    const summaryThreadOpen = sfn.Choice.jsonPath(scope, S.summaryThreadOpen);
    // The reporter hears why the agent stopped on its own, then the escalation goes on.
    const tellStopped = tellReporterStopped(scope, {
      slackPostFn,
      ...reporterThread,
      next: summaryThreadOpen,
    });
    const stopped = (stateName: string, keepSession: boolean) =>
      failedTurn(scope, {
        stateName,
        keepSession,
        defaultSeverity: config.agentLimits.escalationSeverity,
        next: tellStopped,
      });
    for (const [turn, note, keepSession] of [
      [investigate, S.noteFailedInvestigation, false],
      [continueInvestigation, S.noteFailedContinuation, true],
    ] as const) {
      catchModelStop(turn, model.caught);
      catchFailure(turn, stopped(note, keepSession));
    }

    const sessionToResume = sfn.Choice.jsonPath(scope, S.sessionToResume)
      .when(sfn.Condition.isPresent(TURN_RESULT.at('sessionId')), continueInvestigation)
      .otherwise(investigate);
    const announceFollowUp = slackPost(scope, S.announceFollowUp, {
      slackPostFn,
      ...summaryThread,
      text: T.followUp,
      essential: false,
    });
    // A notice: the follow-up goes on without it.
    catchFailure(announceFollowUp, sessionToResume);
    announceFollowUp.next(sessionToResume);
    // One Choice for the close check and the turn's kind, to keep a round trip short.
    const closeRequested = sfn.Choice.jsonPath(scope, S.closeRequested)
      .when(sfn.Condition.booleanEquals(DRAINED.at('closeRequested'), true), acknowledgeClose)
      .when(
        sfn.Condition.and(
          sfn.Condition.isPresent(BUG_STATE.at('turnContext.followUp')),
          sfn.Condition.booleanEquals(BUG_STATE.at('turnContext.followUp'), true),
        ),
        announceFollowUp,
      )
      .when(sfn.Condition.isPresent(TURN_RESULT.at('sessionId')), continueInvestigation)
      .otherwise(investigate);
    drainMessages.next(closeRequested);

    // --- ask_reporter: ask in the reporter's thread, wait for the reporter ------------------
    const askReporter = slackPost(scope, S.askReporter, {
      slackPostFn,
      ...reporterThread,
      template: { name: 'bug_question', data: { result: sfn.JsonPath.objectAt(TURN_RESULT.path) } },
    });
    catchFailure(askReporter, failed);
    const waitForReporter = waitForPeople(scope, S.waitForReporter, {
      registerWait,
      accepts: ['reporter'],
      phase: 'awaiting_reporter',
      timeout: Duration.seconds(config.reporterWaitSeconds),
    });
    // no answer in time -> investigate on, and tell the agent so.
    const noteReporterSilence = sfn.Pass.jsonPath(scope, S.noteReporterSilence, {
      result: sfn.Result.fromObject(
        turnContext('awaiting_reporter', { notes: [reporterSilenceNote(config.reporterWaitSeconds)] }),
      ),
      resultPath: BUG_STATE.at('turnContext'),
    }).next(timeToHandOver);
    catchTimeout(waitForReporter, noteReporterSilence);
    catchFailure(waitForReporter, failed);
    const awaitingReporter = awaitingPass(scope, S.awaitingReporter, turnContext('awaiting_reporter'));
    askReporter.next(awaitingReporter);
    awaitingReporter.next(waitForReporter).next(timeToHandOver);

    // --- continue: the turn ran out of its budget; run another in the same state ------------
    const keepInvestigating = sfn.Pass.jsonPath(scope, S.keepInvestigating, {
      parameters: {
        state: sfn.JsonPath.stringAt(BUG_STATE.at('turnContext.state')),
        notes: [],
        followUp: false,
      },
      resultPath: BUG_STATE.at('turnContext'),
    }).next(timeToHandOver);

    // --- post_findings / resolved / escalate: post the findings (seed: save, post, summary
    // thread), then resolve, or escalate, and wait for developers ---------------------------
    const findings = {
      name: 'bug_findings',
      data: { result: sfn.JsonPath.objectAt(TURN_RESULT.path), executionArn: sfn.JsonPath.executionId },
    } as const;
    // With a repository, the findings carry "Fix it" for developers; each post replaces the last one's.
    const fixIt = settings.repository === undefined ? {} : { approval: FIX_IT_APPROVAL };
    const postFindings = slackPost(scope, S.postFindings, {
      slackPostFn,
      channel: requireChannel(config, 'bugSummaries'),
      template: findings,
      ...fixIt,
      // Developers' replies in the summary thread are routed to this conversation.
      anchor: { name: 'summary', ownerRole: null, othersRole: 'developer' },
      resultPath: SUMMARY_POST.path,
    });
    // Later findings go in the same summary thread, where the developers already are.
    const postUpdatedFindings = slackPost(scope, S.postUpdatedFindings, {
      slackPostFn,
      ...summaryThread,
      template: findings,
      ...fixIt,
    });
    catchFailure(postFindings, failed);
    catchFailure(postUpdatedFindings, failed);
    const summaryOpen = sfn.Condition.isPresent(SUMMARY_POST.path);
    summaryThreadOpen.when(summaryOpen, postUpdatedFindings).otherwise(postFindings);
    const findingsAction = sfn.Condition.or(
      actionIs('post_findings'),
      actionIs('resolved'),
      actionIs('escalate'),
    );

    // RegisterWait marks the conversation pending verification as it opens the wait: no
    // "Mark" state on the round trip.
    const waitForDevelopers = waitForPeople(scope, S.waitForDevelopers, {
      registerWait,
      accepts: 'any',
      phase: 'awaiting_dev',
      status: 'pending_verification',
      timeout: Duration.seconds(config.developerWaitSeconds),
    });
    // nobody answered in 48 hours -> resolved.
    catchTimeout(waitForDevelopers, resolvedNotice.noFollowUp);
    catchFailure(waitForDevelopers, failed);
    const awaitingDevelopers = awaitingPass(
      scope,
      S.awaitingDevelopers,
      turnContext('awaiting_dev', { followUp: true }),
    );
    awaitingDevelopers.next(waitForDevelopers).next(timeToHandOver);

    const escalate = slackPost(scope, S.escalate, {
      slackPostFn,
      channel: requireChannel(config, 'developers'),
      template: {
        name: 'bug_escalation',
        data: {
          result: sfn.JsonPath.objectAt(TURN_RESULT.path),
          onCallGroupId: requireRoleGroup(config, 'on_call'),
          executionArn: sfn.JsonPath.executionId,
          findingsChannel: requireChannel(config, 'bugSummaries'),
        },
      },
      anchor: { name: 'escalation', ownerRole: null, othersRole: 'developer' },
      approval: ESCALATION_APPROVAL,
      resultPath: ESCALATION_POST.path,
    });
    catchFailure(escalate, failed);
    const startSlaTracking = startSlaTrackingOf(scope, S.startSlaTracking, {
      stateMachine: requireChild(children, SLA_TRACKING.name),
      next: awaitingDevelopers,
    });
    escalate.next(startSlaTracking).next(awaitingDevelopers);

    const routeOnConclusion = sfn.Choice.jsonPath(scope, S.routeOnConclusion)
      .when(actionIs('resolved'), resolvedNotice.concluded)
      .when(actionIs('post_findings'), awaitingDevelopers)
      // `escalate`, and anything unexpected: a person looks at it.
      .otherwise(escalate);
    postFindings.next(tellFindingsPosted(scope, { slackPostFn, reporterThread, next: routeOnConclusion }));
    postUpdatedFindings.next(routeOnConclusion);

    // Every BugAction has its branch; an unknown value takes the escalation path (through
    // the findings), so the conversation can never get stuck on it.
    const fixPath = fixPathOr(scope, kernel, summaryThreadOpen, awaitingDevelopers, model);
    routeOnAction
      .when(modelRefused(TURN_RESULT.path), model.refused)
      .when(
        sfn.Condition.and(actionIs('escalate'), sfn.Condition.isPresent(TURN_RESULT.at('error'))),
        tellStopped,
      )
      .when(actionIs('fix_requested'), fixPath)
      .when(actionIs('ask_reporter'), askReporter)
      // The findings' three actions go straight to the right post (one Choice fewer per round
      // trip than through "Summary thread open?", which the other paths still take).
      .when(sfn.Condition.and(findingsAction, summaryOpen), postUpdatedFindings)
      .when(findingsAction, postFindings)
      .when(
        // A field the agent turn adds beside the profile's output (BugTurnOutput has no such field).
        sfn.Condition.isPresent(`${TURN_RESULT.path}.${STOPPED_BY_PERSON_FIELD}`),
        backToTheWait(scope, { developers: awaitingDevelopers, reporter: awaitingReporter }),
      )
      .when(actionIs('continue'), keepInvestigating)
      .otherwise(summaryThreadOpen);

    // --- The start ---------------------------------------------------------------------------
    const acknowledgeReport = slackPost(scope, S.acknowledgeReport, {
      slackPostFn,
      ...reporterThread,
      text: T.acknowledgeReport,
      essential: false,
    });
    // A cosmetic post: the investigation goes on without it (it used to end it).
    catchFailure(acknowledgeReport, timeToHandOver);
    acknowledgeReport.next(timeToHandOver);
    const resuming = sfn.Choice.jsonPath(scope, S.resuming)
      .when(
        sfn.Condition.isPresent(BUG_STATE.at(HANDED_OVER_FROM)),
        acceptHandover(scope, 'Accept handover', timeToHandOver),
      )
      .otherwise(acknowledgeReport);
    // Defaults under the input: a handed-over execution brings its own turnContext, threads
    // and result. `handoverAtTurn` counts from the turn this execution starts at.
    const prepare = sfn.Pass.jsonPath(scope, S.prepare, {
      ...replaceState(
        sfn.JsonPath.jsonMerge(
          sfn.JsonPath.stringToJson(
            sfn.JsonPath.format(
              `\\{"turnContext":\\{"state":"investigating","notes":[],"followUp":false\\},"threads":\\{\\},"handoverAtTurn":{}\\}`,
              sfn.JsonPath.mathAdd(
                sfn.JsonPath.numberAt(BUG_STATE.at('turn')),
                settings.continueAsNewAfterTurns,
              ),
            ),
          ),
          sfn.JsonPath.entirePayload,
        ),
      ),
    });
    return prepare.next(resuming);
  },
});
