import { Aws, type Duration, Fn, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import {
  type CfnStateMachine,
  DefinitionBody,
  type IChainable,
  LogLevel,
  QueryLanguage,
  StateMachine,
  StateMachineType,
} from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { DEFAULT_PII, type PiiClass } from '../../lambdas/redaction/config.ts';
import { logDataProtection } from './log-data-protection.ts';

/** Metadata key on each state machine's CloudFormation resource: the workflow's name. */
export const WORKFLOW_METADATA_KEY = 'slack-agents:workflow';

/** `bug_investigation` -> `BugInvestigation`: the state machine's construct id. */
export function workflowConstructId(name: string): string {
  return name
    .split('_')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

export interface WorkflowStateMachineProps {
  /** The workflow's (or child's) name, lower snake case: metadata and construct id. */
  readonly name: string;
  /** Builds the definition in the scope it is given (one per state machine). */
  readonly build: (scope: Construct) => IChainable;
  /**
   * Upper bound of one execution.
   * @default - none beyond Step Functions' own one year
   */
  readonly timeout?: Duration;
  /** How long the execution logs are kept. */
  readonly logRetention: RetentionDays;
  /** Personal data classes the log group masks besides secrets (`redaction.pii`). @default ['card'] */
  readonly logPii?: readonly PiiClass[];
}

/**
 * One workflow's Standard state machine (one execution per conversation), traced
 * and logged. Execution data stays out of the logs: the conversation's messages are in the
 * table, with its retention, not copied into CloudWatch. Child state machines (SlaTracking)
 * are built the same way.
 */
export function createWorkflowStateMachine(scope: Construct, props: WorkflowStateMachineProps): StateMachine {
  const id = workflowConstructId(props.name);
  // States are constructs: give each workflow its own scope so state names cannot collide.
  const states = new Construct(scope, `${id}States`);
  const logGroup = new LogGroup(scope, `${id}Logs`, {
    logGroupName: vendedLogGroupName(scope, props.name),
    retention: props.logRetention,
    removalPolicy: RemovalPolicy.RETAIN,
    dataProtectionPolicy: logDataProtection(props.logPii ?? DEFAULT_PII),
  });
  const stateMachine = new StateMachine(scope, id, {
    definitionBody: DefinitionBody.fromChainable(props.build(states)),
    stateMachineType: StateMachineType.STANDARD,
    queryLanguage: QueryLanguage.JSON_PATH,
    tracingEnabled: true,
    logs: { destination: logGroup, level: LogLevel.ALL, includeExecutionData: false },
    ...(props.timeout === undefined ? {} : { timeout: props.timeout }),
    comment: `Conversations of the ${props.name} workflow`,
  });
  (stateMachine.node.defaultChild as CfnStateMachine).addMetadata(WORKFLOW_METADATA_KEY, props.name);
  return stateMachine;
}

/**
 * `/aws/vendedlogs/states/<stack>/<workflow>-<stack uuid>`: under this prefix CloudWatch Logs
 * does not add a statement per log group to its account-wide resource policy (5,120
 * characters at most), which in shared accounts fills up and fails the deploy. The stack's
 * own id ends the name, so a log group kept after the stack was deleted (RETAIN) never blocks
 * a new stack of the same name.
 */
export function vendedLogGroupName(scope: Construct, workflow: string): string {
  const stackUuid = Fn.select(2, Fn.split('/', Aws.STACK_ID));
  return `/aws/vendedlogs/states/${Stack.of(scope).stackName}/${workflow}-${stackUuid}`;
}
