import './polyfills.ts';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { DynamoConversationStore } from '../lambdas/adapters/dynamo-store.ts';
import { WORKFLOW_MODULES } from '../statemachines/index.ts';
import { CODEBUILD_TARGET_PREFIX, createCodeBuildApiHandler } from './codebuild/api.ts';
import { CodeBuildService } from './codebuild/service.ts';
import { projectsFromTemplate } from './codebuild/template-projects.ts';
import { sandboxBotToken, sandboxRepositoryPath } from './github/sandbox-bot.ts';
import { startSandboxGitHub } from './github/sandbox-github.ts';
import { createLambdaApi, isLambdaInvokeRequest } from './lambda/api.ts';
import { readBody } from './read-body.ts';
import { serveEventBridge } from './sandbox-eventbridge.ts';
import { inProcessFunctions } from './sandbox-functions.ts';
import { createSandboxModels, DEMO_MODEL_PATH, demoModelEnv, MODEL_FRONT_PATH } from './sandbox-models.ts';
import {
  DEVELOPMENT_BOT_TOKEN,
  DEVELOPMENT_SIGNING_SECRET,
  DEVELOPMENT_WEBHOOK_SECRETS,
  DYNAMODB_TARGET_PREFIX,
  EVENTBRIDGE_PATH,
  type Sandbox,
  type SandboxOptions,
} from './sandbox-options.ts';
import { startOutboxSweep } from './sandbox-outbox.ts';
import {
  createQueues,
  createTables,
  logicalIdOfArn,
  mergeEnvironments,
  readFunctions,
  serveIngress,
} from './sandbox-resources.ts';
import { ChangeFeed, type createSandboxRoutes } from './sandbox-routes.ts';
import { createFakeSlack, signedEventRequests } from './sandbox-slack.ts';
import { createSandboxRoutesWithSurfaces } from './sandbox-surfaces.ts';
import { createSandboxTelemetry } from './sandbox-telemetry.ts';
import { createSqsApiHandler, SQS_TARGET_PREFIX } from './sqs/api.ts';
import { type EventSource, startEventSource } from './sqs/event-source.ts';
import { SqsQueueService } from './sqs/queue-service.ts';
import { createStepFunctionsApi, STEP_FUNCTIONS_TARGET_PREFIX } from './stepfunctions/api.ts';
import { ManualClock } from './stepfunctions/clock.ts';
import { LocalStepFunctions } from './stepfunctions/runtime.ts';
import { withDemoTelemetry } from './telemetry/demo-services.ts';
import {
  LOCAL_REGION,
  localArn,
  resolveIntrinsics,
  resourcesOfType,
  UnsupportedTemplateError,
} from './template.ts';
import { sandboxTemplate } from './template-cache.ts';
import { TableSettingsStore } from './template-settings.ts';
import { createSandboxLog } from './terminal-log.ts';

export {
  DEMO_MODEL_PATH,
  DEVELOPMENT_SIGNING_SECRET,
  DEVELOPMENT_WEBHOOK_SECRETS,
  EVENTBRIDGE_PATH,
  MODEL_FRONT_PATH,
  type Sandbox,
  type SandboxOptions,
};

