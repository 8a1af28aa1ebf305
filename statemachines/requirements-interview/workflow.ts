import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { RequirementsInterviewSettings } from '../../lambdas/workflows/requirements-interview/config.ts';
import { agentTurn } from '../agent-turn.ts';
import {
  catchFailure,
  catchTimeout,
  closeOut,
  DRAINED,
  drain,
  incrementCounter,
  nextTurn,
  replaceState,
  waitForPeople,
} from '../kernel.ts';
import { failConversation, setConversationFields } from '../kernel-records.ts';
import { slackPost } from '../slack-post.ts';
import { defineWorkflow } from '../workflow-module.ts';
import { agentFailurePaths } from './agent-failure.ts';
import type { RequirementsFunctionId } from './functions.ts';
import { type RecordInterviewProps, recordInterviewState } from './records.ts';
import { REQUIREMENTS_STATE } from './requirements-state.ts';
import {
  openingText,
  REQUIREMENTS_INTERVIEW_STATES,
  REQUIREMENTS_INTERVIEW_TEXTS,
  reminderText,
  THREAD_POST,
  timeoutText,
} from './states.ts';
import {
  type AgentProfileName,
  type BeginTurnNames,
  stoppedByPerson,
  type TurnOptions,
  writingPhases,
} from './writing-phases.ts';

