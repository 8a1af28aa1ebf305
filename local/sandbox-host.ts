import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { scratchDirectory } from '../infra/scratch.ts';
import { CODE_TOOLS_ENV } from '../lambdas/tools/code/config.ts';
import { SANDBOX_MODULES } from '../statemachines/sandbox-modules.ts';
import { createCodeBuildApiHandler } from './codebuild/api.ts';
import { CodeBuildService } from './codebuild/service.ts';
import { projectsFromTemplate } from './codebuild/template-projects.ts';
import { FunctionThreads } from './function-threads.ts';
import { sandboxRepositoryPath } from './github/sandbox-bot.ts';
import { createLambdaApi, isLambdaInvokeRequest } from './lambda/api.ts';
import { pointMcpAtSandbox, withDemoMcp } from './mcp/sandbox-mcp.ts';
import { inProcessFunctions } from './sandbox-functions.ts';
import {
  DEVELOPMENT_BOT_TOKEN,
  DEVELOPMENT_WEBHOOK_SECRETS,
  type SandboxOptions,
} from './sandbox-options.ts';
import { functionUrlTargets, mergeEnvironments, readFunctions } from './sandbox-resources.ts';
import {
  functionOfInvokedArn,
  publishedFunctionVersions,
  publishStateMachineVersions,
} from './sandbox-versions.ts';
import type { SandboxHost, SandboxWorld } from './sandbox-world.ts';
import { createStepFunctionsApi } from './stepfunctions/api.ts';
import { ManualClock } from './stepfunctions/clock.ts';
import { LocalStepFunctions } from './stepfunctions/runtime.ts';
import { withDemoTelemetry } from './telemetry/demo-services.ts';
import { LOCAL_REGION, localArn, resolveIntrinsics, resourcesOfType } from './template.ts';
import { sandboxTemplate } from './template-cache.ts';
import { createSandboxLog } from './terminal-log.ts';

/**
 * The sandbox's host: what it builds once and keeps while it serves one world after another
 * (local/sandbox.ts): the synthesized template, the handlers' environment pointed at the
 * sandbox's port, the in-process functions, and the emulators that are costly to prepare (Step
 * Functions with the template's state machines and their versions, CodeBuild with its projects).
 * A world (local/sandbox-world.ts) is what is built anew for each user.
 */

