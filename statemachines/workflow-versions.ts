import { Aws } from 'aws-cdk-lib';

/**
 * How executions find the code they run: every deploy publishes a version of each state
 * machine, and executions start through the alias named here, which points at the version of
 * the latest deploy (or, during a gradual rollout, splits starts between two). An execution
 * keeps the version it started on until it ends (docs/operations.md, "Upgrading and rolling
 * back").
 */
export const WORKFLOW_ALIAS_NAME = 'live';

/**
 * The shape version of the state a conversation hands to its next execution (continue-as-new).
 * Written into every hand-over input; an execution accepts its own version and the previous
 * one, so a conversation handed over by the previous release carries on after an upgrade.
 * Raise it when the carried fields change shape, and keep the previous value in
 * `ACCEPTED_HANDOVER_VERSIONS` until no execution of the previous release can still hand over.
 */
export const HANDOVER_VERSION = 1;

/**
 * Hand-over versions an execution accepts. `0` stands for an input without the field: the
 * release before versioned hand-overs wrote the same fields without saying their version.
 */
export const ACCEPTED_HANDOVER_VERSIONS: readonly number[] = [0, HANDOVER_VERSION];

/** The input field holding the hand-over's shape version. */
export const HANDOVER_VERSION_FIELD = 'handoverVersion';

/**
 * The alias ARN of the running execution's own state machine, as a JSONPath intrinsic:
 * `$$.StateMachine.Id` names the state machine (qualified or not, the name is its seventh
 * part), and the rest of the ARN is the stack's partition, region and account. A definition
 * cannot hold a reference to its own alias (the alias depends on the version, which depends on
 * the definition: a cycle).
 */
export function ownAliasArn(): string {
  const prefix = `arn:${Aws.PARTITION}:states:${Aws.REGION}:${Aws.ACCOUNT_ID}:stateMachine`;
  return `States.Format('${prefix}:{}:${WORKFLOW_ALIAS_NAME}', States.ArrayGetItem(States.StringSplit($$.StateMachine.Id, ':'), 6))`;
}
