import { RemovalPolicy } from 'aws-cdk-lib';
import {
  CfnStateMachineAlias,
  CfnStateMachineVersion,
  type IStateMachine,
  StateMachine,
} from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { WORKFLOW_ALIAS_NAME } from '../../statemachines/workflow-versions.ts';

/** How the alias moves from the running version to a newly published one. */
export interface AliasDeployment {
  /** `ALL_AT_ONCE`, or a gradual shift (`CANARY`: one step, `LINEAR`: equal steps). */
  readonly type: 'ALL_AT_ONCE' | 'CANARY' | 'LINEAR';
  /** Percent of new executions sent to the new version at each step (gradual only). */
  readonly percentage?: number;
  /** Minutes between steps (gradual only). */
  readonly intervalMinutes?: number;
  /** Names of alarms that, in ALARM during the shift, roll the alias back to the previous version. */
  readonly alarmNames?: readonly string[];
}

export interface WorkflowVersion {
  /** The version this deploy published. */
  readonly version: CfnStateMachineVersion;
  /** The alias executions start through. */
  readonly alias: CfnStateMachineAlias;
  /** The alias's ARN (`<state machine ARN>:live`): what the Router and the Reconciler start. */
  readonly aliasArn: string;
}

/**
 * Publishes the state machine's current revision as a version and points the workflow's alias
 * at it. The version's resource is replaced whenever the definition changes (its revision id
 * changes), and the replaced one is retained, not deleted: executions started on it keep
 * running it, and a rollback points the alias back at it.
 */
export function publishWorkflowVersion(
  stateMachine: StateMachine,
  deployment: AliasDeployment,
): WorkflowVersion {
  const id = stateMachine.node.id;
  const version = new CfnStateMachineVersion(stateMachine, 'Version', {
    stateMachineArn: stateMachine.stateMachineArn,
    stateMachineRevisionId: stateMachine.stateMachineRevisionId,
    description: `${id}: the definition of one deploy`,
  });
  version.applyRemovalPolicy(RemovalPolicy.RETAIN);
  const gradual = deployment.type !== 'ALL_AT_ONCE';
  const alias = new CfnStateMachineAlias(stateMachine, 'Alias', {
    name: WORKFLOW_ALIAS_NAME,
    description: `${id}: where conversations start`,
    deploymentPreference: {
      stateMachineVersionArn: version.attrArn,
      type: deployment.type,
      ...(gradual && deployment.percentage !== undefined ? { percentage: deployment.percentage } : {}),
      ...(gradual && deployment.intervalMinutes !== undefined
        ? { interval: deployment.intervalMinutes }
        : {}),
      ...(deployment.alarmNames !== undefined && deployment.alarmNames.length > 0
        ? { alarms: [...deployment.alarmNames] }
        : {}),
    },
  });
  return { version, alias, aliasArn: alias.attrArn };
}

/**
 * A workflow's children as its `build` sees them: each by its alias, so the parent starts the
 * child's published version, never its latest revision.
 */
export function childAliases(
  scope: Construct,
  children: ReadonlyMap<string, StateMachine>,
  versions: ReadonlyMap<string, WorkflowVersion>,
): Map<string, IStateMachine> {
  return new Map(
    [...children.keys()].map((name): [string, IStateMachine] => [
      name,
      StateMachine.fromStateMachineArn(scope, `${name}Alias`, requireVersion(versions, name).aliasArn),
    ]),
  );
}

export function requireVersion(
  versions: ReadonlyMap<string, WorkflowVersion>,
  name: string,
): WorkflowVersion {
  const version = versions.get(name);
  if (version === undefined) throw new Error(`workflow "${name}" has no published version`);
  return version;
}