/** The parts a sandbox keeps for as long as it lives (sandbox-world.ts says which and why). */
export async function openHost(
  options: SandboxOptions & { timeScale: number; signingSecret: string },
  url: string,
  link: {
    setRoute: SandboxHost['setRoute'];
    world: () => SandboxWorld | undefined;
  },
): Promise<SandboxHost> {
  // The default modules' template is reused while their sources and the configuration are unchanged.
  // The telemetry tools read the demo incident's services unless the caller configures others.
  const { template } = await sandboxTemplate({
    ...(options.modules ? { modules: options.modules } : {}),
    config: withDemoMcp(
      withDemoTelemetry({ sandbox: true, ...options.config }, options.modules ?? SANDBOX_MODULES),
      options.modules ?? SANDBOX_MODULES,
    ),
    ...(options.templateCache === false ? { cache: false } : {}),
  });
  const names = { baseUrl: url };
  // One GitHub secret: the emulator signs its deliveries with what the ingress verifies.
  const webhookSecrets = {
    ...DEVELOPMENT_WEBHOOK_SECRETS,
    ...(options.githubWebhookSecret ? { github: options.githubWebhookSecret } : {}),
    ...options.webhookSecrets,
  };

  // The handlers' environment: what the stack gives them, plus the local endpoints and credentials
  // (a world adds its GitHub's token and the model's settings).
  const functions = readFunctions(template, names);
  const stackEnvironment = mergeEnvironments(functions);
  const environment: Record<string, string> = {
    ...stackEnvironment,
    AWS_REGION: LOCAL_REGION,
    AWS_DEFAULT_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: 'sandbox',
    AWS_SECRET_ACCESS_KEY: 'sandbox',
    AWS_ENDPOINT_URL_DYNAMODB: url,
    AWS_ENDPOINT_URL_SQS: url,
    AWS_ENDPOINT_URL_SFN: url,
    AWS_ENDPOINT_URL_LAMBDA: url,
    AWS_ENDPOINT_URL_BEDROCK_RUNTIME: url,
    AWS_ENDPOINT_URL_CODEBUILD: url,
    AWS_ENDPOINT_URL_CLOUDWATCH_LOGS: url,
    AWS_ENDPOINT_URL_CLOUDWATCH: url,
    AWS_ENDPOINT_URL_CLOUDFORMATION: url,
    SLACK_API_URL: `${url}/api/`,
    SLACK_SIGNING_SECRET: options.signingSecret,
    GITHUB_WEBHOOK_SECRET: webhookSecrets.github,
    PAGERDUTY_WEBHOOK_SECRET: webhookSecrets.pagerduty,
    SLACK_BOT_TOKEN: DEVELOPMENT_BOT_TOKEN,
    POWERTOOLS_LOG_LEVEL: options.logLevel ?? 'INFO',
    POWERTOOLS_DEV: 'true',
    // Execution links in Slack messages open this console, not the AWS one.
    SANDBOX_CONSOLE_URL: url,
    // The code tools' unpacked trees, this sandbox's own: in AWS each execution environment has
    // its own /tmp, and two sandboxes sharing one directory would evict and replace each
    // other's trees (two demo repositories make the same commits) under each other's reads.
    [CODE_TOOLS_ENV.cacheDir]: scratchDirectory('sandbox-code-tools-'),
    ...pointMcpAtSandbox(stackEnvironment.MCP_SERVERS, url),
    LIVE_PROGRESS: options.liveProgress === true ? (stackEnvironment.LIVE_PROGRESS ?? 'on') : 'off',
  };
  const dynamodb = new DynamoDBClient({
    endpoint: url,
    region: LOCAL_REGION,
    credentials: { accessKeyId: 'sandbox', secretAccessKey: 'sandbox' },
  });
  // A Lambda that threw shows at WARN.
  const log = createSandboxLog({ level: options.logLevel ?? 'INFO' });
  // The template's functions, run in process (on the main thread, or in worker threads when
  // asked); the console shows agent turns in flight.
  const runtime = inProcessFunctions(functions, {
    log,
    onChange: () => link.world()?.feed.notify('conversation'),
    ...(options.functionThreads !== undefined && { threads: new FunctionThreads(options.functionThreads) }),
  });
  // A build runs real code: its minutes are real ones (stretched, never shrunk, by the time scale).
  const codebuild = new CodeBuildService({
    minuteMs: 60_000 * Math.max(1, options.timeScale),
    ...(options.buildMemo === undefined ? {} : { memoDir: options.buildMemo }),
    // A project whose source is a repository of the sandbox's GitHub builds from it on disk.
    resolveLocation: (location) => {
      const github = link.world()?.github;
      return (github && sandboxRepositoryPath(github, location)) ?? location;
    },
    onLogEvent: (group, stream, event) => link.world()?.telemetry.logs.put(group, stream, event),
  });
  for (const project of projectsFromTemplate(template, names)) codebuild.createProject(project);
  const functionVersions = publishedFunctionVersions(template, names);
  const stepFunctions = new LocalStepFunctions({
    onEvent: () => link.world()?.feed.notify('execution'),
    timeScale: options.timeScale,
    ...(options.clock === 'manual' ? { clock: new ManualClock() } : {}),
    dynamodb,
    codebuild,
    invokeLambda: (functionArn, payload) =>
      runtime.invoke(functionOfInvokedArn(functionArn, functionVersions), payload),
  });
  for (const [logicalId, resource] of resourcesOfType(template, 'AWS::StepFunctions::StateMachine')) {
    const definition = resolveIntrinsics(resource.Properties?.DefinitionString ?? null, template, names);
    stepFunctions.registerStateMachine({
      arn: localArn('states', `stateMachine:${logicalId}`),
      name: logicalId,
      definition,
    });
  }
  publishStateMachineVersions(template, names, stepFunctions);
  const { ingressId, historyMcpId } = functionUrlTargets(template, names);
  // Lambda Invoke (AgentTurn calling its tools): the same in-process handlers, by logical id.
  const lambdaApi = createLambdaApi(runtime.invoke, { exists: (name) => functions.has(name) });
  const sfnApi = createStepFunctionsApi(stepFunctions);
  const codebuildApi = createCodeBuildApiHandler(codebuild);
  return {
    options,
    url,
    template,
    names,
    functions,
    environment,
    webhookSecrets,
    botUserId: stackEnvironment.SLACK_BOT_USER_ID ?? 'U_BOT',
    dynamodb,
    log,
    runtime,
    stepFunctions,
    codebuild,
    ingressId,
    ...(historyMcpId !== undefined ? { historyMcpId } : {}),
    apis: {
      lambda: lambdaApi,
      stepFunctions: sfnApi,
      codebuild: codebuildApi,
      isLambda: isLambdaInvokeRequest,
    },
    githubSeedCache: join(process.cwd(), '.sandbox', 'github-seed'),
    setRoute: link.setRoute,
  };
}
