import type { ModelAgent } from '../../lambdas/workflows/issue-pipeline/state.ts';
import { ISSUE_STATE } from './issue-state.ts';

/**
 * The issue pipeline's state names, as the execution graph shows them: its agents by their
 * names (Triage, Analyst, Writer, Build, Reviewer, Committer).
 *
 * The execution's state, beyond `ExecutionInput` (conversationId, channel, threadTs, origin, turn),
 * typed as `IssueState` (issue-state.ts):
 * - `pipeline`: `StartOutput` (the issue's number and URL, the work branch, the base commit,
 *   one session id per agent);
 * - `handOff`: the last `HandOff` (where next, the attempt, the next agent's notes, who asked);
 * - `turnOutput`: the last agent turn's `IssueTurnOutput`, read by the hand-off;
 * - `build`: "Define checks"' answer (`checks`) and each checks build's outcome (`builds`);
 * - `progress`: where the progress message is; `drained`, `wake`, `timedOut`, `failure`: the kernel's.
 */
/** The last hand-off (`handOff` above): IssueHandOff's result, which "Judge build" answers in too. */
export const HAND_OFF = ISSUE_STATE.slot('handOff');
/** Where the progress message is (`progress` above): IssueProgress's result. */
export const PROGRESS = ISSUE_STATE.slot('progress');

export const ISSUE_PIPELINE_STATES = {
  start: 'Start pipeline',
  begin: 'Begin with triage',
  markStage: 'Mark stage',
  showProgress: 'Show progress',
  nextStage: 'Next stage?',
  attemptsLeft: 'Attempts left?',
  prepareBuild: 'Prepare build',
  build: 'Build',
  judgeBuild: 'Judge build',
  afterBuild: 'Base commit needed?',
  prepareBaseBuild: 'Prepare base build',
  defineChecks: 'Define checks',
  defineBaseChecks: 'Define base checks',
  buildBase: 'Build base commit',
  judgeBaseBuild: 'Judge build against base',
  takeApproval: 'Take approval',
  committer: 'Committer',
  committed: 'Pull request opened?',
  whoIsAsked: 'Who is asked?',
  waitingAgain: 'Answered by someone who may?',
  askPeople: 'Ask people',
  waitForPeople: 'Wait for people',
  drainAnswers: 'Drain answers',
  nextAnswerTurn: 'Next answer turn',
  takeAnswer: "Take people's answer",
  noteSilence: 'Note no answer',
  takeSilence: 'Take silence',
  finalProgress: 'Show outcome',
  markDone: 'Mark done',
  markStopped: 'Mark stopped',
  markBlocked: 'Mark blocked',
  markFailed: 'Mark failed',
  markEndFailed: 'Mark pipeline failed',
  failed: 'Failed',
  noteFailure: 'Note failure',
  tellFailure: 'Tell people it failed',
  tellIssueFailure: 'Tell the issue it failed',
} as const;

const TITLE: Record<ModelAgent, string> = {
  triage: 'Triage',
  analyst: 'Analyst',
  writer: 'Writer',
  reviewer: 'Reviewer',
};

/** The states of one agent's own turn, and of its answer to another agent's question. */
export function agentStates(agent: ModelAgent) {
  const title = TITLE[agent];
  return {
    nextTurn: `Next ${agent} turn`,
    drain: `Drain for ${agent}`,
    turn: title,
    noteFailedTurn: `Note failed ${agent} turn`,
    handOff: `Hand off from ${agent}`,
    answerNextTurn: `Next ${agent} answer turn`,
    answerDrain: `Drain for ${agent} answer`,
    answer: `${title} answers`,
    noteFailedAnswer: `Note failed ${agent} answer`,
    takeAnswer: `Take ${agent}'s answer`,
    modelRefused: (answering: boolean) => `Model refused ${agent}${answering ? ' answer' : ''}?`,
    noteModelRefused: (answering: boolean) => `Note the model refused ${agent}${answering ? ' answer' : ''}`,
  };
}

/**
 * What the developers' channel is told when the pipeline's own thread and issue could not be
 * (`States.Format`: `{}` is the error's name); the execution, named after the conversation, has the rest.
 */
export const FAILURE_TEXT =
  ':warning: An issue pipeline stopped on an internal error after its retries ({}), and its issue could not be told; nothing more will happen. A developer needs to look at it in the execution.';

/** The decision kind of the sensitive-paths approval (who may press: `slackAgents.approvals`). */
export const SENSITIVE_CHANGE_DECISION = 'approve_sensitive_change';
