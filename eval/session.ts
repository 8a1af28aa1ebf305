import type { SlackAgentsConfigInput } from '../infra/config.ts';
import { DynamoConversationStore } from '../lambdas/adapters/dynamo-store.ts';
import { DEMO_MODEL_ID } from '../local/model/demo-model.ts';
import { DEMO_MODEL_PATH, type Sandbox, startSandbox } from '../local/sandbox.ts';
import { slashCommandForm } from '../local/sandbox-console-doors.ts';
import { DEMO_MODEL_PRICE_ENV } from '../local/sandbox-models.ts';
import { postSignedForm } from '../local/slack/sign.ts';
import { configuredJudge, type JudgeTransport } from './graders/judge.ts';
import { recordingJudge, replayJudge } from './graders/judge-recording.ts';
import { type ModelProxy, type Recording, startModelProxy } from './model-proxy.ts';

/**
 * One case's sandbox: the offline runtime started in this process (the real state machines,
 * Lambda handlers, emulators and budgets), its model calls going through the harness's model
 * proxy to the configured model (or the offline demo model, or a recording), and the few
 * Slack moves a case makes (post, slash command, read a channel).
 */

export type SlackMessage = { ts: string; thread_ts?: string; user?: string; bot?: boolean; text: string };

export interface ModelChoice {
  /** `demo`: the sandbox's offline demo model; `live`: ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY of the caller. */
  kind: 'demo' | 'live' | 'replay';
  /** The model id the stack is configured with (live runs). */
  id?: string;
  /**
   * The stack's model provider. `bedrock`: the agents call the sandbox's Bedrock Runtime emulator
   * through the stack's Bedrock adapter; it hands each call on to the Messages API model.
   */
  provider?: 'anthropic' | 'bedrock';
  recording?: Recording;
}

export interface ExecutionView {
  status: string;
  error?: string;
  cause?: string;
  /** When it ended (the sandbox's clock, which is real time), once it has. */
  stopDate?: Date;
  history: readonly {
    type: string;
    timestamp?: Date;
    input?: unknown;
    output?: unknown;
    error?: string;
    cause?: string;
  }[];
}

export interface Session {
  sandbox: Sandbox;
  proxy: ModelProxy;
  /** The judge for this case's judged checks: recorded with the model's exchanges, replayed from them; undefined when there is none. */
  judge: JudgeTransport | undefined;
  store: DynamoConversationStore;
  post(channel: string, user: string, text: string, threadTs?: string): Promise<string>;
  messages(channel: string, threadTs?: string): Promise<SlackMessage[]>;
  slash(command: string, text: string, channel: string, user: string, triggerId: string): Promise<void>;
  /** The status of the execution named `name` (`RUNNING`, `SUCCEEDED`...), undefined before it starts. */
  executionStatus(name: string): string | undefined;
  /** The execution named `name`: its status, error and cause, and its history; undefined before it starts. */
  execution(name: string): ExecutionView | undefined;
  stop(): Promise<void>;
}

/**
 * The handlers' model environment in a session: every call through the harness's proxy, and the
 * offline demo model priced as the sandbox prices it ($0), so a demo run's cost is the console's;
 * so is a replay of a demo run's recording (`recordedModel`), which costs what its recording did.
 */
export function sessionModelEnv(
  kind: ModelChoice['kind'],
  proxyUrl: string,
  key: string | undefined,
  recordedModel?: string,
): Record<string, string> {
  const demo = kind === 'demo' || (kind === 'replay' && recordedModel === DEMO_MODEL_ID);
  return {
    ANTHROPIC_BASE_URL: proxyUrl,
    ANTHROPIC_API_KEY: key ?? 'eval-no-key',
    MODEL_MAX_RETRIES: '2',
    ...(demo ? DEMO_MODEL_PRICE_ENV : {}),
  };
}