/**
 * The offline runtime: the synthesized stack's tables (dynalite), queues (the SQS FIFO
 * subset, with the event source mapping driving the Router), state machines (the ASL from
 * the template, run by aws-local-stepfunctions), Lambda handlers (the real modules, in
 * process), a fake Slack workspace, and the ingress at `POST /slack/events` — all on one
 * port. The handlers reach the emulated services through `AWS_ENDPOINT_URL_*` and
 * `SLACK_API_URL`, exactly as they would reach AWS and Slack.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const timeScale = options.timeScale ?? 1;
  const signingSecret = options.signingSecret ?? DEVELOPMENT_SIGNING_SECRET;
  const host = options.host ?? '127.0.0.1';

  // One port for everything: AWS protocols are told apart by their X-Amz-Target header.
  let route: (req: IncomingMessage, res: ServerResponse) => Promise<void> = async (_req, res) => {
    res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"starting"}');
  };
  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      console.error('[sandbox] request failed', error);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: String(error) }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 3000, host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host}:${port}`;

  try {
    return await assemble({ ...options, timeScale, signingSecret }, server, url, port, (r) => {
      route = r;
    });
  } catch (error) {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw error;
  }
}

async function assemble(
  options: SandboxOptions & { timeScale: number; signingSecret: string },
  server: Server,
  url: string,
  port: number,
  setRoute: (route: (req: IncomingMessage, res: ServerResponse) => Promise<void>) => void,
): Promise<Sandbox> {
  // The default modules' template is reused while their sources and the configuration are unchanged.
  // The telemetry tools read the demo incident's services unless the caller configures others.
  const { template } = await sandboxTemplate({
    ...(options.modules ? { modules: options.modules } : {}),
    config: withDemoTelemetry({ sandbox: true, ...options.config }, options.modules ?? WORKFLOW_MODULES),
    ...(options.templateCache === false ? { cache: false } : {}),
  });
  const names = { baseUrl: url };
  // One GitHub secret: the emulator signs its deliveries with what the ingress verifies.
  const webhookSecrets = {
    ...DEVELOPMENT_WEBHOOK_SECRETS,
    ...(options.githubWebhookSecret ? { github: options.githubWebhookSecret } : {}),
    ...options.webhookSecrets,
  };

  // The handlers' environment: what the stack gives them, plus the local endpoints and credentials.
  const functions = readFunctions(template, names);
  const environment = mergeEnvironments(functions);
  const botUserId = environment.SLACK_BOT_USER_ID ?? 'U_BOT';
  const github = await startSandboxGitHub({ baseUrl: url, webhookSecret: webhookSecrets.github });
  Object.assign(process.env, environment, {
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
    // The code tools and the pull request opener talk to the sandbox's GitHub as its bot.
    GITHUB_BASE_URL: github.apiUrl,
    GITHUB_TOKEN: sandboxBotToken(github),
    SLACK_API_URL: `${url}/api/`,
    SLACK_SIGNING_SECRET: options.signingSecret,
    GITHUB_WEBHOOK_SECRET: webhookSecrets.github,
    PAGERDUTY_WEBHOOK_SECRET: webhookSecrets.pagerduty,
    SLACK_BOT_TOKEN: DEVELOPMENT_BOT_TOKEN,
    POWERTOOLS_LOG_LEVEL: options.logLevel ?? 'INFO',
    POWERTOOLS_DEV: 'true',
    // Execution links in Slack messages open this console, not the AWS one.
    SANDBOX_CONSOLE_URL: url,
    LIVE_PROGRESS: options.liveProgress === true ? (environment.LIVE_PROGRESS ?? 'on') : 'off',
    // Without a model server of the caller's, the offline demo model answers (labelled as such).
    ...(options.env?.ANTHROPIC_BASE_URL || options.env?.ANTHROPIC_API_KEY ? {} : demoModelEnv(url)),
    ...options.env,
    // Every model call goes through the sandbox's model front, where faults can be switched on.
    ANTHROPIC_BASE_URL: `${url}${MODEL_FRONT_PATH}`,
  });
  delete process.env.NODE_OPTIONS;

  // DynamoDB: dynalite, answering on our port.
  const dynamo = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const dynamoListener = dynamo.listeners('request')[0] as (
    req: IncomingMessage,
    res: ServerResponse,
  ) => void;
  const dynamodb = new DynamoDBClient({
    endpoint: url,
    region: LOCAL_REGION,
    credentials: { accessKeyId: 'sandbox', secretAccessKey: 'sandbox' },
  });

  // SQS and Step Functions emulators.
  // A Lambda that threw and a message that reached a dead-letter queue show at WARN.
  const sandboxLog = createSandboxLog({ level: options.logLevel ?? 'INFO' });
  const sqs = new SqsQueueService({
    baseUrl: url,
    onDeadLetter: (arrival) => sandboxLog.warn('message arrived in a dead-letter queue', { ...arrival }),
  });
  const sqsApi = createSqsApiHandler(sqs);
  const feed = new ChangeFeed();
  // The template's functions, run in process; the console shows agent turns in flight.
  const { handlerOf, invoke, agentTurnsRunning } = inProcessFunctions(functions, {
    log: sandboxLog,
    onChange: () => feed.notify('conversation'),
  });
  // A build runs real code: its minutes are real ones (stretched, never shrunk, by the time scale).
  const telemetry = createSandboxTelemetry({
    ...(options.telemetry?.demoSeed !== undefined ? { demoSeed: options.telemetry.demoSeed } : {}),
    ...(options.telemetry?.loghubDir ? { loghubDir: options.telemetry.loghubDir } : {}),
  });
  const buildLogs = telemetry.logs;
  const codebuild = new CodeBuildService({
    minuteMs: 60_000 * Math.max(1, options.timeScale),
    // A project whose source is a repository of the sandbox's GitHub builds from it on disk.
    resolveLocation: (location) => sandboxRepositoryPath(github, location) ?? location,
    onLogEvent: (group, stream, event) => buildLogs.put(group, stream, event),
  });
  for (const project of projectsFromTemplate(template, names)) codebuild.createProject(project);
  const stepFunctions = new LocalStepFunctions({
    onEvent: () => feed.notify('execution'),
    timeScale: options.timeScale,
    ...(options.clock === 'manual' ? { clock: new ManualClock() } : {}),
    dynamodb,
    codebuild,
    invokeLambda: (functionArn, payload) => invoke(logicalIdOfArn(functionArn), payload),
  });
  const sfnApi = createStepFunctionsApi(stepFunctions);
  const codebuildApi = createCodeBuildApiHandler(codebuild);
  // Lambda Invoke (AgentTurn calling its tools): the same in-process handlers, by logical id.
  const lambdaApi = createLambdaApi(invoke, { exists: (name) => functions.has(name) });

  const slack = createFakeSlack({ botUserId, botToken: DEVELOPMENT_BOT_TOKEN, channelsEnv: environment });
  const ingress = resourcesOfType(template, 'AWS::Lambda::Url')[0];
  if (!ingress) throw new UnsupportedTemplateError('the template has no Function URL for the ingress');
  const ingressId = logicalIdOfArn(
    String(resolveIntrinsics(ingress[1].Properties?.TargetFunctionArn ?? null, template, names)),
  );

  const models = createSandboxModels({
    env: options.env,
    slackFaults: slack.workspace.faults,
    timeScale: options.timeScale,
  });
  // TTL and point-in-time recovery of the template's tables, which dynalite does not keep.
  const tableSettings = new TableSettingsStore();
  let sandboxRoutes: ReturnType<typeof createSandboxRoutes> | undefined;
  setRoute(async (req, res) => {
    const target = String(req.headers['x-amz-target'] ?? '');
    if (target.startsWith(DYNAMODB_TARGET_PREFIX) && !tableSettings.handles(target))
      return dynamoListener(req, res);
    const body = await readBody(req);
    if (tableSettings.handles(target)) return tableSettings.serve(req, res, body);
    if (isLambdaInvokeRequest(req)) return lambdaApi(req, res, body);
    if (target.startsWith(SQS_TARGET_PREFIX)) return sqsApi(req, res, body);
    if (target.startsWith(STEP_FUNCTIONS_TARGET_PREFIX)) return sfnApi(req, res, body);
    if (target.startsWith(CODEBUILD_TARGET_PREFIX)) return codebuildApi(req, res, body);
    if (await telemetry.serve(req, res, body)) return;
    const path = new URL(req.url ?? '/', url).pathname;
    if (github.handles(path)) return github.serve(req, res, body);
    if (path.startsWith('/api/')) {
      await slack.api(req, res, body);
      // An edited or streamed message is news for the console as much as a new one.
      if (/\/api\/chat\.(update|appendStream|stopStream)$/.test(path)) feed.notify('slack');
      return;
    }
    if (await models.serve(req, res, body, path)) return;
    if (path === '/slack/events' || path === '/github/events' || path === '/pagerduty/events')
      return serveIngress(req, res, body, (event) => invoke(ingressId, event));
    if (path === EVENTBRIDGE_PATH) return serveEventBridge(res, body, (event) => invoke(ingressId, event));
    if (!sandboxRoutes)
      return void res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"starting"}');
    return sandboxRoutes(req, res, body, path);
  });

  // Resources of the template.
  const tableName = await createTables(template, dynamodb, tableSettings);
  sandboxRoutes = createSandboxRoutesWithSurfaces(
    {
      slack,
      stepFunctions,
      store: new DynamoConversationStore({ client: dynamodb, tableName }),
      dynamodb,
      tableName,
      botUserId,
      url,
      signingSecret: options.signingSecret,
      agentTurnsRunning,
      consoleDir: join(process.cwd(), 'dist', 'console'),
      ...(options.modules ? { modules: options.modules } : {}),
    },
    feed,
  );
  const queueUrls = createQueues(template, sqs, names);
  for (const [logicalId, resource] of resourcesOfType(template, 'AWS::StepFunctions::StateMachine')) {
    const definition = resolveIntrinsics(resource.Properties?.DefinitionString ?? null, template, names);
    stepFunctions.registerStateMachine({
      arn: localArn('states', `stateMachine:${logicalId}`),
      name: logicalId,
      definition,
    });
  }
  const sources: EventSource[] = [];
  for (const [, mapping] of resourcesOfType(template, 'AWS::Lambda::EventSourceMapping')) {
    const queueArn = String(resolveIntrinsics(mapping.Properties?.EventSourceArn ?? null, template, names));
    const queueUrl = queueUrls.get(queueArn);
    if (!queueUrl)
      throw new UnsupportedTemplateError(`event source ${queueArn} is not a queue of the template`);
    const functionId = String(resolveIntrinsics(mapping.Properties?.FunctionName ?? null, template, names));
    sources.push(
      startEventSource({
        service: sqs,
        queueUrl,
        batchSize: Number(mapping.Properties?.BatchSize ?? 10),
        concurrency: options.routerConcurrency ?? 2,
        functionName: functionId,
        handler: (event) => invoke(functionId, event) as never,
      }),
    );
  }
  const inboxUrl = environment.INBOX_QUEUE_URL ?? '';
  // Posts a Slack outage kept go out once Slack is back (the reconciler's job in AWS).
  const outboxSweep = startOutboxSweep(template, handlerOf, functions, sandboxLog);

  // Every message in the fake workspace reaches the ingress as Slack would send it: signed.
  slack.workspace.onMessage(() => feed.notify('slack'));
  slack.workspace.onMessage(async (event) => {
    for (const request of signedEventRequests(slack.workspace, event, options.signingSecret)) {
      const response = await fetch(`${url}/slack/events`, {
        method: 'POST',
        headers: request.headers,
        body: request.body,
      });
      if (response.status !== 200)
        console.error(`[sandbox] ingress answered ${response.status} to event ${event.ts}`);
    }
  });

  return {
    url,
    port,
    signingSecret: options.signingSecret,
    webhookSecrets,
    timeScale: options.timeScale,
    slack,
    stepFunctions,
    sqs,
    dynamodb,
    tableName,
    inboxUrl,
    github,
    bedrock: models.bedrock,
    codebuild,
    telemetry,
    template,
    modelFaults: models.faults,
    async idle() {
      await slack.workspace.settled();
      await Promise.all(sources.map((s) => s.idle({ timeoutMs: 60_000 })));
    },
    async stop() {
      outboxSweep.stop();
      await Promise.all(sources.map((s) => s.stop()));
      await stepFunctions.close();
      await codebuild.close();
      sqs.close();
      feed.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      dynamodb.destroy();
      await github.close();
    },
  };
}
