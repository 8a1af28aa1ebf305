import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import type { IncidentInvestigationSettings } from '../../lambdas/workflows/incident-investigation/config.ts';
import type { KernelResources } from '../workflow-module.ts';
import type { IncidentFunctionId } from './functions.ts';

/**
 * SEAM (until the kernel's approval wait, statemachines/approval-wait.ts, is merged): the wait
 * for a remediation step's approval. It must leave an `ApprovalWaitResult` at `resultPath`
 * (`{ outcome: 'decided' | 'expired', ... }`). Until the fragment lands, every approval
 * expires at once, so no step that needs one ever runs (the safe side of the rule).
 */
export function stepApproval(
  scope: Construct,
  _kernel: KernelResources<IncidentFunctionId, IncidentInvestigationSettings>,
  props: { readonly resultPath: string; readonly onFailure: sfn.IChainable },
): sfn.IChainable & sfn.INextable {
  return sfn.Pass.jsonPath(scope, 'Wait for step approval', {
    result: sfn.Result.fromObject({ outcome: 'expired', kind: 'remediation_step', at: 'not waited' }),
    resultPath: props.resultPath,
  });
}