export async function startSession(options: {
  config: SlackAgentsConfigInput;
  model: ModelChoice;
  timeScale: number;
}): Promise<Session> {
  const upstream =
    options.model.kind === 'live'
      ? (process.env.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com')
      : undefined;
  const proxy = await startModelProxy({
    ...(upstream ? { upstream } : {}),
    ...(options.model.kind === 'replay' && options.model.recording
      ? { replay: options.model.recording }
      : {}),
  });
  const key = options.model.kind === 'live' ? process.env.ANTHROPIC_API_KEY : undefined;
  let sandbox: Sandbox;
  try {
    sandbox = await startSandbox({
      port: 0,
      timeScale: options.timeScale,
      config: {
        ...options.config,
        ...(options.model.id || options.model.provider
          ? {
              model: {
                provider: options.model.provider ?? 'anthropic',
                ...(options.model.id ? { id: options.model.id } : {}),
              },
            }
          : {}),
      },
      env: sessionModelEnv(options.model.kind, proxy.url, key, options.model.recording?.model),
      telemetry: { demoSeed: false },
      logLevel: 'SILENT',
    });
  } catch (error) {
    await proxy.close();
    throw error;
  }
  if (options.model.kind === 'demo') proxy.setUpstream(`${sandbox.url}${DEMO_MODEL_PATH}`);
  const api = async <T>(path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${sandbox.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as T;
  };
  const configured = configuredJudge();
  const judge =
    options.model.kind === 'replay'
      ? replayJudge(options.model.recording?.judge ?? [], configured)
      : configured && recordingJudge(configured, proxy.judged);
  return {
    sandbox,
    proxy,
    judge,
    store: new DynamoConversationStore({ client: sandbox.dynamodb, tableName: sandbox.tableName }),
    async post(channel, user, text, threadTs) {
      return (
        await api<{ ts: string }>('/sandbox/slack/post', {
          channel,
          user,
          text,
          ...(threadTs ? { thread_ts: threadTs } : {}),
        })
      ).ts;
    },
    async messages(channel, threadTs) {
      const query = `channel=${channel}${threadTs ? `&thread_ts=${threadTs}` : ''}`;
      return (await api<{ messages: SlackMessage[] }>(`/sandbox/slack/messages?${query}`)).messages;
    },
    async slash(command, text, channel, user, triggerId) {
      const { teamId, appId } = sandbox.slack.workspace;
      const form = slashCommandForm({
        teamId,
        appId,
        channel: { id: channel, name: channel.toLowerCase() },
        user: { id: user, name: user.toLowerCase() },
        command,
        text,
        triggerId,
        responseUrl: 'https://hooks.slack.invalid/commands/1',
      });
      const response = await postSignedForm({ url: sandbox.url, signingSecret: sandbox.signingSecret, form });
      if (response.status !== 200) throw new Error(`${command} answered ${response.status}`);
    },
    executionStatus: (name) => sandbox.stepFunctions.listExecutions().find((e) => e.name === name)?.status,
    execution(name) {
      const found = sandbox.stepFunctions.listExecutions().find((e) => e.name === name);
      if (!found) return undefined;
      const described = sandbox.stepFunctions.describeExecution(found.executionArn);
      return {
        status: described.status,
        ...(described.error !== undefined ? { error: described.error } : {}),
        ...(described.cause !== undefined ? { cause: described.cause } : {}),
        ...(described.stopDate !== undefined ? { stopDate: described.stopDate } : {}),
        history: sandbox.stepFunctions.getExecutionHistory(found.executionArn),
      };
    },
    async stop() {
      await sandbox.stop();
      await proxy.close();
    },
  };
}

/** Polls `probe` every `intervalMs` until it returns something other than undefined, or the deadline passes. */
export async function poll<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  deadline: number,
  intervalMs = 100,
): Promise<T | undefined> {
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch {
      // Not there yet (an item not written, an execution not started).
    }
    if (Date.now() >= deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
