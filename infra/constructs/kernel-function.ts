import { join } from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, type CfnFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { FunctionSpec } from '../../statemachines/kernel-functions.ts';

/** Injected into every bundle: maps stack traces to the sources when one is formatted (lambdas/shared/lazy-source-maps.ts). */
export const SOURCE_MAPS_ENTRY = 'lambdas/shared/source-maps-entry.ts';
/** Injected into every bundle, first: reads the function's configuration file into its environment (lambdas/shared/config-file.ts). */
export const CONFIG_FILE_ENTRY = 'lambdas/shared/config-file-entry.ts';

/** Metadata key on each function's CloudFormation resource: the function's id (its construct id). */
export const FUNCTION_METADATA_KEY = 'slack-agents:function';
/** Metadata key on each function's resource: its entry file, which the sandbox runs in process. */
export const ENTRY_METADATA_KEY = 'slack-agents:entry';
/** Metadata key on a function's resource: its kind (`agent_turn`), when it has one. */
export const KIND_METADATA_KEY = 'slack-agents:kind';

export interface KernelFunctionProps {
  /** The repository root: entries, the lockfile and esbuild's working directory are here. */
  readonly projectRoot: string;
  /** Environment variables (see the stack for why every function shares one set). */
  readonly environment: Record<string, string>;
  /** How long the function's logs are kept. */
  readonly logRetention: RetentionDays;
}

/**
 * A function spec (the kernel's or a workflow module's) as a bundled Node.js Lambda. The
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
): NodejsFunction {
  const logGroup = new LogGroup(scope, `${id}Logs`, {
    retention: props.logRetention,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  const role = new Role(scope, `${id}Role`, {
    assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    description: `Runs the ${id} function`,
  });
  logGroup.grantWrite(role);

  const fn = new NodejsFunction(scope, id, {
    entry: join(props.projectRoot, spec.entry),
    handler: 'handler',
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
    projectRoot: props.projectRoot,
    depsLockFilePath: join(props.projectRoot, 'package-lock.json'),
    bundling: {
      minify: true,
      sourceMap: true,
      // Run before the function's own code: the configuration file's variables enter the
      // environment, and the lazy stack trace mapping is installed (see above).
      inject: [join(props.projectRoot, CONFIG_FILE_ENTRY), join(props.projectRoot, SOURCE_MAPS_ENTRY)],
      target: 'node22',
      // The sources are ESM TypeScript with `.ts` import extensions, which esbuild resolves.
      format: OutputFormat.ESM,
      mainFields: ['module', 'main'],
      // Some dependencies still call `require` (CommonJS); give the ESM bundle one.
      banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
      // Bundle the AWS SDK too: the lockfile's pinned versions, not whatever the runtime ships.
      externalModules: [],
    },
  });
  const resource = fn.node.defaultChild as CfnFunction;
  resource.addMetadata(FUNCTION_METADATA_KEY, id);
  resource.addMetadata(ENTRY_METADATA_KEY, spec.entry);
  if (spec.kind !== undefined) resource.addMetadata(KIND_METADATA_KEY, spec.kind);
  return fn;
}
