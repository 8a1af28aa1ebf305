import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { approvalWait } from './approval-wait.ts';
import { catchFailure } from './kernel.ts';
import { failConversation, setConversationFields } from './kernel-records.ts';
import { slackPost } from './slack-post.ts';
import { defineWorkflow, defineWorkflowModule } from './workflow-module.ts';

/**
 * `kernel_approval_probe`: the smallest workflow around an approval wait, for the sandbox
 * tests (not deployed: it is not in WORKFLOW_MODULES). A top-level message in the
 * `approvalProbe` channel gets Approve/Reject buttons in its thread, which approvers (the
 * developers' group by default) may press; the workflow waits for the decision, bounded, and
 * says in the thread what it got: the decision, or that nobody decided in time.
 */

/** The decision kind of the probe's buttons. */
export const PROBE_DECISION = 'approve_probe';

/** How long the probe waits: 10 s under SANDBOX_TIME_SCALE=0.001. */
export const PROBE_APPROVAL_SECONDS = 10_000;

export const KERNEL_APPROVAL_PROBE = defineWorkflow({
  name: 'kernel_approval_probe',
  triggers: (config) => {
    const channel = config.channels.approvalProbe;
    if (channel === undefined) {
      throw new Error('the kernel_approval_probe workflow needs a `channels.approvalProbe` channel id');
    }
    return [{ type: 'channel_message', channel }];
  },
  ownerRole: 'reporter',
  othersRole: null,
  closeOnIntent: true,
  build(scope, { slackPost: slackPostFn, approvalWait: approvalWaitFn, table }) {
    const failed = failConversation(scope, 'Mark failed', { table });
    const markWaiting = setConversationFields(scope, 'Mark awaiting approval', {
      table,
      phase: 'awaiting_approval',
    });
    const ask = approvalWait(scope, 'Ask', {
      label: 'probe approval',
      slackPostFn,
      approvalWaitFn,
      channel: sfn.JsonPath.stringAt('$.channel'),
      threadTs: sfn.JsonPath.stringAt('$.threadTs'),
      text: 'May the probe go on?',
      approval: {
        kind: PROBE_DECISION,
        buttons: [
          { decision: 'approve', label: 'Approve', style: 'primary' },
          { decision: 'reject', label: 'Reject', style: 'danger' },
        ],
      },
      timeout: Duration.seconds(PROBE_APPROVAL_SECONDS),
      resultPath: '$.approval',
      onFailure: failed,
    });
    const say = (id: string, text: string) =>
      slackPost(scope, id, {
        slackPostFn,
        channel: sfn.JsonPath.stringAt('$.channel'),
        threadTs: sfn.JsonPath.stringAt('$.threadTs'),
        text,
      });
    const sayDecided = say(
      'Say decision',
      sfn.JsonPath.format(
        'probe decision: {} by {}',
        sfn.JsonPath.stringAt('$.approval.decision'),
        sfn.JsonPath.stringAt('$.approval.by'),
      ),
    );
    const sayExpired = say(
      'Say expired',
      sfn.JsonPath.format('probe approval expired at {}', sfn.JsonPath.stringAt('$.approval.at')),
    );
    const markResolved = setConversationFields(scope, 'Mark resolved', { table, status: 'resolved' });
    for (const task of [markWaiting, sayDecided, sayExpired, markResolved]) catchFailure(task, failed);
    markResolved.next(new sfn.Succeed(scope, 'Done'));
    sayDecided.next(markResolved);
    sayExpired.next(markResolved);

    const outcome = sfn.Choice.jsonPath(scope, 'Decided?')
      .when(sfn.Condition.stringEquals('$.approval.outcome', 'decided'), sayDecided)
      .otherwise(sayExpired);
    markWaiting.next(ask).next(outcome);
    return markWaiting;
  },
});

/** The approval probe as a module: approvers are the sandbox's developers' group by default. */
export const KERNEL_APPROVAL_PROBE_MODULE = defineWorkflowModule({
  name: 'kernel_approval_probe',
  roles: ['reporter', 'approver'],
  people: { approver: { groups: ['S_DEVELOPERS'] } },
  decisions: { [PROBE_DECISION]: ['approver'] },
  workflows: [KERNEL_APPROVAL_PROBE],
});
