import { Duration } from 'aws-cdk-lib';
import type { ITableRef } from 'aws-cdk-lib/aws-dynamodb';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import type { RequirementsInterviewSettings } from '../../lambdas/workflows/requirements-interview/config.ts';
import type { RequirementsTurnState } from '../../lambdas/workflows/requirements-interview/contract.ts';
import type { REQUIREMENTS_INTERVIEW_PROFILES } from '../../lambdas/workflows/requirements-interview/profiles/index.ts';
import { type AgentTurnProps, agentTurn } from '../agent-turn.ts';
import {
  addTransientRetry,
  catchFailure,
  catchTimeout,
  closeOut,
  DRAINED_PATH,
  DYNAMODB_TASK_TIMEOUT,
  DYNAMODB_TRANSIENT_ERRORS,
  describeDuration,
  drain,
  FAILURE_PATH,
  incrementCounter,
  nextTurn,
  waitForPeople,
} from '../kernel.ts';
import { conversationItemKey, failConversation, setConversationFields } from '../kernel-records.ts';
import { slackPost } from '../slack-post.ts';
import { defineWorkflow } from '../workflow-module.ts';
import type { RequirementsFunctionId } from './functions.ts';

/** The interview's agent roles. */
type AgentProfileName = keyof typeof REQUIREMENTS_INTERVIEW_PROFILES;

/**
 * `requirements_interview` (seed 004): `/prd <idea>` opens a thread where the clarification
 * agent interviews the requester (anyone else in the thread may answer too, labelled as a
 * participant) until its confidence reaches the threshold or the turn cap, then the PRD
 * generator writes the PRD and the analysis agent analyses it; both are posted and attached
 * as Markdown. The requester's "cancel" ends it at any point.
 *
 * The state, beyond `ExecutionInput` (conversationId, workflow, channel, ownerId, turn):
 * - `thread`: the `SlackPostOutput` of the post that opened the interview's thread.
 * - `clarificationTurns`: clarification turns so far (seed 004's `turns_count`).
 * - `clarification`, `prd`, `analysis`: the last turn output of each agent; the PRD generator
 *   and the analysis agent resume the clarification's session, so each reads the interview.
 * - `prdNotes`: what the PRD generator is told (the open unknowns, at the turn cap).
 * - `drained`, `wake`, `timedOut`, `failure`: the kernel's, see kernel.ts.
 *
 * The conversation record keeps the seed's `conversation_states` row under `interview`:
 * `currentAgent`, `confidence`, `turnsInAgent`, `confidenceHistory` (one entry per clarification
 * turn) and `transitions` (every transition with its agent, confidence, turns and time `at`, the
 * ISO time the recording state was entered).
 */

export const REQUIREMENTS_INTERVIEW_STATES = {
  prepare: 'Prepare interview',
  startedInThread: 'Started by a mention?',
  openInMentionThread: "Open interview in the mention's thread",
  openThread: 'Open interview thread',
  startRecord: 'Start interview record',
  markClarifying: 'Mark clarifying',
  nextClarificationTurn: 'Next clarification turn',
  drainForClarification: 'Drain for clarification',
  closeBeforeClarification: 'Close requested before clarification?',
  clarify: 'Clarify',
  continueClarifying: 'Continue clarifying',
  countClarificationTurn: 'Count clarification turn',
  routeClarification: 'Route clarification',
  recordClarification: 'Record clarification',
  confidenceCheck: 'Confidence check',
  logBelowThreshold: 'Log confidence below threshold',
  logThresholdMet: 'Log confidence threshold met',
  logTurnCap: 'Log turn cap reached',
  postQuestions: 'Post questions',
  waitForAnswer: 'Wait for answer',
  remind: 'Remind requester',
  waitAfterReminder: 'Wait after reminder',
  noteTimeout: 'Close for no answer',
  noteTurnCap: 'Note turn cap',
  noteReady: 'Note confidence reached',
  announceReady: 'Announce PRD',
  enterPrd: 'Enter PRD generation',
  enterAnalysis: 'Enter analysis',
  sessionToResume: 'Session to resume?',
  recordPrdStart: 'Record PRD generation start',
  nextPrdTurn: 'Next PRD turn',
  drainForPrd: 'Drain for PRD',
  closeBeforePrd: 'Close requested before PRD?',
  writePrd: 'Write PRD',
  routePrd: 'Route PRD',
  postPrd: 'Post PRD',
  recordAnalysisStart: 'Record analysis start',
  nextAnalysisTurn: 'Next analysis turn',
  drainForAnalysis: 'Drain for analysis',
  closeBeforeAnalysis: 'Close requested before analysis?',
  analyse: 'Analyse PRD',
  routeAnalysis: 'Route analysis',
  postAnalysis: 'Post analysis',
  recordComplete: 'Record complete',
  markComplete: 'Mark complete',
  acknowledgeClose: 'Acknowledge close',
  recordClosed: 'Record closed',
  markClosed: 'Mark closed',
  closingTurn: 'Closing turn',
  cleanUp: 'Clean up',
  done: 'Done',
  cleanUpFailed: 'Clean-up failed',
  noteFailedAgent: 'Note failed agent',
  tellFailure: 'Tell requester of failure',
  markFailed: 'Mark failed',
  failed: 'Failed',
} as const;

