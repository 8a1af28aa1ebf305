import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { DynamoConversationStore } from '../lambdas/adapters/dynamo-store.ts';
import type { BedrockRuntime } from './bedrock/runtime-api.ts';
import { ChangeFeed } from './change-feed.ts';
import { CODEBUILD_TARGET_PREFIX } from './codebuild/api.ts';
import type { CodeBuildService } from './codebuild/service.ts';
import { keepDynaliteExpressions } from './dynalite-expressions.ts';
import { sandboxBotToken } from './github/sandbox-bot.ts';
import { type SandboxGitHub, startSandboxGitHub } from './github/sandbox-github.ts';
import type { SavedGitHub } from './github/saved-store.ts';
import { SANDBOX_HISTORY_MCP_PATH, serveSignedHistoryMcp } from './mcp/history-endpoint.ts';
import { createInventoryMcp, type InventoryMcp } from './mcp/inventory-server.ts';
import { SANDBOX_MCP_PATH } from './mcp/sandbox-mcp.ts';
import type { ModelFaults } from './model/faults.ts';
import { readBody } from './read-body.ts';
import { serveEventBridge } from './sandbox-eventbridge.ts';
import type { inProcessFunctions } from './sandbox-functions.ts';
import { createSandboxModels, demoModelEnv, MODEL_FRONT_PATH } from './sandbox-models.ts';
import {
  DEVELOPMENT_BOT_TOKEN,
  DYNAMODB_TARGET_PREFIX,
  EVENTBRIDGE_PATH,
  type SandboxOptions,
} from './sandbox-options.ts';
import { startOutboxSweep } from './sandbox-outbox.ts';
import { createQueues, createTables, type FunctionInfo, serveFunctionUrl } from './sandbox-resources.ts';
import type { createSandboxRoutes } from './sandbox-routes.ts';
import { createFakeSlack, type FakeSlack, signedEventRequests } from './sandbox-slack.ts';
import { dynamoDbStorePath, githubRepositoriesPath, type StatefulParts } from './sandbox-state.ts';
import { createSandboxRoutesWithSurfaces } from './sandbox-surfaces.ts';
import { createSandboxTelemetry, type SandboxTelemetry } from './sandbox-telemetry.ts';
import { createSqsApiHandler, SQS_TARGET_PREFIX } from './sqs/api.ts';
import { type EventSource, startEventSource } from './sqs/event-source.ts';
import { SqsQueueService } from './sqs/queue-service.ts';
import { STEP_FUNCTIONS_TARGET_PREFIX } from './stepfunctions/api.ts';
import type { LocalStepFunctions } from './stepfunctions/runtime.ts';
import { type CloudFormationTemplate, resolveIntrinsics, resourcesOfType } from './template.ts';
import { TableSettingsStore } from './template-settings.ts';
import type { createSandboxLog } from './terminal-log.ts';

/** An HTTP handler of the sandbox's one port (the body already read where it says so). */
type Serve = (req: IncomingMessage, res: ServerResponse, body: string) => Promise<void>;

/**
 * What a sandbox keeps for as long as it lives (sandbox.ts; opened by sandbox-host.ts): its
 * port, the template, the handlers' environment, and the emulators that are costly to build
 * (the Step Functions emulator with its prepared state machines, CodeBuild with the template's
 * projects), each with a reset of its own.
 */
