import { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import type { AgentLimits } from '../../lambdas/agents/limits.ts';
import type { ApprovalRequest } from '../../lambdas/kernel/approvals.ts';
import type { BugInvestigationSettings } from '../../lambdas/workflows/bug-investigation/config.ts';
import { FIX_DECISION, REQUEST_FIX } from '../../lambdas/workflows/bug-investigation/fix/fix-request.ts';
import type { handler as CheckFixRequest } from '../../lambdas/workflows/bug-investigation/handlers/check-fix-request.ts';
import type { handler as OpenPullRequest } from '../../lambdas/workflows/bug-investigation/handlers/open-pull-request.ts';
import { agentTurn } from '../agent-turn.ts';
import { catchFailure, DRAINED, FAILURE } from '../kernel.ts';
import { lambdaTask, type TaskInputOf } from '../lambda-task.ts';
import { catchModelStop, modelRefused } from '../model-stops.ts';
import { slackPost } from '../slack-post.ts';
import type { KernelResources } from '../workflow-module.ts';
import { BUG_STATE, FIX } from './bug-state.ts';
import { FIX_BUILD_STATES, fixBuildStates } from './fix-build.ts';
import { protectedGateStates } from './fix-guards.ts';
import type { BugFunctionId } from './functions.ts';
import { SUMMARY_POST, TURN_RESULT } from './states.ts';
import { fixerModelStop, type ModelStop } from './stops.ts';

/**
 * The fix path: a developer asked for a fix in the findings thread. The workflow
 * checks in code who asked, the fixer agent changes the conversation's work branch with the
 * code tools, CodeBuild runs the repository's checks on it, and the workflow (not the model)
 * opens a draft pull request and posts its link in both threads. At most `maxFixAttempts`
 * build-and-fix rounds, each failing build's output fed back to the fixer; when no pull
 * request can be opened, both threads say why. Each build runs the checks the configuration or
 * the base commit defines, never the fix branch; a green fix whose diff touches a protected path
 * waits for an approver or is refused (fix-guards.ts, docs/security-code-changes.md).
 *
 * Its state, under `$.fix`: `attempt` (builds started), `notes` (what the fixer's next turn is
 * told), `turn` (the fixer's last `BugFixOutput`), `checks` ("Define checks"' answer), `builds`
 * (each checks build's Task output or its Catch's `{ Error, Cause }`), `build` (`BuildResults`) and
 * `pullRequest` (`PullRequestOutcome`); `$.fixRequest` is the check's `FixRequestCheck`.
 */

/** State names, as they read in the execution graph. */
export const FIX_PATH_STATES = {
  checkFixRequest: 'Check fix request',
  developerAsked: 'Did a developer ask?',
  canTellWhyNoFix: 'Can say why no fix?',
  tellWhyNoFix: 'Say why no fix',
  startFix: 'Start fix',
  writeFix: 'Write fix',
  rewriteFix: 'Write fix again',
  noteFailedFix: 'Note failed fix attempt',
  fixWritten: 'Fix written?',
  ...FIX_BUILD_STATES,
  openPullRequest: 'Open pull request',
  notePullRequestFailure: 'Note pull request failure',
  noteModelRefused: 'Note the model refused the fix',
  tellDevelopersModelStop: 'Tell developers the model stopped the fix',
  pullRequestOpened: 'Pull request opened?',
  postPullRequestToDevelopers: 'Post pull request in findings thread',
  postPullRequestToReporter: "Post pull request in reporter's thread",
  explainToDevelopers: 'Say why no pull request in findings thread',
  explainToReporter: "Say why no pull request in reporter's thread",
} as const;

/**
 * The findings' "Fix it" button: a developer (`slackAgents.approvals.request_fix`) presses it
 * to have the fix made. The press is decided like any approval (the button open now, once, by
 * a holder of the role; anyone else is told why with an ephemeral) and handed to the
 * conversation as that developer's message, which wakes the wait for developers.
 */
export const FIX_IT_APPROVAL = {
  kind: REQUEST_FIX,
  buttons: [{ decision: FIX_DECISION, label: 'Fix it', style: 'primary' }],
  deliverAsMessage: true,
} as const satisfies ApprovalRequest;

/** The profile of the fixer's turns (lambdas/workflows/bug-investigation/profiles/bug-fixer.ts). */
export const BUG_FIXER_PROFILE = 'bug_fixer';

/**
 * The bug's work branch, `agents/bug-<short id>` (`bugWorkBranch`), as "Check fix request"
 * put it in the state: the fixer's tools write to it, the build checks it out, the pull
 * request proposes it.
 */
const WORK_BRANCH = BUG_STATE.at('fixRequest.workBranch');

export interface FixPathProps {
  readonly repository: string;
  readonly githubBaseUrl: string;
  readonly settings: BugInvestigationSettings;
  readonly agentTurnFn: IFunction;
  /** The state machine's retries of an unavailable model (`agentLimits.modelRetry`). */
  readonly modelRetry: AgentLimits['modelRetry'];
  readonly slackPostFn: IFunction;
  readonly checkFixRequestFn: IFunction;
  readonly readBuildResultsFn: IFunction;
  readonly openPullRequestFn: IFunction;
  /** "Define checks" before each build (fix-guards.ts). */
  readonly defineChecksFn: IFunction;
  /** "Check protected changes" before the pull request (fix-guards.ts). */
  readonly checkProtectedChangesFn: IFunction;
  /** The kernel's ApprovalWait, for a fix touching protected paths. */
  readonly approvalWaitFn: IFunction;
  /** How long a protected change waits for an approver. */
  readonly approvalTimeout: Duration;
  /** Where a request nobody may make goes on (the usual findings path). */
  readonly notAllowed: sfn.IChainable;
  /** Where the path ends, with a pull request or with the reason in both threads. */
  readonly done: sfn.IChainable;
  /** Where the investigator's model stop goes on (a fixer's, after telling the developers: stops.ts). */
  readonly modelStop: ModelStop;
  readonly reporterThread: { channel: string; threadTs: string };
  readonly summaryThread: { channel: string; threadTs: string };
}

/**
 * The fix path's first state with the module's functions and settings, or `notAllowed` when
 * no repository is configured (a fix request is then taken as findings).
 * `notAllowed`: where a request nobody may make goes on; `done`: where the path ends.
 */
export function fixPathOr(
  scope: Construct,
  kernel: KernelResources<BugFunctionId, BugInvestigationSettings>,
  notAllowed: sfn.IChainable,
  done: sfn.IChainable,
  modelStop: ModelStop,
): sfn.IChainable {
  const { settings, functions } = kernel;
  if (settings.repository === undefined) return notAllowed;
  return buildFixPath(scope, {
    notAllowed,
    done,
    modelStop,
    reporterThread: {
      channel: sfn.JsonPath.stringAt(BUG_STATE.at('channel')),
      threadTs: sfn.JsonPath.stringAt(BUG_STATE.at('threadTs')),
    },
    summaryThread: {
      channel: sfn.JsonPath.stringAt(SUMMARY_POST.at('channel')),
      threadTs: sfn.JsonPath.stringAt(SUMMARY_POST.at('threadTs')),
    },
    repository: settings.repository,
    githubBaseUrl: kernel.config.github.baseUrl,
    settings,
    agentTurnFn: functions.BugInvestigationAgentTurn,
    modelRetry: kernel.config.agentLimits.modelRetry,
    slackPostFn: functions.BugInvestigationSlackPost,
    checkFixRequestFn: functions.CheckFixRequest,
    readBuildResultsFn: functions.ReadBuildResults,
    openPullRequestFn: functions.OpenPullRequest,
    defineChecksFn: functions.DefineChecks,
    checkProtectedChangesFn: functions.CheckProtectedChanges,
    approvalWaitFn: kernel.approvalWait,
    approvalTimeout: Duration.seconds(kernel.config.developerWaitSeconds),
  });
}

/** Builds the fix path; returns its first state. */
export function buildFixPath(scope: Construct, props: FixPathProps): sfn.IChainable {
  const S = FIX_PATH_STATES;
  const { settings } = props;
  const conversationId = sfn.JsonPath.stringAt(BUG_STATE.at('conversationId'));
  const outcome = {
    name: 'bug_fix_outcome',
    data: { fix: sfn.JsonPath.objectAt(FIX.path), maxAttempts: settings.maxFixAttempts },
  };

  // --- The end: both threads hear the outcome ------------------------------------------------
  const post = (stateName: string, thread: { channel: string; threadTs: string }) =>
    slackPost(scope, stateName, { slackPostFn: props.slackPostFn, ...thread, template: outcome });
  const toDevelopers = post(S.postPullRequestToDevelopers, props.summaryThread);
  const toReporter = post(S.postPullRequestToReporter, props.reporterThread);
  const whyToDevelopers = post(S.explainToDevelopers, props.summaryThread);
  const whyToReporter = post(S.explainToReporter, props.reporterThread);
  // A thread that cannot be told must not keep the other from hearing it, nor end the conversation.
  catchFailure(toDevelopers, toReporter);
  catchFailure(toReporter, props.done);
  catchFailure(whyToDevelopers, whyToReporter);
  catchFailure(whyToReporter, props.done);
  toDevelopers.next(toReporter).next(props.done);
  whyToDevelopers.next(whyToReporter).next(props.done);

  // --- The pull request ----------------------------------------------------------------------
  const openPullRequest = lambdaTask<TaskInputOf<typeof OpenPullRequest>>(
    scope,
    S.openPullRequest,
    props.openPullRequestFn,
    {
      conversationId,
      branch: sfn.JsonPath.stringAt(WORK_BRANCH),
      findings: { summary: sfn.JsonPath.stringAt(TURN_RESULT.at('summary')) },
      fixSummary: sfn.JsonPath.stringAt(FIX.at('turn.summary')),
      build: sfn.JsonPath.objectAt(FIX.at('build')),
      requestedBy: sfn.JsonPath.stringAt(BUG_STATE.at('fixRequest.requestedBy')),
      // The head "Check protected changes" judged: a branch that moved since is not proposed.
      checkedHead: sfn.JsonPath.stringAt(FIX.at('protected.headSha')),
      thread: {
        channel: sfn.JsonPath.stringAt(SUMMARY_POST.at('channel')),
        threadTs: sfn.JsonPath.stringAt(SUMMARY_POST.at('threadTs')),
      },
    },
    FIX.at('pullRequest'),
  );
  const notePullRequestFailure = sfn.Pass.jsonPath(scope, S.notePullRequestFailure, {
    parameters: {
      opened: false,
      reason: sfn.JsonPath.format(
        'Opening the pull request failed: {}',
        sfn.JsonPath.stringAt(FAILURE.at('Error')),
      ),
    },
    resultPath: FIX.at('pullRequest'),
  }).next(whyToDevelopers);
  catchFailure(openPullRequest, notePullRequestFailure);
  const pullRequestOpened = sfn.Choice.jsonPath(scope, S.pullRequestOpened)
    .when(sfn.Condition.booleanEquals(FIX.at('pullRequest.opened'), true), toDevelopers)
    .otherwise(whyToDevelopers);
  openPullRequest.next(pullRequestOpened);
  // The fix branch's real diff against the protected paths decides whether it may be proposed.
  const protectedGate = protectedGateStates(scope, {
    checkFn: props.checkProtectedChangesFn,
    slackPostFn: props.slackPostFn,
    approvalWaitFn: props.approvalWaitFn,
    branchPath: WORK_BRANCH,
    handling: settings.protectedChanges,
    thread: props.summaryThread,
    timeout: props.approvalTimeout,
    open: openPullRequest,
    explain: whyToDevelopers,
  });

  // --- The fixer's turns ---------------------------------------------------------------------
  const turnProps = {
    agentTurnFn: props.agentTurnFn,
    modelRetry: props.modelRetry,
    profile: BUG_FIXER_PROFILE,
    statePath: BUG_STATE.at('turnContext.state'),
    notesPath: FIX.at('notes'),
    resultPath: FIX.at('turn'),
    // Set here, never by the model: the code tools write to this branch and no other.
    toolContext: { workBranch: sfn.JsonPath.stringAt(WORK_BRANCH) },
  } as const;
  const writeFix = agentTurn(scope, S.writeFix, { ...turnProps, stateName: S.writeFix, mode: 'initial' });
  const rewriteFix = agentTurn(scope, S.rewriteFix, {
    ...turnProps,
    stateName: S.rewriteFix,
    mode: 'continuation',
    sessionIdPath: FIX.at('turn.sessionId'),
  });
  const noteFailedFix = sfn.Pass.jsonPath(scope, S.noteFailedFix, {
    parameters: {
      action: 'cannot_fix',
      sessionId: 'none',
      summary: sfn.JsonPath.format('The fix attempt failed: {}', sfn.JsonPath.stringAt(FAILURE.at('Error'))),
    },
    resultPath: FIX.at('turn'),
  }).next(whyToDevelopers);
  const names = { tell: S.tellDevelopersModelStop, refused: S.noteModelRefused };
  const modelStop = fixerModelStop(scope, { ...props, thread: props.summaryThread, names });
  for (const fixTurn of [writeFix, rewriteFix]) {
    catchModelStop(fixTurn, modelStop.caught);
    catchFailure(fixTurn, noteFailedFix);
  }

  // --- The build -----------------------------------------------------------------------------
  const prepareBuild = fixBuildStates(scope, {
    repository: props.repository,
    githubBaseUrl: props.githubBaseUrl,
    settings,
    defineChecksFn: props.defineChecksFn,
    readBuildResultsFn: props.readBuildResultsFn,
    branchPath: WORK_BRANCH,
    passed: protectedGate,
    again: rewriteFix,
    explain: whyToDevelopers,
  });

  const fixWritten = sfn.Choice.jsonPath(scope, S.fixWritten)
    .when(modelRefused(FIX.at('turn')), modelStop.refused)
    .when(sfn.Condition.stringEquals(FIX.at('turn.action'), 'fix_written'), prepareBuild)
    .otherwise(whyToDevelopers);
  writeFix.next(fixWritten);
  rewriteFix.next(fixWritten);

  // --- The start: who asked? -----------------------------------------------------------------
  const startFix = sfn.Pass.jsonPath(scope, S.startFix, {
    parameters: {
      attempt: 0,
      notes: sfn.JsonPath.array(
        sfn.JsonPath.format(
          'The findings of the investigation, which the developer asked you to fix: {}',
          sfn.JsonPath.stringAt(TURN_RESULT.at('summary')),
        ),
      ),
      build: { passed: false, status: 'NOT_STARTED', summary: 'No build ran.' },
      pullRequest: { opened: false },
    },
    resultPath: FIX.path,
  }).next(writeFix);
  const checkFixRequest = lambdaTask<TaskInputOf<typeof CheckFixRequest>>(
    scope,
    S.checkFixRequest,
    props.checkFixRequestFn,
    {
      // The cited request is in the result (`fixRequest`).
      conversationId,
      turn: sfn.JsonPath.numberAt(BUG_STATE.at('turn')),
      result: sfn.JsonPath.objectAt(TURN_RESULT.path),
      messages: sfn.JsonPath.listAt(DRAINED.at('messages')),
    },
    BUG_STATE.at('fixRequest'),
  );
  // Without the check nobody gets a fix: the request is taken as context, as from anyone else.
  catchFailure(checkFixRequest, props.notAllowed);
  // A refused request is told where it was made (or in the findings or reporter's thread).
  const tellWhyNoFix = slackPost(scope, S.tellWhyNoFix, {
    slackPostFn: props.slackPostFn,
    channel: sfn.JsonPath.stringAt(BUG_STATE.at('fixRequest.notice.channel')),
    threadTs: sfn.JsonPath.stringAt(BUG_STATE.at('fixRequest.notice.threadTs')),
    text: sfn.JsonPath.stringAt(BUG_STATE.at('fixRequest.reason')),
  });
  catchFailure(tellWhyNoFix, props.notAllowed);
  tellWhyNoFix.next(props.notAllowed);
  const canTellWhyNoFix = sfn.Choice.jsonPath(scope, S.canTellWhyNoFix)
    .when(sfn.Condition.isPresent(BUG_STATE.at('fixRequest.notice')), tellWhyNoFix)
    .otherwise(props.notAllowed);
  const developerAsked = sfn.Choice.jsonPath(scope, S.developerAsked)
    .when(sfn.Condition.booleanEquals(BUG_STATE.at('fixRequest.allowed'), true), startFix)
    .otherwise(canTellWhyNoFix);
  return checkFixRequest.next(developerAsked);
}