export const REQUIREMENTS_INTERVIEW_TEXTS = {
  acknowledgeClose: ':white_check_mark: Interview stopped. Nothing more will happen in this thread.',
  ready: ':memo: I have what I need. Writing the PRD now...',
  agentFailed:
    ':warning: Sorry, I could not continue this interview: an agent turn failed after its retries. ' +
    'Run /prd again to start over.',
} as const;

/** The opening post: it opens the thread the interview runs in. */
export function openingText(ownerId: string): string {
  return `:memo: Requirements interview for <@${ownerId}>. I'll ask a few questions to understand the idea, then write a PRD and analyse it. Answer in this thread; anyone may chime in. Say "cancel" to stop.`;
}

export function reminderText(waitSeconds: number): string {
  return `:bell: Reminder: the questions above are still open. Without an answer in ${describeDuration(waitSeconds)}, I'll close this interview.`;
}

export function timeoutText(waitSeconds: number): string {
  return `:zzz: No answer after the reminder (${describeDuration(waitSeconds)}): closing this interview. Run /prd again to start over.`;
}

/** The note the PRD generator gets when the turn cap ended the interview. */
export function turnCapNote(maxTurns: number): string {
  return `The interview reached its limit of ${maxTurns} clarification turns before your confidence reached the threshold. Write the PRD anyway from what you know, and list every open unknown under open questions. The open unknowns the clarification agent reported:`;
}

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
      channel: sfn.JsonPath.stringAt('$.thread.channel'),
      threadTs: sfn.JsonPath.stringAt('$.thread.threadTs'),
    };
    const post = (stateName: string, content: Pick<Parameters<typeof slackPost>[2], 'text' | 'template'>) =>
      slackPost(scope, stateName, { slackPostFn, ...thread, ...content });
    const record = (stateName: string, props: Omit<RecordInterviewProps, 'table'>) =>
      recordInterviewState(scope, stateName, { table, ...props });
    const failed = failConversation(scope, S.markFailed, {
      table,
      markStateName: S.markFailed,
      failStateName: S.failed,
    });
    // An agent turn that failed after its retries (or crashed) ends the conversation as failed,
    // after telling the requester in the thread, so the interview does not just go quiet.
    const tellFailure = post(S.tellFailure, { text: T.agentFailed });
    // Failing anyway if the message cannot be posted, with the agent's failure as the
    // execution's error (the post's own error goes elsewhere, not over `$.failure`).
    tellFailure.addCatch(failed, { errors: [sfn.Errors.ALL], resultPath: '$.tellFailureError' });
    const noteFailedAgent = sfn.Pass.jsonPath(scope, S.noteFailedAgent, {
      parameters: { Error: 'AgentTurnFailed', Cause: 'An agent turn failed after its retries' },
      resultPath: FAILURE_PATH,
    });
    noteFailedAgent.next(tellFailure).next(failed);

    // --- The ends: complete, or closed; then the kernel's close-out --------------------------
    const closingTurn = closeOut(scope, { drainFn });
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
    const beginTurn = (names: { next: string; drain: string; close: string }, turnStates: sfn.IChainable) => {
      const drained = drain(scope, names.drain, { drainFn });
      catchFailure(drained, failed);
      const closeRequested = sfn.Choice.jsonPath(scope, names.close)
        .when(sfn.Condition.booleanEquals(`${DRAINED_PATH}.closeRequested`, true), acknowledgeClose)
        .otherwise(turnStates);
      return nextTurn(scope, names.next).next(drained).next(closeRequested);
    };
    /** One turn of a requirements agent; a turn that failed after its retries fails the conversation. */
    const turnOf = (
      stateName: string,
      profile: AgentProfileName,
      resultPath: string,
      props: Pick<AgentTurnProps, 'mode' | 'sessionIdPath' | 'confidenceThreshold'> & { notesPath?: string },
    ) => {
      const task = agentTurn(scope, stateName, {
        stateName,
        agentTurnFn,
        profile,
        statePath: '$.currentAgent',
        notesPath: '$.notes',
        resultPath,
        ...props,
      });
      catchFailure(task, noteFailedAgent);
      return task;
    };

    /**
     * A one-turn agent (the PRD generator, the analysis agent): record the transition, enter
     * the agent, run its turn (again while it runs out of budget), post its result.
     */
    const phase = (p: {
      agent: 'prd_generator' | 'analysis';
      /** The transition's name in the log (seed 004's). */
      event: string;
      names: { record: string; enter: string; next: string; drain: string; close: string; turn: string };
      route: string;
      profile: AgentProfileName;
      resultPath: string;
      turn: Pick<AgentTurnProps, 'sessionIdPath'> & { notesPath?: string };
      done: string;
      post: sfn.TaskStateBase;
    }) => {
      const task = turnOf(p.names.turn, p.profile, p.resultPath, { mode: 'continuation', ...p.turn });
      const start = beginTurn(p.names, task);
      task.next(
        sfn.Choice.jsonPath(scope, p.route)
          .when(sfn.Condition.stringEquals(`${p.resultPath}.action`, p.done), p.post)
          .when(sfn.Condition.stringEquals(`${p.resultPath}.action`, 'continue'), start)
          .otherwise(noteFailedAgent),
      );
      catchFailure(p.post, failed);
      const recordStart = record(p.names.record, { event: p.event, agent: p.agent });
      catchFailure(recordStart, failed);
      recordStart.next(agentPass(scope, p.names.enter, p.agent)).next(start);
      return recordStart;
    };

    // --- The PRD, its analysis, then complete ---------------------------------------------
    const recordComplete = record(S.recordComplete, { event: 'complete', agent: 'complete' });
    catchFailure(recordComplete, failed);
    recordComplete.next(markComplete);
    const postAnalysis = post(S.postAnalysis, {
      template: {
        name: 'requirements_analysis',
        data: { result: sfn.JsonPath.objectAt('$.analysis'), title: sfn.JsonPath.stringAt('$.prd.title') },
      },
    });
    postAnalysis.next(recordComplete);
    const analysis = phase({
      agent: 'analysis',
      event: 'analysis_agent_start',
      names: {
        record: S.recordAnalysisStart,
        enter: S.enterAnalysis,
        next: S.nextAnalysisTurn,
        drain: S.drainForAnalysis,
        close: S.closeBeforeAnalysis,
        turn: S.analyse,
      },
      route: S.routeAnalysis,
      profile: 'requirements_analyst',
      resultPath: '$.analysis',
      turn: { sessionIdPath: '$.prd.sessionId' },
      done: 'analysed',
      post: postAnalysis,
    });
    const postPrd = post(S.postPrd, {
      template: { name: 'requirements_prd', data: { result: sfn.JsonPath.objectAt('$.prd') } },
    });
    postPrd.next(analysis);
    const recordPrdStart = phase({
      agent: 'prd_generator',
      event: 'prd_generation_start',
      names: {
        record: S.recordPrdStart,
        enter: S.enterPrd,
        next: S.nextPrdTurn,
        drain: S.drainForPrd,
        close: S.closeBeforePrd,
        turn: S.writePrd,
      },
      route: S.routePrd,
      profile: 'prd_writer',
      resultPath: '$.prd',
      turn: { sessionIdPath: '$.clarification.sessionId', notesPath: '$.prdNotes.notes' },
      done: 'written',
      post: postPrd,
    });
    const announceReady = post(S.announceReady, { text: T.ready });
    catchFailure(announceReady, failed);
    announceReady.next(recordPrdStart);
    const noteTurnCap = sfn.Pass.jsonPath(scope, S.noteTurnCap, {
      parameters: {
        notes: sfn.JsonPath.array(
          sfn.JsonPath.format(
            '{} {}',
            turnCapNote(settings.maxClarificationTurns),
            sfn.JsonPath.jsonToString(sfn.JsonPath.listAt('$.clarification.openUnknowns')),
          ),
        ),
      },
      resultPath: '$.prdNotes',
    });
    noteTurnCap.next(announceReady);

    // --- Clarification: assess, then ask and wait, or move on -----------------------------
    const markClarifying = setConversationFields(scope, S.markClarifying, {
      table,
      status: 'active',
      phase: 'clarification',
    });
    catchFailure(markClarifying, failed);
    const clarifyProps = { confidenceThreshold: settings.confidenceThreshold };
    const clarify = turnOf(S.clarify, 'requirements_clarifier', '$.clarification', {
      ...clarifyProps,
      mode: 'initial',
    });
    const continueClarifying = turnOf(S.continueClarifying, 'requirements_clarifier', '$.clarification', {
      ...clarifyProps,
      mode: 'continuation',
      sessionIdPath: '$.clarification.sessionId',
    });
    const clarificationStart = beginTurn(
      { next: S.nextClarificationTurn, drain: S.drainForClarification, close: S.closeBeforeClarification },
      sfn.Choice.jsonPath(scope, S.sessionToResume)
        .when(sfn.Condition.isPresent('$.clarification.sessionId'), continueClarifying)
        .otherwise(clarify),
    );
    markClarifying.next(clarificationStart);

    const waitForAnswer = waitForPeople(scope, S.waitForAnswer, {
      registerWait,
      accepts: 'any',
      phase: 'awaiting_answer',
      timeout: Duration.seconds(settings.answerWaitSeconds),
    });
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
        data: { result: sfn.JsonPath.objectAt('$.clarification'), threshold: settings.confidenceThreshold },
      },
    });
    catchFailure(postQuestions, failed);
    postQuestions.next(waitForAnswer);

    const noteReady = sfn.Pass.jsonPath(scope, S.noteReady, {
      result: sfn.Result.fromObject({ notes: [] }),
      resultPath: '$.prdNotes',
    });
    noteReady.next(announceReady);
    // Each outcome of the check is logged (seed 004's `confidence_check`), then followed.
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
        sfn.Condition.numberGreaterThanEquals('$.clarification.confidence', settings.confidenceThreshold),
        logCheck(S.logThresholdMet, 'threshold_met', noteReady),
      )
      .when(
        sfn.Condition.numberGreaterThanEquals('$.clarificationTurns', settings.maxClarificationTurns),
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
        .when(sfn.Condition.stringEquals('$.clarification.action', 'assessed'), recordClarification)
        .when(sfn.Condition.stringEquals('$.clarification.action', 'continue'), markClarifying)
        .otherwise(noteFailedAgent),
    );
    clarify.next(countTurn);
    continueClarifying.next(countTurn);

    // --- The start ---------------------------------------------------------------------------
    const openThread = slackPost(scope, S.openThread, {
      slackPostFn,
      channel: sfn.JsonPath.stringAt('$.channel'),
      text: sfn.JsonPath.format(openingText('{}'), sfn.JsonPath.stringAt('$.ownerId')),
      // Slash commands have no thread: this post opens the interview's, owned by the requester.
      anchor: { name: 'interview', ownerRole: 'requester', othersRole: 'participant' },
      resultPath: '$.thread',
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
      channel: sfn.JsonPath.stringAt('$.channel'),
      threadTs: sfn.JsonPath.stringAt('$.threadTs'),
      text: sfn.JsonPath.format(openingText('{}'), sfn.JsonPath.stringAt('$.ownerId')),
      resultPath: '$.thread',
    });
    catchFailure(openInMentionThread, failed);
    openInMentionThread.next(startRecord);
    const startedInThread = sfn.Choice.jsonPath(scope, S.startedInThread)
      .when(sfn.Condition.isPresent('$.threadTs'), openInMentionThread)
      .otherwise(openThread);
    const prepare = sfn.Pass.jsonPath(scope, S.prepare, {
      parameters: {
        state: sfn.JsonPath.jsonMerge(
          sfn.JsonPath.entirePayload,
          sfn.JsonPath.stringToJson(
            '{"clarificationTurns":0,"currentAgent":"clarification","notes":[],"prdNotes":{"notes":[]},"clarification":{}}',
          ),
        ),
      },
      outputPath: '$.state',
    });
    return prepare.next(startedInThread);
  },
});

