import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import type { BugAction, BugTurnState } from '../../lambdas/workflows/bug-investigation/contract.ts';
import { describeDuration } from '../kernel.ts';
import { BUG_STATE, type TurnContext } from './bug-state.ts';

/**
 * `bug_investigation`: a top-level message in the bug-reports channel starts an
 * investigation. The bot acknowledges it, the bug investigator agent investigates turn by
 * turn, and the agent's `action` routes the conversation: ask the reporter, post findings for
 * developers, escalate to the on-call group (with SlaTracking as a child), resolve, or run
 * another turn. The reporter's close intent ends it at any point.
 *
 * The state, beyond `ExecutionInput` (conversationId, workflow, channel, threadTs, ownerId, turn),
 * typed as `BugState` (bug-state.ts):
 * - `turnContext`: `{ state, notes, followUp }`, what the next agent turn is told: the
 *   `TurnState` the conversation comes from (`investigating`, `awaiting_reporter`,
 *   `awaiting_dev`), notes such as "the reporter did not answer", and whether the turn
 *   follows up on developers' answers (announced in the summary thread). Replaced whole
 *   after every routed action, so a note or an announcement is given once.
 * - `result`: the last turn's `BugTurnOutput`; its `sessionId` is the session the next turn
 *   resumes. A turn that failed leaves a stand-in `escalate` result (keeping the session).
 * - `threads`: `{ summary?, escalation? }`, the `SlackPostOutput` of the findings post (the
 *   summary thread developers answer in) and of the last escalation post.
 * - `handoverAtTurn`: the turn at which this execution hands over to a fresh one.
 * - `drained`, `wake`, `timedOut`, `failure`: the kernel's, see kernel.ts.
 * - `handedOverFrom`: on an execution that continues a handed-over conversation, the ARN of
 *   the one before.
 */

/** State names, as an auditor reads them in the execution graph. */
export const BUG_INVESTIGATION_STATES = {
  prepare: 'Prepare conversation',
  resuming: 'Resuming a handover?',
  acknowledgeReport: 'Acknowledge report',
  timeToHandOver: 'Time to hand over?',
  handOver: 'Hand over to a fresh execution',
  recordHandover: 'Record handover',
  handedOver: 'Handed over',
  nextTurn: 'Next turn',
  drain: 'Drain messages',
  closeRequested: 'Close requested?',
  announceFollowUp: 'Announce follow-up',
  sessionToResume: 'Session to resume?',
  investigate: 'Investigate',
  continueInvestigation: 'Continue investigation',
  noteFailedInvestigation: 'Note failed investigation',
  noteFailedContinuation: 'Note failed continuation',
  routeOnAction: 'Route on action',
  askReporter: 'Ask reporter',
  awaitingReporter: 'Awaiting reporter',
  waitForReporter: 'Wait for reporter',
  noteReporterSilence: 'Note reporter silence',
  keepInvestigating: 'Keep investigating',
  stoppedByPerson: 'Stopped: back to the wait',
  summaryThreadOpen: 'Summary thread open?',
  postFindings: 'Post findings',
  postUpdatedFindings: 'Post updated findings',
  routeOnConclusion: 'Route on conclusion',
  escalate: 'Escalate to on-call',
  startSlaTracking: 'Start SLA tracking',
  awaitingDevelopers: 'Awaiting developers',
  waitForDevelopers: 'Wait for developers',
  acknowledgeClose: 'Acknowledge close',
  markResolved: 'Mark resolved',
  closingTurn: 'Closing turn',
  cleanUp: 'Clean up',
  done: 'Done',
  cleanUpFailed: 'Clean-up failed',
  markFailed: 'Mark failed',
  failed: 'Failed',
  tellReporterStopped: 'Tell reporter the agent stopped',
  tellFailure: 'Tell reporter it failed',
  noteModelRefused: 'Note the model refused',
  tellModelStop: 'Tell reporter the model stopped it',
  tellUnhandled: 'Say messages were not handled',
  tellFindingsPosted: 'Tell reporter findings were posted',
  tellResolved: 'Tell reporter it is resolved',
  tellResolvedNoFollowUp: 'Tell reporter it is resolved without follow-up',
  developersToTell: 'Findings thread to tell?',
  announceClose: 'Announce close to developers',
} as const;

/** The bot's fixed texts. */
export const BUG_INVESTIGATION_TEXTS = {
  acknowledgeReport: ":eyes: Thanks! I'm looking into this.",
  followUp: ':mag: Follow-up investigation started...',
  acknowledgeClose: ':white_check_mark: Closing this, thanks.',
  resolved:
    ":white_check_mark: I've marked this report resolved: my conclusion is in the findings I posted for the developers. If it happens again, post a new report.",
  /** `{}` is the reporter's user id. */
  closedForDevelopers: ':no_entry_sign: <@{}> closed this report, so the investigation has ended.',
  unhandled:
    ':information_source: This was closed before I could read the last message(s) sent to it, so they were not handled. Post them again in a new report if they still matter.',
  failed:
    ':x: Something went wrong on my side and I could not finish looking into this. Please ask in #bug-summaries or report it again.',
} as const;

/** The agent profile of every turn. */
export const BUG_INVESTIGATOR_PROFILE = 'bug_investigator';

/** The note the turn after an unanswered question gets. */
export function reporterSilenceNote(waitSeconds: number): string {
  return `The reporter did not answer your clarification question within ${describeDuration(waitSeconds)}. Continue the investigation with what you have, and do not ask the same question again.`;
}

/** The last turn's output (`result`, see above). */
export const TURN_RESULT = BUG_STATE.slot('result');
/** The findings post, whose thread developers answer in (`threads.summary`). */
export const SUMMARY_POST = BUG_STATE.slot('threads').slot('summary');
/** The last escalation post (`threads.escalation`). */
export const ESCALATION_POST = BUG_STATE.slot('threads').slot('escalation');

/** A Choice condition: the last turn's action is `action`. */
export function actionIs(action: BugAction): sfn.Condition {
  return sfn.Condition.stringEquals(TURN_RESULT.at('action'), action);
}

/** A turn context in `state`, with no notes and no follow-up unless given. */
export function turnContext(
  state: BugTurnState,
  extra: Partial<Omit<TurnContext, 'state'>> = {},
): TurnContext {
  return { state, notes: [], followUp: false, ...extra };
}

/** Sets what the turn after a wait is told, before the wait. */
export function awaitingPass(scope: Construct, stateName: string, context: TurnContext): sfn.Pass {
  return sfn.Pass.jsonPath(scope, stateName, {
    result: sfn.Result.fromObject(context),
    resultPath: BUG_STATE.at('turnContext'),
  });
}

/** Fields a fresh execution needs to continue the conversation (everything else is per turn). */
export const BUG_CARRIED_FIELDS = [
  'conversationId',
  'workflow',
  'channel',
  'threadTs',
  'ownerId',
  'turn',
  'turnContext',
  'threads',
  'result',
] as const;
