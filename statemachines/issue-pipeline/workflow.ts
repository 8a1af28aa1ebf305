import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { IssuePipelineSettings } from '../../lambdas/workflows/issue-pipeline/config.ts';
import type { ModelAgent } from '../../lambdas/workflows/issue-pipeline/state.ts';
import { agentTurn } from '../agent-turn.ts';
import { approvalResult, approvalWait } from '../approval-wait.ts';
import {
  catchFailure,
  catchTimeout,
  closeOut,
  drain,
  FAILURE,
  FAILURE_PATH,
  nextTurn,
  waitForPeople,
} from '../kernel.ts';
import { failConversation, setConversationFields } from '../kernel-records.ts';
import { lambdaTask } from '../lambda-task.ts';
import { catchModelStop, modelRefused, noteModelRefused } from '../model-stops.ts';
import { slackPost } from '../slack-post.ts';
import { defineWorkflow, requireChannel } from '../workflow-module.ts';
import { buildStage } from './build-stage.ts';
import type { IssueFunctionId } from './functions.ts';
import { ISSUE_STATE } from './issue-state.ts';
import {
  agentStates,
  FAILURE_TEXT,
  HAND_OFF,
  ISSUE_PIPELINE_STATES,
  PROGRESS,
  SENSITIVE_CHANGE_DECISION,
} from './states.ts';
import type { IssueTask, IssueTaskPayload } from './tasks.ts';

const AGENTS: readonly ModelAgent[] = ['triage', 'analyst', 'writer', 'reviewer'];
const conversationId = sfn.JsonPath.stringAt(ISSUE_STATE.at('conversationId'));
/** Where the decision on a sensitive change is kept. */
const APPROVAL = approvalResult(ISSUE_STATE.at('approval'));
const nextIs = (stage: string) => sfn.Condition.stringEquals(HAND_OFF.at('next'), stage);

/**
 * `issue_pipeline`: Triage -> Analyst -> Writer -> Build -> Reviewer -> Committer, a
 * rejection or a failed build back to the Writer for at most `maxAttempts` attempts. After each
 * stage the hand-off (code) validates the agent's output into the document, holds the limits
 * and decides the next stage; the progress message and comment are edited; the hub "Next
 * stage?" routes. Questions to another agent run that agent; questions to people and
 * escalations wait, bounded, for an answer in the thread or on the issue. The state is
 * described in states.ts.
 */