/** Sets `$.currentAgent`, the state the next agent turn runs in. */
function agentPass(scope: Construct, stateName: string, agent: RequirementsTurnState): sfn.Pass {
  return sfn.Pass.jsonPath(scope, stateName, {
    result: sfn.Result.fromString(agent),
    resultPath: '$.currentAgent',
  });
}

interface RecordInterviewProps {
  readonly table: ITableRef;
  /** The transition's name in the log, e.g. `prd_generation_start` (seed 004's log lines). */
  readonly event: string;
  /** The agent the conversation is in after the transition (seed 004's `current_agent`). */
  readonly agent: RequirementsTurnState | 'complete' | 'closed';
  /** Also record the clarification's confidence, and the turn's entry in `confidenceHistory`. */
  readonly confidence?: boolean;
  /**
   * The confidence check's outcome (seed 004's `confidence_check` line): the entry gets the
   * confidence, the threshold and the outcome; the current agent and the history stay.
   */
  readonly check?: {
    readonly outcome: 'below_threshold' | 'threshold_met' | 'turn_cap_reached';
    readonly threshold: number;
  };
  /**
   * Creates the record (the first transition), with this metadata.
   * @default - the record exists: update it
   */
  readonly init?: { readonly confidenceThreshold: number; readonly maxClarificationTurns: number };
}

