import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { PROBE_ANSWER_KINDS } from '../lambdas/workflows/kernel-probe/answer-kinds.ts';
import { KernelProbeSettings } from '../lambdas/workflows/kernel-probe/config.ts';
import { catchFailure, catchTimeout, drain, nextTurn, waitForPeople } from './kernel.ts';
import { KERNEL_PROBE_AGENT } from './kernel-probe/agent-workflow.ts';
import { PROBE_FUNCTIONS, type ProbeFunctionId } from './kernel-probe/functions.ts';
import { failConversation, setConversationFields } from './kernel-records.ts';
import type { KernelState } from './kernel-state.ts';
import { repositoryPreflight } from './module-preflight.ts';
import { stateOf } from './result-paths.ts';
import { type PostedMessage, slackPost } from './slack-post.ts';
import { defineWorkflow, defineWorkflowModule } from './workflow-module.ts';

/** The probe's state: the kernel's, and the post that opened its report thread. */
const PROBE_STATE = stateOf<KernelState & { readonly report: PostedMessage }>();

/**
 * `kernel_probe`: the smallest workflow that exercises every kernel fragment, for the
 * sandbox tests (not deployed: it is not in WORKFLOW_MODULES). Each turn it drains the
 * pending messages and replies with how many it got; then it waits for the reporter, or
 * ends when a close was requested or the wait timed out. A task that fails after its
 * retries marks the conversation failed and fails the execution.
 */
/** Length of the probe's "Finish turn" pause: 3 s under SANDBOX_TIME_SCALE=0.001. */
export const PROBE_FINISH_TURN_SECONDS = 3_000;

export const KERNEL_PROBE = defineWorkflow({
  name: 'kernel_probe',
  triggers: (config) => {
    const channel = config.channels.probe;
    if (channel === undefined) {
      throw new Error(
        'the kernel_probe workflow needs a `channels.probe` channel id in the slackAgents config',
      );
    }
    // Triggers from outside Slack, so the sandbox tests can drive the Router's GitHub and alert
    // paths end to end (the repository and label are those of @octokit/webhooks-examples).
    return [
      { type: 'channel_message', channel },
      { type: 'github_issue_labeled', repository: 'Codertocat/Hello-World', label: 'bug' },
      { type: 'github_pull_request_review', repository: 'Codertocat/Hello-World' },
      { type: 'alert', source: 'cloudwatch', namePrefixes: ['probe-'] },
      { type: 'alert', source: 'pagerduty' },
    ];
  },
  ownerRole: 'reporter',
  // As in reporter thread: nobody but the reporter is heard there.
  othersRole: null,
  closeOnIntent: true,
  build(scope, { registerWait, drain: drainFn, slackPost: slackPostFn, table, config }) {
    const markInvestigating = setConversationFields(scope, 'Mark investigating', {
      table,
      phase: 'investigating',
    });
    const turn = nextTurn(scope, 'Next turn');
    const drainMessages = drain(scope, 'Drain messages', { drainFn });
    // Where the probe talks: its own Slack thread, or, for a conversation from GitHub or an
    // alert, a thread it opens in the probe channel.
    const reportInThread = new sfn.Pass(scope, 'Report in its thread', {
      parameters: {
        channel: sfn.JsonPath.stringAt(PROBE_STATE.at('channel')),
        threadTs: sfn.JsonPath.stringAt(PROBE_STATE.at('threadTs')),
      },
      resultPath: PROBE_STATE.at('report'),
    });
    const openReportThread = slackPost(scope, 'Open report thread', {
      slackPostFn,
      channel: config.channels.probe ?? '',
      text: sfn.JsonPath.format(
        'probe conversation from {}',
        sfn.JsonPath.stringAt(PROBE_STATE.at('origin.kind')),
      ),
      resultPath: PROBE_STATE.at('report'),
    });
    const startedOutsideSlack = sfn.Choice.jsonPath(scope, 'Started outside Slack?')
      .when(sfn.Condition.isPresent(PROBE_STATE.at('origin')), openReportThread)
      .otherwise(reportInThread);
    const reply = slackPost(scope, 'Reply', {
      slackPostFn,
      channel: sfn.JsonPath.stringAt(PROBE_STATE.at('report.channel')),
      threadTs: sfn.JsonPath.stringAt(PROBE_STATE.at('report.threadTs')),
      text: sfn.JsonPath.format(
        'probe turn {} got {} message(s)',
        sfn.JsonPath.stringAt(PROBE_STATE.at('turn')),
        sfn.JsonPath.stringAt(PROBE_STATE.at('drained.count')),
      ),
    });
    const markResolved = setConversationFields(scope, 'Mark resolved', { table, status: 'resolved' });
    markResolved.next(new sfn.Succeed(scope, 'Done'));

    const waitForReporter = waitForPeople(scope, 'Wait for reporter', {
      registerWait,
      accepts: ['reporter'],
      phase: 'awaiting_reporter',
      timeout: Duration.seconds(config.reporterWaitSeconds),
    });
    const replyTimedOut = slackPost(scope, 'Reply timed out', {
      slackPostFn,
      channel: sfn.JsonPath.stringAt(PROBE_STATE.at('report.channel')),
      threadTs: sfn.JsonPath.stringAt(PROBE_STATE.at('report.threadTs')),
      text: 'probe timed out',
    });
    catchTimeout(waitForReporter, replyTimedOut.next(markResolved));
    waitForReporter.next(turn);

    const failed = failConversation(scope, 'Mark failed', { table });
    for (const task of [
      markInvestigating,
      openReportThread,
      drainMessages,
      reply,
      waitForReporter,
      replyTimedOut,
      markResolved,
    ]) {
      catchFailure(task, failed);
    }

    // Stands for the rest of an agent's turn after it has posted (saving its transcript...):
    // a window in which people may answer before the wait opens, as in production.
    const finishTurn = new sfn.Wait(scope, 'Finish turn', {
      time: sfn.WaitTime.duration(Duration.seconds(PROBE_FINISH_TURN_SECONDS)),
    });
    finishTurn.next(waitForReporter);
    const closeRequested = sfn.Choice.jsonPath(scope, 'Close requested?')
      .when(sfn.Condition.booleanEquals(PROBE_STATE.at('drained.closeRequested'), true), markResolved)
      .otherwise(finishTurn);

    openReportThread.next(turn);
    reportInThread.next(turn);
    markInvestigating.next(startedOutsideSlack);
    turn.next(drainMessages).next(reply).next(closeRequested);
    return markInvestigating;
  },
});

/**
 * The probe as a module: the probe itself (the kernel's functions only, its posts are texts),
 * and its agent (`kernel_probe_agent`, statemachines/kernel-probe/), which declares everything a
 * workflow brings of its own: a configuration section, an agent turn and a SlackPost with
 * templates, a feedback answer kind, a slash command and what its deploy needs.
 */
export const KERNEL_PROBE_MODULE = defineWorkflowModule<ProbeFunctionId, KernelProbeSettings>({
  name: 'kernel_probe',
  settings: { key: 'kernelProbe', schema: KernelProbeSettings },
  roles: ['reporter'],
  functions: PROBE_FUNCTIONS,
  answerKinds: PROBE_ANSWER_KINDS,
  preflight: (settings) => ({
    ...repositoryPreflight(settings.repository),
    steps: [
      `Probe: run ${settings.command} <question> in a channel the bot is in; its agent answers in a thread`,
    ],
  }),
  workflows: [KERNEL_PROBE, KERNEL_PROBE_AGENT],
});