export const ISSUE_PIPELINE = defineWorkflow<IssueFunctionId, IssuePipelineSettings>({
  name: 'issue_pipeline',
  triggers: (_config, settings) =>
    settings.repository === undefined
      ? []
      : [
          { type: 'github_issue_labeled', repository: settings.repository, label: settings.label },
          {
            type: 'slash_command',
            command: '/fix',
            description: `Run the issue pipeline on an issue of ${settings.repository}: triage to pull request`,
            usageHint: '<issue URL or number>',
            // An issue is the pipeline's whole work: it has one run, started on the issue itself,
            // the same conversation its label starts.
            names: {
              names: [{ anchor: 'github_issue', repository: settings.repository }],
              refusal: `names no issue of ${settings.repository}`,
              help: `The issue is one of ${settings.repository}: its number (\`42\`, \`#42\`) or its URL.`,
              anchored: true,
              once: true,
            },
          },
        ],
  ownerRole: 'requester',
  othersRole: 'commenter',
  closeOnIntent: false,
  build(scope, kernel) {
    const S = ISSUE_PIPELINE_STATES;
    const { table, settings } = kernel;
    const fns = kernel.functions;
    const channel = requireChannel(kernel.config, 'issuePipeline');
    // Each call's payload is checked against its function's input by `IssueTask`'s type.
    const task: IssueTask = (name, fn, payload, resultPath) =>
      lambdaTask<Record<string, unknown>>(scope, name, fns[fn], { conversationId, ...payload }, resultPath);
    const progress = (name: string, say?: string) =>
      task(name, 'IssueProgress', { channel, ...(say === undefined ? {} : { say }) }, PROGRESS.path);

    // --- The ends ----------------------------------------------------------------------------
    const markFailed = failConversation(scope, S.markFailed, {
      table,
      markStateName: S.markFailed,
      failStateName: S.failed,
    });
    // The error is told where people follow the issue: the pipeline's thread (its message links
    // the issue) and a comment on the issue. Should that fail too (the issue's state or GitHub is
    // what failed), the developers' channel is told instead.
    const tellChannel = slackPost(scope, S.tellFailure, {
      slackPostFn: kernel.slackPost,
      channel,
      text: sfn.JsonPath.format(FAILURE_TEXT, sfn.JsonPath.stringAt(`${FAILURE_PATH}.Error`)),
      resultPath: ISSUE_STATE.at('failureNotice'),
    });
    tellChannel.addCatch(markFailed, {
      errors: [sfn.Errors.ALL],
      resultPath: ISSUE_STATE.at('failureNoticeError'),
    });
    tellChannel.next(markFailed);
    const failed = task(
      S.tellIssueFailure,
      'IssueProgress',
      { channel, failure: sfn.JsonPath.objectAt(FAILURE_PATH) },
      ISSUE_STATE.at('failureNotice'),
    );
    failed.addCatch(tellChannel, {
      errors: [sfn.Errors.ALL],
      resultPath: ISSUE_STATE.at('failureNoticeError'),
    });
    failed.next(markFailed);
    const closingTurn = closeOut(scope, { drainFn: kernel.drain });
    const mark = (name: string, status: string, phase: string) => {
      const marked = setConversationFields(scope, name, { table, status, phase });
      catchFailure(marked, failed);
      marked.next(closingTurn);
      return marked;
    };
    const markDone = mark(S.markDone, 'resolved', 'completed');
    const markStopped = mark(S.markStopped, 'closed', 'stopped');
    const markBlocked = mark(S.markBlocked, 'failed', 'blocked');
    const markEndFailed = mark(S.markEndFailed, 'failed', 'failed');

    // --- The hub: show progress, then the next stage ------------------------------------------
    const nextStage = sfn.Choice.jsonPath(scope, S.nextStage);
    const shown = progress(S.showProgress);
    // Progress is for people to watch: its failure must not stop the pipeline.
    catchFailure(shown, nextStage);
    shown.next(nextStage);
    // Every hand-off passes here: the conversation's phase names the stage it hands to, so the
    // console and the Reconciler see where the pipeline is (it is for watching, as progress is).
    const showProgress = setConversationFields(scope, S.markStage, {
      table,
      phase: sfn.JsonPath.stringAt(HAND_OFF.at('next')),
    });
    catchFailure(showProgress, shown);
    showProgress.next(shown);

    /** A hand-off Lambda after an agent's turn, then the hub. */
    const handOff = (name: string, payload: Omit<IssueTaskPayload<'IssueHandOff'>, 'previous'>) => {
      const handed = task(
        name,
        'IssueHandOff',
        { previous: sfn.JsonPath.objectAt(HAND_OFF.path), ...payload },
        HAND_OFF.path,
      );
      catchFailure(handed, failed);
      handed.next(showProgress);
      return handed;
    };

    /** Next turn, Drain, the agent's turn (a failed turn becomes `blocked` for the hand-off), the hand-off. */
    const agentStage = (agent: ModelAgent, answering: boolean) => {
      const N = agentStates(agent);
      const turnName = answering ? N.answer : N.turn;
      const turn = agentTurn(scope, turnName, {
        stateName: turnName,
        agentTurnFn: fns.IssuePipelineAgentTurn,
        profile: answering ? `issue_${agent}_answer` : `issue_${agent}`,
        mode: 'initial',
        statePath: HAND_OFF.at('next'),
        notesPath: HAND_OFF.at('notes'),
        sessionIdPath: `$.pipeline.sessions.${agent}`,
        resultPath: ISSUE_STATE.at('turnOutput'),
        modelRetry: kernel.config.agentLimits.modelRetry,
        // Every agent reads (and the writer writes) the pipeline's branch, agents/issue-<n>.
        toolContext: { workBranch: sfn.JsonPath.stringAt(ISSUE_STATE.at('pipeline.branch')) },
      });
      const noteFailed = sfn.Pass.jsonPath(scope, answering ? N.noteFailedAnswer : N.noteFailedTurn, {
        parameters: {
          action: 'blocked',
          sessionId: 'none',
          reason: sfn.JsonPath.format('the turn failed: {}', sfn.JsonPath.stringAt(FAILURE.at('Error'))),
        },
        resultPath: ISSUE_STATE.at('turnOutput'),
      });
      // A model that cannot serve the turn fails the pipeline with its cause (model-stops.ts).
      catchModelStop(turn, failed);
      catchFailure(turn, noteFailed);
      const handed = handOff(answering ? N.takeAnswer : N.handOff, {
        agent,
        mode: answering ? 'answer' : 'work',
        turn: sfn.JsonPath.objectAt(ISSUE_STATE.at('turnOutput')),
      });
      noteFailed.next(handed);
      const refused = noteModelRefused(
        scope,
        N.noteModelRefused(answering),
        ISSUE_STATE.at('turnOutput'),
      ).next(failed);
      turn.next(
        sfn.Choice.jsonPath(scope, N.modelRefused(answering))
          .when(modelRefused(ISSUE_STATE.at('turnOutput')), refused)
          .otherwise(handed),
      );
      const drained = drain(scope, answering ? N.answerDrain : N.drain, { drainFn: kernel.drain });
      catchFailure(drained, failed);
      return nextTurn(scope, answering ? N.answerNextTurn : N.nextTurn)
        .next(drained)
        .next(turn);
    };
    const perAgent = (answering: boolean): Record<ModelAgent, sfn.IChainable> => ({
      triage: agentStage('triage', answering),
      analyst: agentStage('analyst', answering),
      writer: agentStage('writer', answering),
      reviewer: agentStage('reviewer', answering),
    });
    const stages = perAgent(false);
    const answers = perAgent(true);

    // --- Build: the change, then (once per base commit) the base ------------------------------
    const buildStates = buildStage(scope, kernel, task, showProgress, failed);

    // --- Committer ----------------------------------------------------------------------------
    const committer = task(
      S.committer,
      'IssueCommitter',
      { branch: sfn.JsonPath.stringAt(ISSUE_STATE.at('pipeline.branch')) },
      ISSUE_STATE.at('commit'),
    );
    catchFailure(committer, failed);
    const committed = sfn.Choice.jsonPath(scope, S.committed)
      .when(sfn.Condition.booleanEquals(ISSUE_STATE.at('commit.opened'), true), markDone)
      .otherwise(markBlocked);
    const finalProgress = progress(S.finalProgress);
    catchFailure(finalProgress, committed);
    committer.next(finalProgress).next(committed);

    // --- Protected paths (the branch's real diff): an approver's button before the Committer --
    const takeApproval = handOff(S.takeApproval, {
      agent: 'reviewer',
      mode: 'approval',
      approval: sfn.JsonPath.objectAt(APPROVAL.path),
    });
    const approval = approvalWait(scope, 'Sensitive change approval', {
      label: 'sensitive change approval',
      slackPostFn: kernel.slackPost,
      approvalWaitFn: kernel.approvalWait,
      channel,
      threadTs: sfn.JsonPath.stringAt(PROGRESS.at('threadTs')),
      text: sfn.JsonPath.format(
        ':lock: {} Approve opens the pull request; Reject stops the pipeline here.',
        sfn.JsonPath.stringAt(HAND_OFF.at('reason')),
      ),
      approval: {
        kind: SENSITIVE_CHANGE_DECISION,
        buttons: [
          { decision: 'approve', label: 'Approve', style: 'primary' },
          { decision: 'reject', label: 'Reject', style: 'danger' },
        ],
      },
      timeout: Duration.seconds(settings.humanWaitSeconds),
      result: APPROVAL,
      onFailure: failed,
    }).next(takeApproval);

    // --- Questions and escalations ------------------------------------------------------------
    const whoIsAsked = sfn.Choice.jsonPath(scope, S.whoIsAsked);
    for (const agent of AGENTS)
      whoIsAsked.when(sfn.Condition.stringEquals(HAND_OFF.at('asked'), agent), answers[agent]);
    whoIsAsked.otherwise(markBlocked);
    const askPeople = progress(
      S.askPeople,
      sfn.JsonPath.format(
        ':question: The {} asks: {}\nAnswer in this thread (developers) or on the issue (people with write access to the repository).',
        sfn.JsonPath.stringAt(HAND_OFF.at('asker')),
        sfn.JsonPath.stringAt(HAND_OFF.at('reason')),
      ),
    );
    catchFailure(askPeople, failed);
    const waitForAnswer = waitForPeople(scope, S.waitForPeople, {
      registerWait: kernel.registerWait,
      accepts: 'any',
      phase: 'awaiting_people',
      timeout: Duration.seconds(settings.humanWaitSeconds),
    });
    // Nobody who may answer did (a comment from a reader): wait again, without showing progress,
    // whose edits would come back as events of their own.
    const answered = sfn.Choice.jsonPath(scope, S.waitingAgain);
    const people = (
      name: string,
      payload: Omit<IssueTaskPayload<'IssueHandOff'>, 'previous' | 'agent' | 'mode'>,
    ) => {
      const handed = task(
        name,
        'IssueHandOff',
        {
          previous: sfn.JsonPath.objectAt(HAND_OFF.path),
          agent: sfn.JsonPath.stringAt(HAND_OFF.at('asker')),
          mode: 'people',
          ...payload,
        },
        HAND_OFF.path,
      );
      catchFailure(handed, failed);
      handed.next(answered);
      return handed;
    };
    const takeSilence = people(S.takeSilence, { timedOut: true });
    catchTimeout(waitForAnswer, takeSilence);
    catchFailure(waitForAnswer, failed);
    const drainAnswers = drain(scope, S.drainAnswers, { drainFn: kernel.drain });
    catchFailure(drainAnswers, failed);
    const takeAnswer = people(S.takeAnswer, {
      messages: sfn.JsonPath.listAt(ISSUE_STATE.at('drained.messages')),
    });
    askPeople.next(waitForAnswer);
    waitForAnswer.next(nextTurn(scope, S.nextAnswerTurn)).next(drainAnswers).next(takeAnswer);
    answered.when(sfn.Condition.isPresent(HAND_OFF.at('waitAgain')), waitForAnswer).otherwise(showProgress);

    // --- The hub's routes ---------------------------------------------------------------------
    const attemptsLeft = sfn.Choice.jsonPath(scope, S.attemptsLeft)
      .when(sfn.Condition.numberLessThanEquals(HAND_OFF.at('attempt'), settings.maxAttempts), stages.writer)
      .otherwise(markEndFailed);
    nextStage
      .when(nextIs('triage'), stages.triage)
      .when(nextIs('analyst'), stages.analyst)
      .when(nextIs('writer'), attemptsLeft)
      .when(nextIs('build'), buildStates.build)
      .when(nextIs('build_base'), buildStates.base)
      .when(nextIs('reviewer'), stages.reviewer)
      .when(nextIs('approval'), approval)
      .when(nextIs('committer'), committer)
      .when(nextIs('ask_agent'), whoIsAsked)
      .when(nextIs('ask_people'), askPeople)
      .when(nextIs('stopped'), markStopped)
      .when(nextIs('blocked'), markBlocked)
      .otherwise(markEndFailed);

    // --- The start ----------------------------------------------------------------------------
    const start = task(
      S.start,
      'IssueStart',
      {
        origin: sfn.JsonPath.objectAt(ISSUE_STATE.at('origin')),
        ownerId: sfn.JsonPath.stringAt(ISSUE_STATE.at('ownerId')),
      },
      ISSUE_STATE.at('pipeline'),
    );
    catchFailure(start, failed);
    const begin = sfn.Pass.jsonPath(scope, S.begin, {
      inputPath: ISSUE_STATE.at('pipeline.handOff'),
      resultPath: HAND_OFF.path,
    });
    return start.next(begin).next(showProgress);
  },
});