/**
 * Writes seed 004's conversation state into the conversation record (`interview`) and appends
 * the transition to its log, with the direct DynamoDB integration (no logic, so no Lambda). The
 * update is conditional on the conversation existing, like `setConversationFields`.
 */
function recordInterviewState(
  scope: Construct,
  id: string,
  props: RecordInterviewProps,
): tasks.DynamoUpdateItem {
  const V = tasks.DynamoAttributeValue;
  const text = (value: string) => V.fromString(value);
  const list = (values: tasks.DynamoAttributeValue[]) => V.fromList(values);
  const map = (values: Record<string, tasks.DynamoAttributeValue>) => V.fromMap(values);
  // A number from the state: DynamoDB's `N` is a string, so the number is formatted into one.
  const number = (path: string) => V.numberFromString(sfn.JsonPath.format('{}', sfn.JsonPath.stringAt(path)));
  const zero = V.fromNumber(0);
  // Turns in the current agent: the clarification counts its turns; the others have one each.
  const turns = props.agent === 'clarification' ? number('$.clarificationTurns') : zero;
  const confidence = number('$.clarification.confidence');
  // When this state was entered (seed 004 times every transition): the service's own clock, no Lambda.
  const at = text(sfn.JsonPath.stringAt('$$.State.EnteredTime'));
  const entry = map({
    event: text(props.event),
    agent: text(props.agent),
    turn: number('$.turn'),
    turnsInAgent: turns,
    ...(props.confidence || props.check ? { confidence } : {}),
    ...(props.check
      ? { outcome: text(props.check.outcome), threshold: V.fromNumber(props.check.threshold) }
      : {}),
    at,
  });
  let update: string;
  let values: Record<string, tasks.DynamoAttributeValue>;
  if (props.init) {
    update = 'SET interview = :interview';
    values = {
      ':interview': map({
        currentAgent: text(props.agent),
        confidence: zero,
        turnsInAgent: zero,
        confidenceHistory: list([]),
        transitions: list([entry]),
        metadata: map({
          confidenceThreshold: V.fromNumber(props.init.confidenceThreshold),
          maxClarificationTurns: V.fromNumber(props.init.maxClarificationTurns),
        }),
      }),
    };
  } else {
    const sets = ['interview.transitions = list_append(interview.transitions, :log)'];
    values = { ':log': list([entry]) };
    if (!props.check) {
      sets.push('interview.currentAgent = :agent', 'interview.turnsInAgent = :turns');
      values[':agent'] = text(props.agent);
      values[':turns'] = turns;
    }
    if (props.confidence) {
      sets.push(
        'interview.confidence = :confidence',
        'interview.confidenceHistory = list_append(interview.confidenceHistory, :history)',
      );
      values[':confidence'] = confidence;
      values[':history'] = list([
        map({
          turn: turns,
          confidence,
          reason: text(sfn.JsonPath.stringAt('$.clarification.confidenceReason')),
          at,
        }),
      ]);
    }
    update = `SET ${sets.join(', ')}`;
  }
  const task = tasks.DynamoUpdateItem.jsonPath(scope, id, {
    stateName: id,
    table: props.table,
    key: conversationItemKey(),
    updateExpression: update,
    conditionExpression: 'attribute_exists(pk)',
    expressionAttributeValues: values,
    resultPath: sfn.JsonPath.DISCARD,
    taskTimeout: sfn.Timeout.duration(DYNAMODB_TASK_TIMEOUT),
  });
  addTransientRetry(task, DYNAMODB_TRANSIENT_ERRORS);
  return task;
}
