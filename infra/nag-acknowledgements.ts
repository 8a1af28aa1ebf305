import { Validations } from 'aws-cdk-lib';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { KernelFunction } from './constructs/kernel-function.ts';
import { executionRoleOf } from './nag-resource.ts';

/**
 * cdk-nag findings of the stack's functions and state machines that are accepted, each with its
 * reason, kept in one place so a reviewer sees every exception at once (the secrets' rotation
 * finding is acknowledged by ThirdPartySecret). cdk-nag 3 matches findings exactly, so each is
 * named in full.
 */
export function acknowledgeFindings(
  functions: ReadonlyMap<string, KernelFunction>,
  stateMachines: Iterable<StateMachine>,
): void {
  const taskTokenReason =
    ' and states:SendTaskSuccess/SendTaskFailure, which act on task tokens, not on resources';
  for (const [id, fn] of functions) {
    Validations.of(fn).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'NODEJS_22_X is pinned on purpose: the handlers are built and tested for Node 22; a runtime upgrade is a deliberate change with its own test run.',
    });
    const completesTasks = id === 'Router' || id === 'RegisterWait' || id === 'ApprovalWait';
    Validations.of(executionRoleOf(fn)).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: `Resource::* only for actions without resource-level permissions: X-Ray tracing (xray:PutTraceSegments, xray:PutTelemetryRecords)${completesTasks ? taskTokenReason : ''}.`,
    });
  }
  for (const stateMachine of stateMachines) {
    Validations.of(stateMachine.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Resource::* only for actions without resource-level permissions: CloudWatch Logs vended log delivery (logs:*LogDelivery*, logs:PutResourcePolicy) and X-Ray tracing (xray:Put*, xray:GetSampling*).',
    });
  }
}
