import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SlackAgentsConfigInput } from '../infra/config.ts';
import type { AnyWorkflowModule } from '../statemachines/workflow-module.ts';
import type { BedrockRuntime } from './bedrock/runtime-api.ts';
import type { CodeBuildService } from './codebuild/service.ts';
import type { FunctionThreadsOptions } from './function-threads.ts';
import type { SandboxGitHub } from './github/sandbox-github.ts';
import type { InventoryMcp } from './mcp/inventory-server.ts';
import type { ModelFaults } from './model/faults.ts';
import type { FakeSlack } from './sandbox-slack.ts';
import type { SandboxTelemetry, SandboxTelemetryOptions } from './sandbox-telemetry.ts';
import type { SqsQueueService } from './sqs/queue-service.ts';
import type { LocalStepFunctions } from './stepfunctions/runtime.ts';
import type { CloudFormationTemplate } from './template.ts';

/** The sandbox's options, what `startSandbox` returns, and its fixed paths and development secrets (sandbox.ts). */

/** The signing secret the sandbox uses unless `SLACK_SIGNING_SECRET` says otherwise (printed at start). */
export const DEVELOPMENT_SIGNING_SECRET = 'sandbox-signing-secret-not-for-production';
/** The webhook secrets the sandbox verifies GitHub and PagerDuty deliveries with, unless set (printed at start). */
export const DEVELOPMENT_WEBHOOK_SECRETS = {
  github: 'sandbox-github-webhook-secret-not-for-production',
  pagerduty: 'sandbox-pagerduty-webhook-secret-not-for-production',
} as const;
/** Where the sandbox takes an EventBridge event and invokes the ingress with it, as the alarm rule would. */
export const EVENTBRIDGE_PATH = '/sandbox/eventbridge';
export const DEVELOPMENT_BOT_TOKEN = 'xoxb-sandbox-not-a-real-token';
export const DYNAMODB_TARGET_PREFIX = 'DynamoDB_20120810.';

export interface SandboxOptions {
  /** @default 3000 (0 picks a free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** @default DEVELOPMENT_SIGNING_SECRET */
  signingSecret?: string;
  /** GitHub's and PagerDuty's webhook secrets. @default DEVELOPMENT_WEBHOOK_SECRETS */
  webhookSecrets?: { github: string; pagerduty: string };
  /** Multiplies every Wait and every wait for people (SANDBOX_TIME_SCALE). @default 1 */
  timeScale?: number;
  /** The workflow modules the stack is synthesized with. @default WORKFLOW_MODULES */
  modules?: readonly AnyWorkflowModule[];
  /** Stack configuration (channel ids, timeouts...), as `cdk deploy` would get it. */
  config?: SlackAgentsConfigInput;
  /** Extra environment for the handlers, e.g. ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY. */
  env?: Record<string, string>;
  /**
   * Agent turns show their live progress in the fake Slack (`npm run dev` turns it on; tests
   * that check it opt in, so the others' assertions on a thread's posts stay about the answers).
   * The configuration's `liveProgress: false` keeps it off either way.
   * @default false
   */
  liveProgress?: boolean;
  /** Powertools log level of the handlers. @default 'INFO' */
  logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
  /**
   * Run the template's functions in worker threads of the sandbox's process (`count` of them;
   * `npm run dev` reads SANDBOX_FUNCTION_THREADS) instead of on its main thread, which then
   * keeps the emulators alone (local/function-threads.ts): under load, a second core takes the
   * handlers' work. Tests that spy on a handler's modules need the main thread.
   * @default on the main thread
   */
  functionThreads?: FunctionThreadsOptions;
  /** Concurrent Router invocations, like Lambda instances on the inbox. @default 2 */
  routerConcurrency?: number;
  /** The GitHub webhook secret alone (the emulator signs with it, the ingress verifies it); `webhookSecrets.github` wins. */
  githubWebhookSecret?: string;
  /** The demo incident's seed (`false`: none) and Loghub's directory for its noise. @default seed 3, no noise */
  telemetry?: Pick<SandboxTelemetryOptions, 'demoSeed' | 'loghubDir'>;
  /**
   * Reuse the template synthesized for the same sources and configuration (`.sandbox/template-cache/`,
   * local/template-cache.ts); only the default modules' is cached. `false` synthesizes every time.
   * @default true
   */
  templateCache?: boolean;
  /**
   * `manual`: the Step Functions waits the sandbox runs itself (callback tasks' timeouts and
   * heartbeats, Waits on a path) fire only when a test advances `stepFunctions.clock`
   * (local/stepfunctions/clock.ts), by sandbox milliseconds (after the time scale).
   * @default 'real'
   */
  clock?: 'real' | 'manual';
  /**
   * A directory where the sandbox keeps its state across restarts (`npm run dev -- --state <dir>`):
   * tables, executions with their waits, queues and Slack's messages come back when a sandbox
   * starts on the same directory (local/sandbox-state.ts). Such a sandbox is never reused.
   */
  state?: string;
  /**
   * A directory where CodeBuild keeps what each build's commands did, and replays it for a later
   * build of the same tree, buildspec and environment (local/codebuild/build-memo.ts): for tests
   * whose builds are deterministic and run the same checks on the same files again and again.
   * @default every build runs its commands
   */
  buildMemo?: string;
}

export interface Sandbox {
  readonly url: string;
  readonly port: number;
  readonly signingSecret: string;
  readonly webhookSecrets: { github: string; pagerduty: string };
  readonly timeScale: number;
  readonly slack: FakeSlack;
  readonly stepFunctions: LocalStepFunctions;
  readonly sqs: SqsQueueService;
  readonly dynamodb: DynamoDBClient;
  readonly tableName: string;
  readonly inboxUrl: string;
  /** The GitHub emulator: REST API at `${url}/api/v3`, webhooks to `${url}/github/events`. */
  readonly github: SandboxGitHub;
  /** The model's misbehaviour on purpose (`/sandbox/faults`); also counts the model requests. */
  readonly modelFaults: ModelFaults;
  /** The emulated Bedrock Runtime (model.provider bedrock), in front of the same model server as ANTHROPIC_BASE_URL. */
  readonly bedrock: BedrockRuntime;
  /** The emulated CodeBuild (builds run in temporary checkouts; their logs kept in memory). */
  readonly codebuild: CodeBuildService;
  /** Emulated CloudWatch Logs, metrics and CloudFormation stack events, with the demo incident. */
  readonly telemetry: SandboxTelemetry;
  /** The sandbox's MCP server (local/mcp/inventory-server.ts): the flag changes its mutating tool made. */
  readonly mcp: InventoryMcp;
  /** The history MCP server's URL (SigV4 with a sandbox access key), when the configuration enables it. */
  readonly historyMcpUrl?: string;
  /** The synthesized template this sandbox runs. */
  readonly template: CloudFormationTemplate;
  /** Resolves when the inbox is empty and every Slack event so far went through the ingress. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}