/** `requirements_interview`; its state and its names are described in states.ts. */
export const REQUIREMENTS_INTERVIEW = defineWorkflow<RequirementsFunctionId, RequirementsInterviewSettings>({
  name: 'requirements_interview',
  // `/prd <idea>`, or a mention of the bot with a product idea (the rule: its config.ts).
  triggers: (_config, settings) => [
    {
      type: 'slash_command',
      command: '/prd',
      description: 'Start a requirements interview: the bot asks about your idea, then writes a PRD',
      usageHint: '<product idea>',
    },
    {
      type: 'mention',
      keywords: [...settings.mentionKeywords],
      channels: [...settings.mentionChannels],
    },
  ],
  ownerRole: 'requester',
  othersRole: 'participant',
  closeOnIntent: true,
  build(scope, kernel) {
    const { table } = kernel;
    const drainFn = kernel.drain;
    const registerWait = kernel.registerWait;
    const slackPostFn = kernel.functions.RequirementsInterviewSlackPost;
    const agentTurnFn = kernel.functions.RequirementsInterviewAgentTurn;
    const { settings } = kernel;
    const S = REQUIREMENTS_INTERVIEW_STATES;
    const T = REQUIREMENTS_INTERVIEW_TEXTS;
    const thread = {
      channel: sfn.JsonPath.stringAt(THREAD_POST.at('channel')),
      threadTs: sfn.JsonPath.stringAt(THREAD_POST.at('threadTs')),
    };
    const post = (
      stateName: string,
      content: Pick<Parameters<typeof slackPost>[2], 'text' | 'template' | 'essential' | 'withCost'>,
    ) => slackPost(scope, stateName, { slackPostFn, ...thread, ...content });
    const record = (stateName: string, props: Omit<RecordInterviewProps, 'table'>) =>
      recordInterviewState(scope, stateName, { table, ...props });
    const failed = failConversation(scope, S.markFailed, {
      table,
      markStateName: S.markFailed,
      failStateName: S.failed,
    });
    // An agent that cannot go on: the requester is told (why, when a limit stopped it).
    const { catchTurn, stopped } = agentFailurePaths(scope, { post, failed });

    // --- The ends: complete, or closed; then the kernel's close-out --------------------------
    // Messages that came in as the interview ended are said to be unhandled (a cosmetic post).
    const unhandledNotice = post(S.tellUnhandled, { text: T.unhandled, essential: false });
    const closingTurn = closeOut(scope, { drainFn, unhandledNotice });
    const markComplete = setConversationFields(scope, S.markComplete, {
      table,
      status: 'resolved',
      phase: 'complete',
    });
    const markClosed = setConversationFields(scope, S.markClosed, {
      table,
      status: 'closed',
      phase: 'closed',
    });
    for (const mark of [markComplete, markClosed]) {
      catchFailure(mark, failed);
      mark.next(closingTurn);
    }
    const recordClosed = record(S.recordClosed, { event: 'closed', agent: 'closed' });
    catchFailure(recordClosed, markClosed);
    recordClosed.next(markClosed);
    const acknowledgeClose = post(S.acknowledgeClose, { text: T.acknowledgeClose });
    // The requester asked to stop: stop even if the acknowledgement cannot be posted.
    catchFailure(acknowledgeClose, recordClosed);
    acknowledgeClose.next(recordClosed);

    /** Next turn, Drain, then the close check: the start of every agent's turn. */
    const beginTurn = (names: BeginTurnNames, turnStates: sfn.IChainable) => {
      const drained = drain(scope, names.drain, { drainFn });
      catchFailure(drained, failed);
      const closeRequested = sfn.Choice.jsonPath(scope, names.close)
        .when(sfn.Condition.booleanEquals(DRAINED.at('closeRequested'), true), acknowledgeClose)
        .otherwise(turnStates);
      return nextTurn(scope, names.next).next(drained).next(closeRequested);
    };
    /** One turn of a requirements agent; a turn that failed after its retries fails the conversation. */
    const turnOf = (stateName: string, profile: AgentProfileName, resultPath: string, props: TurnOptions) => {
      const task = agentTurn(scope, stateName, {
        stateName,
        agentTurnFn,
        profile,
        statePath: REQUIREMENTS_STATE.at('currentAgent'),
        notesPath: REQUIREMENTS_STATE.at('notes'),
        resultPath,
        modelRetry: kernel.config.agentLimits.modelRetry,
        ...props,
      });
      catchTurn(task);
      return task;
    };

    // A turn a person stopped (Stop) goes back to this wait: no other turn runs until someone writes.
    const waitForAnswer = waitForPeople(scope, S.waitForAnswer, {
      registerWait,
      accepts: 'any',
      phase: 'awaiting_answer',
      timeout: Duration.seconds(settings.answerWaitSeconds),
    });

    // --- The PRD, its analysis, then complete ---------------------------------------------
    const { announceReady, noteTurnCap } = writingPhases(scope, {
      post,
      record,
      failed,
      beginTurn,
      turnOf,
      stopped,
      waitForAnswer,
      markComplete,
      maxClarificationTurns: settings.maxClarificationTurns,
    });

    // --- Clarification: assess, then ask and wait, or move on -----------------------------
    const markClarifying = setConversationFields(scope, S.markClarifying, {
      table,
      status: 'active',
      phase: 'clarification',
    });
    catchFailure(markClarifying, failed);
    const clarifyProps = { confidenceThreshold: settings.confidenceThreshold };
    const clarify = turnOf(S.clarify, 'requirements_clarifier', REQUIREMENTS_STATE.at('clarification'), {
      ...clarifyProps,
      mode: 'initial',
    });
    const continueClarifying = turnOf(
      S.continueClarifying,
      'requirements_clarifier',
      REQUIREMENTS_STATE.at('clarification'),
      {
        ...clarifyProps,
        mode: 'continuation',
        sessionIdPath: REQUIREMENTS_STATE.at('clarification.sessionId'),
      },
    );
    const clarificationStart = beginTurn(
      { next: S.nextClarificationTurn, drain: S.drainForClarification, close: S.closeBeforeClarification },
      sfn.Choice.jsonPath(scope, S.sessionToResume)
        .when(sfn.Condition.isPresent(REQUIREMENTS_STATE.at('clarification.sessionId')), continueClarifying)
        .otherwise(clarify),
    );
    markClarifying.next(clarificationStart);

    const waitAfterReminder = waitForPeople(scope, S.waitAfterReminder, {
      registerWait,
      accepts: 'any',
      phase: 'awaiting_answer',
      timeout: Duration.seconds(settings.answerWaitSeconds),
    });
    const remind = post(S.remind, { text: reminderText(settings.answerWaitSeconds) });
    const noteTimeout = post(S.noteTimeout, { text: timeoutText(settings.answerWaitSeconds) });
    catchFailure(remind, failed);
    // Closing anyway: a lost goodbye must not keep the conversation open.
    catchFailure(noteTimeout, recordClosed);
    catchTimeout(waitForAnswer, remind);
    catchTimeout(waitAfterReminder, noteTimeout);
    catchFailure(waitForAnswer, failed);
    catchFailure(waitAfterReminder, failed);
    waitForAnswer.next(markClarifying);
    remind.next(waitAfterReminder);
    waitAfterReminder.next(markClarifying);
    noteTimeout.next(recordClosed);

    const postQuestions = post(S.postQuestions, {
      template: {
        name: 'requirements_questions',
        data: {
          result: sfn.JsonPath.objectAt(REQUIREMENTS_STATE.at('clarification')),
          threshold: settings.confidenceThreshold,
        },
      },
    });
    catchFailure(postQuestions, failed);
    postQuestions.next(waitForAnswer);

    const noteReady = sfn.Pass.jsonPath(scope, S.noteReady, {
      result: sfn.Result.fromObject({ notes: [] }),
      resultPath: REQUIREMENTS_STATE.at('prdNotes'),
    });
    noteReady.next(announceReady);
    // Each outcome of the check is logged (`confidence_check`), then followed.
    const logCheck = (
      stateName: string,
      outcome: NonNullable<RecordInterviewProps['check']>['outcome'],
      then: sfn.IChainable,
    ) => {
      const log = record(stateName, {
        event: 'confidence_check',
        agent: 'clarification',
        check: { outcome, threshold: settings.confidenceThreshold },
      });
      catchFailure(log, failed);
      log.next(then);
      return log;
    };
    const confidenceCheck = sfn.Choice.jsonPath(scope, S.confidenceCheck)
      .when(
        sfn.Condition.numberGreaterThanEquals(
          REQUIREMENTS_STATE.at('clarification.confidence'),
          settings.confidenceThreshold,
        ),
        logCheck(S.logThresholdMet, 'threshold_met', noteReady),
      )
      .when(
        sfn.Condition.numberGreaterThanEquals(
          REQUIREMENTS_STATE.at('clarificationTurns'),
          settings.maxClarificationTurns,
        ),
        logCheck(S.logTurnCap, 'turn_cap_reached', noteTurnCap),
      )
      .otherwise(logCheck(S.logBelowThreshold, 'below_threshold', postQuestions));
    const recordClarification = record(S.recordClarification, {
      event: 'clarification_agent_completed',
      agent: 'clarification',
      confidence: true,
    });
    catchFailure(recordClarification, failed);
    recordClarification.next(confidenceCheck);
    const countTurn = incrementCounter(scope, S.countClarificationTurn, { field: 'clarificationTurns' });
    countTurn.next(
      sfn.Choice.jsonPath(scope, S.routeClarification)
        .when(
          sfn.Condition.stringEquals(REQUIREMENTS_STATE.at('clarification.action'), 'assessed'),
          recordClarification,
        )
        .when(stoppedByPerson(REQUIREMENTS_STATE.at('clarification')), waitForAnswer)
        .when(
          sfn.Condition.stringEquals(REQUIREMENTS_STATE.at('clarification.action'), 'continue'),
          markClarifying,
        )
        .otherwise(stopped('clarification', REQUIREMENTS_STATE.at('clarification'))),
    );
    clarify.next(countTurn);
    continueClarifying.next(countTurn);

    // --- The start ---------------------------------------------------------------------------
    const openThread = slackPost(scope, S.openThread, {
      slackPostFn,
      channel: sfn.JsonPath.stringAt(REQUIREMENTS_STATE.at('channel')),
      text: sfn.JsonPath.format(openingText('{}'), sfn.JsonPath.stringAt(REQUIREMENTS_STATE.at('ownerId'))),
      // Slash commands have no thread: this post opens the interview's, owned by the requester.
      anchor: { name: 'interview', ownerRole: 'requester', othersRole: 'participant' },
      resultPath: THREAD_POST.path,
    });
    catchFailure(openThread, failed);
    const startRecord = record(S.startRecord, {
      event: 'clarification_agent_start',
      agent: 'clarification',
      init: {
        confidenceThreshold: settings.confidenceThreshold,
        maxClarificationTurns: settings.maxClarificationTurns,
      },
    });
    catchFailure(startRecord, failed);
    openThread.next(startRecord).next(markClarifying);
    // A mention started it: the interview runs in the mention's thread, which the Router
    // already gave the requester (the registration's roles), so this post links nothing.
    const openInMentionThread = slackPost(scope, S.openInMentionThread, {
      slackPostFn,
      channel: sfn.JsonPath.stringAt(REQUIREMENTS_STATE.at('channel')),
      threadTs: sfn.JsonPath.stringAt(REQUIREMENTS_STATE.at('threadTs')),
      text: sfn.JsonPath.format(openingText('{}'), sfn.JsonPath.stringAt(REQUIREMENTS_STATE.at('ownerId'))),
      resultPath: THREAD_POST.path,
    });
    catchFailure(openInMentionThread, failed);
    openInMentionThread.next(startRecord);
    const startedInThread = sfn.Choice.jsonPath(scope, S.startedInThread)
      .when(sfn.Condition.isPresent(REQUIREMENTS_STATE.at('threadTs')), openInMentionThread)
      .otherwise(openThread);
    const prepare = sfn.Pass.jsonPath(scope, S.prepare, {
      ...replaceState(
        sfn.JsonPath.jsonMerge(
          sfn.JsonPath.entirePayload,
          sfn.JsonPath.stringToJson(
            '{"clarificationTurns":0,"currentAgent":"clarification","notes":[],"prdNotes":{"notes":[]},"clarification":{}}',
          ),
        ),
      ),
    });
    return prepare.next(startedInThread);
  },
});