export interface SandboxHost {
  readonly options: SandboxOptions & { timeScale: number; signingSecret: string };
  readonly url: string;
  readonly template: CloudFormationTemplate;
  readonly names: { baseUrl: string };
  readonly functions: ReadonlyMap<string, FunctionInfo>;
  /** The handlers' environment, except what a world adds (the GitHub token). */
  readonly environment: Record<string, string>;
  readonly webhookSecrets: { github: string; pagerduty: string };
  readonly botUserId: string;
  readonly dynamodb: DynamoDBClient;
  readonly log: ReturnType<typeof createSandboxLog>;
  readonly runtime: ReturnType<typeof inProcessFunctions>;
  readonly stepFunctions: LocalStepFunctions;
  readonly codebuild: CodeBuildService;
  readonly ingressId: string;
  /** The history MCP server's function, when the configuration enables it. */
  readonly historyMcpId?: string;
  readonly apis: {
    lambda: Serve;
    stepFunctions: Serve;
    codebuild: Serve;
    isLambda(req: IncomingMessage): boolean;
  };
  /** Where the demo repository is kept as first seeded, for every later world's GitHub to copy. */
  readonly githubSeedCache: string;
  /** Where the port's requests go from now on. */
  setRoute(route: (req: IncomingMessage, res: ServerResponse) => Promise<void>): void;
}

/**
 * Everything a test file (or a run of `npm run dev`) can leave behind: table contents, queues,
 * the fake Slack workspace, the GitHub emulator's repositories, issues and deliveries, the
 * telemetry, the model's faults and upstream, the console's feed. A world is built whole and
 * thrown away whole, so the next one starts with nothing of the last.
 */
export interface SandboxWorld {
  readonly slack: FakeSlack;
  readonly sqs: SqsQueueService;
  readonly github: SandboxGitHub;
  readonly telemetry: SandboxTelemetry;
  readonly mcp: InventoryMcp;
  readonly modelFaults: ModelFaults;
  readonly bedrock: BedrockRuntime;
  readonly tableName: string;
  readonly inboxUrl: string;
  readonly feed: ChangeFeed;
  readonly route: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** Resolves when the inbox is empty and every Slack event so far went through the ingress. */
  idle(): Promise<void>;
  /**
   * Stops taking work: the fake Slack's events no longer reach the ingress, the event sources
   * stop polling (their running batches finish), the outbox sweep ends.
   */
  quiesce(): Promise<void>;
  /** Releases what the world holds (long polls, the console's streams, GitHub's repositories on disk). */
  close(): Promise<void>;
}

/**
 * Builds a fresh world on the host's port; `options` may name another model server than the last
 * world's. A sandbox that keeps its state keeps GitHub's repositories in its state directory,
 * and takes back the GitHub records it saved there (`savedGitHub`) instead of seeding the demo.
 */
