import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import type { ApprovalWaitResult } from '../../lambdas/kernel/approval-wait.ts';
import type { IncidentInvestigationSettings } from '../../lambdas/workflows/incident-investigation/config.ts';
import { STEP_DECISION } from '../../lambdas/workflows/incident-investigation/remediation.ts';
import { approvalWait } from '../approval-wait.ts';
import type { ResultSlot } from '../result-paths.ts';
import type { KernelResources } from '../workflow-module.ts';
import type { IncidentFunctionId } from './functions.ts';
import { INCIDENT_STATE } from './incident-state.ts';
import { STEP, THREAD_POST } from './states.ts';

/**
 * The wait for a remediation step's approval: the step's message with Approve and Reject
 * buttons in the incident thread, and the kernel's bounded approval wait (statemachines/
 * approval-wait.ts), woken only by a press of someone `slackAgents.approvals.remediation_step`
 * allows. Leaves an `ApprovalWaitResult` at `result`; the decision itself is read back
 * from the conversation's record by the next task, not taken from the state.
 */
export function stepApproval(
  scope: Construct,
  kernel: KernelResources<IncidentFunctionId, IncidentInvestigationSettings>,
  props: { readonly result: ResultSlot<ApprovalWaitResult>; readonly onFailure: sfn.IChainable },
): sfn.Chain {
  return approvalWait(scope, 'Step approval', {
    label: 'step approval',
    slackPostFn: kernel.slackPost,
    approvalWaitFn: kernel.approvalWait,
    channel: sfn.JsonPath.stringAt(THREAD_POST.at('channel')),
    threadTs: sfn.JsonPath.stringAt(THREAD_POST.at('threadTs')),
    text: sfn.JsonPath.stringAt(STEP.at('text')),
    approval: {
      kind: STEP_DECISION,
      buttons: [
        { decision: 'approve', label: 'Approve and run', style: 'primary' },
        { decision: 'reject', label: 'Reject', style: 'danger' },
      ],
    },
    timeout: Duration.seconds(kernel.settings.approvalWaitSeconds),
    result: props.result,
    onFailure: props.onFailure,
    // One approval per step: the turn does not move between steps, the index does.
    idempotencyKey: sfn.JsonPath.format(
      '{}:approve-step:{}',
      sfn.JsonPath.stringAt(INCIDENT_STATE.at('conversationId')),
      sfn.JsonPath.stringAt(STEP.at('index')),
    ),
  });
}
