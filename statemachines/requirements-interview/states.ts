import { describeDuration } from '../kernel.ts';
import { REQUIREMENTS_STATE } from './requirements-state.ts';

/**
 * `requirements_interview`: `/prd <idea>` opens a thread where the clarification
 * agent interviews the requester (anyone else in the thread may answer too, labelled as a
 * participant) until its confidence reaches the threshold or the turn cap, then the PRD
 * generator writes the PRD and the analysis agent analyses it; both are posted and attached
 * as Markdown. The requester's "cancel" ends it at any point.
 *
 * The state, beyond `ExecutionInput` (conversationId, workflow, channel, ownerId, turn), typed as
 * `RequirementsState` (requirements-state.ts):
 * - `thread`: the `SlackPostOutput` of the post that opened the interview's thread.
 * - `clarificationTurns`: clarification turns so far (`turns_count`).
 * - `clarification`, `prd`, `analysis`: the last turn output of each agent; the PRD generator
 *   and the analysis agent resume the clarification's session, so each reads the interview.
 * - `prdNotes`: what the PRD generator is told (the open unknowns, at the turn cap).
 * - `drained`, `wake`, `timedOut`, `failure`: the kernel's, see kernel.ts.
 *
 * The conversation record keeps the `conversation_states` row under `interview`:
 * `currentAgent`, `confidence`, `turnsInAgent`, `confidenceHistory` (one entry per clarification
 * turn) and `transitions` (every transition with its agent, confidence, turns and time `at`, the
 * ISO time the recording state was entered).
 */
/** The post that opened the interview's thread (`thread` above). */
export const THREAD_POST = REQUIREMENTS_STATE.slot('thread');

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
  tellUnhandled: 'Say messages were not handled',
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
  unhandled:
    ':information_source: This interview ended before I could read the last message(s) sent to it, so they were not handled. Run /prd again if they still matter.',
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