export async function buildWorld(
  host: SandboxHost,
  options: SandboxOptions,
  savedGitHub?: SavedGitHub,
): Promise<SandboxWorld> {
  const { url, names, template, environment } = host;
  const signingSecret = host.options.signingSecret;
  const github = await startSandboxGitHub({
    baseUrl: url,
    webhookSecret: environment.GITHUB_WEBHOOK_SECRET,
    seedCache: host.githubSeedCache,
    root: host.options.state === undefined ? undefined : githubRepositoriesPath(host.options.state),
    saved: savedGitHub,
  });
  Object.assign(process.env, environment, {
    // The code tools and the pull request opener talk to the sandbox's GitHub as its bot.
    GITHUB_BASE_URL: github.apiUrl,
    GITHUB_TOKEN: sandboxBotToken(github),
    // Without a model server of the caller's, the offline demo model answers (labelled as such).
    ...(options.env?.ANTHROPIC_BASE_URL || options.env?.ANTHROPIC_API_KEY ? {} : demoModelEnv(url)),
    ...options.env,
    // Every model call goes through the sandbox's model front, where faults can be switched on.
    ANTHROPIC_BASE_URL: `${url}${MODEL_FRONT_PATH}`,
  });
  delete process.env.NODE_OPTIONS;

  // DynamoDB: dynalite, answering on the host's port; TTL and point-in-time recovery beside it.
  // A sandbox that keeps its state stores the tables on disk, in dynalite's LevelDB store.
  const statePath = host.options.state === undefined ? undefined : dynamoDbStorePath(host.options.state);
  keepDynaliteExpressions();
  const dynamo = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(statePath !== undefined && { path: statePath }),
  });
  // dynalite closes its store only with its own server, so that server listens (on a port of
  // its own, never called): closing it releases the store for the next start.
  if (statePath !== undefined) await new Promise<void>((done) => dynamo.listen(0, '127.0.0.1', done));
  const dynamoListener = dynamo.listeners('request')[0] as (
    req: IncomingMessage,
    res: ServerResponse,
  ) => void;
  const tableSettings = new TableSettingsStore();
  // A message that reached a dead-letter queue shows at WARN.
  const sqs = new SqsQueueService({
    baseUrl: url,
    onDeadLetter: (arrival) => host.log.warn('message arrived in a dead-letter queue', { ...arrival }),
  });
  const sqsApi = createSqsApiHandler(sqs);
  const feed = new ChangeFeed();
  const telemetry = createSandboxTelemetry({
    ...(host.options.telemetry?.demoSeed !== undefined ? { demoSeed: host.options.telemetry.demoSeed } : {}),
    ...(host.options.telemetry?.loghubDir ? { loghubDir: host.options.telemetry.loghubDir } : {}),
  });
  const mcp = createInventoryMcp();
  const slack = createFakeSlack({
    botUserId: host.botUserId,
    botToken: DEVELOPMENT_BOT_TOKEN,
    channelsEnv: environment,
  });
  const models = createSandboxModels({
    env: options.env,
    slackFaults: slack.workspace.faults,
    timeScale: host.options.timeScale,
    modules: host.options.modules,
  });
  const invokeIngress = (event: unknown) => host.runtime.invoke(host.ingressId, event);
  let sandboxRoutes: ReturnType<typeof createSandboxRoutes> | undefined;
  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const target = String(req.headers['x-amz-target'] ?? '');
    if (target.startsWith(DYNAMODB_TARGET_PREFIX) && !tableSettings.handles(target))
      return dynamoListener(req, res);
    const body = await readBody(req);
    if (tableSettings.handles(target)) return tableSettings.serve(req, res, body);
    if (host.apis.isLambda(req)) return host.apis.lambda(req, res, body);
    if (target.startsWith(SQS_TARGET_PREFIX)) return sqsApi(req, res, body);
    if (target.startsWith(STEP_FUNCTIONS_TARGET_PREFIX)) return host.apis.stepFunctions(req, res, body);
    if (target.startsWith(CODEBUILD_TARGET_PREFIX)) return host.apis.codebuild(req, res, body);
    if (await telemetry.serve(req, res, body)) return;
    const path = new URL(req.url ?? '/', url).pathname;
    if (github.handles(path)) return github.serve(req, res, body);
    if (path.startsWith('/api/')) {
      await slack.api(req, res, body);
      // An edited or streamed message, an ephemeral one, a modal opened or an assistant thread's
      // status is news for the console as much as a new message.
      if (
        /\/api\/(?:chat\.(?:update|appendStream|stopStream|postEphemeral)|views\.open|assistant\.threads\.\w+)$/.test(
          path,
        )
      )
        feed.notify('slack');
      return;
    }
    if (await models.serve(req, res, body, path)) return;
    if (path === '/slack/events' || path === '/github/events' || path === '/pagerduty/events')
      return serveFunctionUrl(req, res, body, invokeIngress);
    if (path === EVENTBRIDGE_PATH) return serveEventBridge(res, body, invokeIngress);
    if (path === SANDBOX_MCP_PATH) return mcp.handle(req, res, body);
    const historyMcpId = host.historyMcpId;
    if (path === SANDBOX_HISTORY_MCP_PATH && historyMcpId !== undefined)
      return serveSignedHistoryMcp(req, res, body, (event) => host.runtime.invoke(historyMcpId, event));
    if (!sandboxRoutes)
      return void res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"starting"}');
    return sandboxRoutes(req, res, body, path);
  };

  // Resources of the template. The tables are created through the route, so it must serve first.
  host.setRoute(route);
  const tableName = await createTables(template, host.dynamodb, tableSettings, statePath !== undefined);
  sandboxRoutes = createSandboxRoutesWithSurfaces(
    {
      slack,
      stepFunctions: host.stepFunctions,
      store: new DynamoConversationStore({ client: host.dynamodb, tableName }),
      dynamodb: host.dynamodb,
      tableName,
      botUserId: host.botUserId,
      url,
      signingSecret,
      agentTurnsRunning: host.runtime.agentTurnsRunning,
      consoleDir: join(process.cwd(), 'dist', 'console'),
      ...(host.options.modules ? { modules: host.options.modules } : {}),
    },
    feed,
  );
  const queueUrls = createQueues(template, sqs, names);
  const sources: EventSource[] = [];
  for (const [, mapping] of resourcesOfType(template, 'AWS::Lambda::EventSourceMapping')) {
    const queueArn = String(resolveIntrinsics(mapping.Properties?.EventSourceArn ?? null, template, names));
    const queueUrl = queueUrls.get(queueArn);
    if (!queueUrl) throw new Error(`event source ${queueArn} is not a queue of the template`);
    const functionId = String(resolveIntrinsics(mapping.Properties?.FunctionName ?? null, template, names));
    sources.push(
      startEventSource({
        service: sqs,
        queueUrl,
        batchSize: Number(mapping.Properties?.BatchSize ?? 10),
        concurrency: host.options.routerConcurrency ?? 2,
        functionName: functionId,
        handler: (event) => host.runtime.invoke(functionId, event) as never,
      }),
    );
  }
  // Posts a Slack outage kept go out once Slack is back (the reconciler's job in AWS).
  const outboxSweep = startOutboxSweep(template, host.runtime.handlerOf, host.functions, host.log);

  // Every message in the fake workspace reaches the ingress as Slack would send it: signed.
  // Once the world is quiesced nothing takes them: an event is no longer sent (the bot's answer
  // to a turn the stop cut short), and one the stop cut off mid-request is dropped, not reported.
  let quiesced = false;
  slack.workspace.onMessage(() => feed.notify('slack'));
  slack.workspace.onMessage(async (event) => {
    for (const request of signedEventRequests(slack.workspace, event, signingSecret)) {
      if (quiesced) return;
      const response = await fetch(`${url}/slack/events`, {
        method: 'POST',
        headers: request.headers,
        body: request.body,
      }).catch((error: unknown) => {
        if (quiesced) return undefined;
        throw error;
      });
      if (response === undefined || quiesced) return;
      if (response.status !== 200)
        console.error(`[sandbox] ingress answered ${response.status} to event ${event.ts}`);
    }
  });

  return {
    slack,
    sqs,
    github,
    telemetry,
    mcp,
    modelFaults: models.faults,
    bedrock: models.bedrock,
    tableName,
    inboxUrl: environment.INBOX_QUEUE_URL ?? '',
    feed,
    route,
    async idle() {
      await slack.workspace.settled();
      await Promise.all(sources.map((s) => s.idle({ stallMs: 60_000 })));
    },
    async quiesce() {
      quiesced = true;
      outboxSweep.stop();
      await Promise.all(sources.map((s) => s.stop()));
    },
    async close() {
      sqs.close();
      feed.close();
      await github.close();
      if (statePath !== undefined) await new Promise<void>((done) => dynamo.close(() => done()));
    },
  };
}

/** The parts of a sandbox whose state `--state` keeps, and where it says what it did. */
export function statefulParts(host: SandboxHost, world: SandboxWorld): StatefulParts {
  const level = host.options.logLevel ?? 'INFO';
  return {
    stepFunctions: host.stepFunctions,
    sqs: world.sqs,
    slack: world.slack.workspace,
    github: world.github.store,
    handlersSettled: (ms) => host.runtime.settled(ms),
    warn: (line) => host.log.warn(line),
    say: (line) => (level === 'INFO' || level === 'DEBUG' ? console.log(`[sandbox] ${line}`) : undefined),
  };
}
