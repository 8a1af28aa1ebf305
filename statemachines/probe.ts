import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { catchFailure, catchTimeout, drain, nextTurn, waitForPeople } from './kernel.ts';
import { failConversation, setConversationFields } from './kernel-records.ts';
import { slackPost } from './slack-post.ts';
import { defineWorkflow, defineWorkflowModule } from './workflow-module.ts';

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
    return [{ type: 'channel_message', channel }];
  },
  ownerRole: 'reporter',
  // As in seed 000's reporter thread: nobody but the reporter is heard there.
  othersRole: null,
  closeOnIntent: true,
  build(scope, { registerWait, drain: drainFn, slackPost: slackPostFn, table, config }) {
    const markInvestigating = setConversationFields(scope, 'Mark investigating', {
      table,
      phase: 'investigating',
    });
    const turn = nextTurn(scope, 'Next turn');
    const drainMessages = drain(scope, 'Drain messages', { drainFn });
    const reply = slackPost(scope, 'Reply', {
      slackPostFn,
      channel: sfn.JsonPath.stringAt('$.channel'),
      threadTs: sfn.JsonPath.stringAt('$.threadTs'),
      text: sfn.JsonPath.format(
        'probe turn {} got {} message(s)',
        sfn.JsonPath.stringAt('$.turn'),
        sfn.JsonPath.stringAt('$.drained.count'),
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
      channel: sfn.JsonPath.stringAt('$.channel'),
      threadTs: sfn.JsonPath.stringAt('$.threadTs'),
      text: 'probe timed out',
    });
    catchTimeout(waitForReporter, replyTimedOut.next(markResolved));
    waitForReporter.next(turn);

    const failed = failConversation(scope, 'Mark failed', { table });
    for (const task of [
      markInvestigating,
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
      .when(sfn.Condition.booleanEquals('$.drained.closeRequested', true), markResolved)
      .otherwise(finishTurn);

    return markInvestigating.next(turn).next(drainMessages).next(reply).next(closeRequested);
  },
});

/** The probe as a module: the kernel's functions only (its posts are texts). */
export const KERNEL_PROBE_MODULE = defineWorkflowModule({
  name: 'kernel_probe',
  roles: ['reporter'],
  workflows: [KERNEL_PROBE],
});
