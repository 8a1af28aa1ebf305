import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  type CfnFunction,
  type IFunction,
  Function as LambdaFunction,
  Runtime,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { DEFAULT_PII, type PiiClass } from '../../lambdas/redaction/config.ts';
import type { FunctionSpec } from '../../statemachines/kernel-functions.ts';
import { functionCode } from './function-bundle.ts';
import { logDataProtection } from './log-data-protection.ts';

export { CONFIG_FILE_ENTRY } from './function-bundle.ts';

/** A deployed function of the stack (the kernel's or a workflow module's). */
export type KernelFunction = LambdaFunction;

/** Metadata key on each function's CloudFormation resource: the function's id (its construct id). */
export const FUNCTION_METADATA_KEY = 'slack-agents:function';
/** Metadata key on each function's resource: its entry file, which the sandbox runs in process. */
const ENTRY_METADATA_KEY = 'slack-agents:entry';
/** Metadata key on a function's resource: the parts its entry is composed with, when it has some. */
export const PARTS_METADATA_KEY = 'slack-agents:parts';
/** Metadata key on a function's resource: its kind (`agent_turn`), when it has one. */
export const KIND_METADATA_KEY = 'slack-agents:kind';

export interface KernelFunctionProps {
  /** The repository root: entries and esbuild's working directory are here. */
  readonly projectRoot: string;
  /** Environment variables (see the stack for why every function shares one set). */
  readonly environment: Record<string, string>;
  /** How long the function's logs are kept. */
  readonly logRetention: RetentionDays;
  /** Personal data classes the log group masks besides secrets (`redaction.pii`). @default ['card'] */
  readonly logPii?: readonly PiiClass[];
}

/**
 * A function spec (the kernel's or a workflow module's) as a bundled Node.js Lambda (the
 * bundle and its lazily imported chunks: infra/constructs/function-bundle.ts). The
 * CloudFormation resource carries its id, entry and kind as metadata, so the sandbox can map
 * a Task's `FunctionName` (`Fn::GetAtt <logicalId>.Arn`) back to the handler it runs in process.
 *
 * Each function gets its own role with write access to its own log group only, instead of
 * the AWSLambdaBasicExecutionRole managed policy (which allows every log group).
 */
export function createKernelFunction(
  scope: Construct,
  id: string,
  spec: FunctionSpec,
  props: KernelFunctionProps,
): KernelFunction {
  const logGroup = new LogGroup(scope, `${id}Logs`, {
    retention: props.logRetention,
    dataProtectionPolicy: logDataProtection(props.logPii ?? DEFAULT_PII),
    removalPolicy: RemovalPolicy.RETAIN,
  });
  const role = new Role(scope, `${id}Role`, {
    assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    description: `Runs the ${id} function`,
  });
  logGroup.grantWrite(role);

  const fn = new LambdaFunction(scope, id, {
    code: functionCode(props.projectRoot, spec.entry, spec.parts),
    handler: 'index.handler',
    runtime: Runtime.NODEJS_22_X,
    architecture: Architecture.ARM_64,
    memorySize: spec.memoryMb,
    timeout: Duration.seconds(spec.timeoutSeconds),
    tracing: Tracing.ACTIVE,
    role,
    logGroup,
    // No `--enable-source-maps`: it parses the whole map at every cold start (17-26% of the
    // import). The injected entry maps stack traces lazily, when one is first formatted.
    environment: props.environment,
    // `currentVersion` publishes a version whenever the code or configuration changes. The
    // replaced ones are retained: executions started on an earlier state machine version still
    // call them (docs/operations.md, "Upgrading and rolling back").
    currentVersionOptions: {
      removalPolicy: RemovalPolicy.RETAIN,
      description: `${id}: the code of one deploy`,
    },
  });
  const resource = fn.node.defaultChild as CfnFunction;
  resource.addMetadata(FUNCTION_METADATA_KEY, id);
  resource.addMetadata(ENTRY_METADATA_KEY, spec.entry);
  if (spec.parts !== undefined && spec.parts.length > 0) resource.addMetadata(PARTS_METADATA_KEY, spec.parts);
  if (spec.kind !== undefined) resource.addMetadata(KIND_METADATA_KEY, spec.kind);
  return fn;
}

/**
 * The version of `fn` this deploy publishes, for state machine tasks: a running execution keeps
 * calling the code of the deploy its state machine version belongs to, never `$LATEST`.
 */
export function publishedVersion(fn: KernelFunction): IFunction {
  // A Version is an IFunction; its `role?: IRole` only trips exactOptionalPropertyTypes.
  return fn.currentVersion as IFunction;
}
