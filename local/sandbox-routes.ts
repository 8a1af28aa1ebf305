import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoConversationStore } from '../lambdas/adapters/dynamo-store.ts';
import { type SandboxModule, workflowViews } from '../statemachines/module-sandbox.ts';
import { SANDBOX_MODULES } from '../statemachines/sandbox-modules.ts';
import { activityCount } from './activity.ts';
import type { ChangeFeed } from './change-feed.ts';
import { serveConsole } from './console-files.ts';
import { pressButton } from './sandbox-button-press.ts';
import { SandboxConversations } from './sandbox-conversations.ts';
import type { FakeSlack } from './sandbox-slack.ts';
import type { SlackFile } from './slack/types.ts';
import { toAwsHistory } from './stepfunctions/aws-history.ts';
import type { LocalStepFunctions } from './stepfunctions/runtime.ts';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './template.ts';

/**
 * The sandbox's own JSON surface, which tests, the web console and anyone driving the
 * sandbox by hand rely on: health, the fake workspace, conversations, executions, a stream
 * of change events, and the console's files.
 */

export interface SandboxRouteDeps {
  slack: FakeSlack;
  stepFunctions: LocalStepFunctions;
  store: DynamoConversationStore;
  dynamodb: DynamoDBClient;
  tableName: string;
  botUserId: string;
  url: string;
  signingSecret: string;
  /** Conversations with an agent turn running right now (AgentTurn invocations in flight). */
  agentTurnsRunning: ReadonlyMap<string, number>;
  /** Where the built console is (`npm run build:console`). */
  consoleDir: string;
  /** The workflow modules the sandbox runs, for their own views of their conversations. @default SANDBOX_MODULES */
  modules?: readonly SandboxModule[];
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

export function createSandboxRoutes(deps: SandboxRouteDeps, feed: ChangeFeed) {
  const { slack, stepFunctions, store } = deps;
  const workspace = slack.workspace;

  const conversations = new SandboxConversations(
    deps.dynamodb,
    deps.tableName,
    deps.agentTurnsRunning,
    deps.modules ?? SANDBOX_MODULES,
  );
  // Each workflow's own view (its metrics, its document), by workflow name.
  const views = workflowViews(deps.modules ?? SANDBOX_MODULES, {
    client: deps.dynamodb,
    tableName: deps.tableName,
  });

  return async (req: IncomingMessage, res: ServerResponse, body: string, path: string): Promise<void> => {
    const query = new URL(req.url ?? '/', 'http://sandbox').searchParams;
    const method = req.method ?? 'GET';
    if (method === 'GET' && path === '/healthz') return sendJson(res, 200, { ok: true });
    // How much work the sandbox has done (local/activity.ts): what a caller waiting on it from
    // another process reads to tell a slow sandbox from a stuck one. Reading it is not work.
    if (method === 'GET' && path === '/sandbox/activity')
      return sendJson(res, 200, { count: activityCount() });
    if (method === 'GET' && path === '/sandbox/events') return feed.subscribe(res);
    if (method === 'GET' && path === '/sandbox/slack/channels') {
      return sendJson(res, 200, { bot_user_id: deps.botUserId, channels: workspace.channels() });
    }
    if (method === 'GET' && path === '/sandbox/slack/users') {
      return sendJson(res, 200, { users: workspace.users().filter((u) => u.id !== deps.botUserId) });
    }
    if (method === 'GET' && path === '/sandbox/slack/messages') {
      const channel = query.get('channel');
      if (!channel) return sendJson(res, 400, { error: 'channel is required' });
      const threadTs = query.get('thread_ts');
      let messages: ReturnType<typeof workspace.messages>;
      try {
        messages = workspace.messages({ channel, ...(threadTs ? { thread_ts: threadTs } : {}) });
      } catch (error) {
        return sendJson(res, 404, { error: (error as Error).message });
      }
      if (threadTs) return sendJson(res, 200, { messages: messages.map(withFileShares) });
      // Top-level messages say how many replies they have and which conversation owns their thread.
      const channelId = workspace.channelId(channel);
      const enriched = await Promise.all(
        messages.map(async (m) => {
          const link = await store.findThread(channelId, m.ts).catch(() => undefined);
          const replies = workspace.replies(channelId, m.ts).length;
          return {
            ...withFileShares(m),
            ...(replies > 0 ? { reply_count: replies } : {}),
            ...(link ? { conversation_id: link.conversationId } : {}),
          };
        }),
      );
      return sendJson(res, 200, { messages: enriched });
    }
    const fileMatch = /^\/sandbox\/slack\/files\/([^/]+)$/.exec(path);
    if (method === 'GET' && fileMatch) {
      const id = decodeURIComponent(fileMatch[1] ?? '');
      const file = slack.workspace.files().find((f) => f.id === id);
      if (!file) return sendJson(res, 404, { error: `no file ${id}` });
      // Shown as text whatever it holds: the bot uploads text, and nothing in it may run here.
      res.writeHead(200, {
        'content-type': 'text/plain; charset=utf-8',
        'x-content-type-options': 'nosniff',
        'content-disposition': `inline; filename="${file.filename.replace(/[^\w.-]/g, '_')}"`,
      });
      return void res.end(file.content);
    }
    if (method === 'POST' && path === '/sandbox/slack/post') {
      const parsed = parsePost(body);
      if ('error' in parsed) return sendJson(res, 400, parsed);
      try {
        const { ts } = workspace.postAsUser(parsed);
        // Answer once the ingress has accepted the event, so callers can rely on it being queued
        // (other threads' deliveries go on beside it).
        await workspace.settled({ channel: parsed.channel, ts });
        return sendJson(res, 200, { ts });
      } catch (error) {
        return sendJson(res, 400, { error: (error as Error).message });
      }
    }
    if (method === 'POST' && path === '/sandbox/slack/action')
      return void (await pressButton(deps, body, res));
    if (method === 'GET' && path === '/sandbox/conversations') {
      return sendJson(res, 200, { conversations: await conversations.list() });
    }
    const conversationMatch = /^\/sandbox\/conversations\/([^/]+)$/.exec(path);
    if (method === 'GET' && conversationMatch) {
      const id = decodeURIComponent(conversationMatch[1] ?? '');
      const conversation = await store.getConversation(id, { consistent: true });
      if (!conversation) {
        // A module's conversation without a kernel record (a channel conversation) has no
        // execution; its ledger is its own.
        const channel = await conversations.recordDetail(id);
        if (!channel) return sendJson(res, 404, { error: `no conversation ${id}` });
        return sendJson(res, 200, {
          conversation: { ...channel.conversation, ledger: channel.ledger },
          messages: channel.messages,
          executions: [],
        });
      }
      const messages = await store.listMessages(id);
      const ownExecutions = stepFunctions
        .listExecutions()
        .filter((e) => e.name === id || e.name.startsWith(`${id}-`));
      const executions = ownExecutions.map((e) => ({
        name: e.name,
        status: e.status,
        startDate: e.startDate.toISOString(),
      }));
      // State transitions are the runtime's to count (Step Functions bills them): the sandbox
      // counts the states its executions entered; the handlers keep tokens and Lambda time.
      const transitions = ownExecutions
        .flatMap((e) => stepFunctions.getExecutionHistory(e.executionArn))
        .filter((event) => event.type === 'StateEntered').length;
      // A workflow's own metrics and document (its module's `sandboxView`) join the ledger.
      const view = await views.get(conversation.workflow)?.(id);
      const workflowMetrics = view?.metrics;
      const workflowDocument = view?.document;
      return sendJson(res, 200, {
        conversation: {
          ...conversations.kernelView(conversation, messages),
          ledger: { ...conversation.ledger, transitions },
          ...(workflowMetrics ? { workflowMetrics } : {}),
          ...(workflowDocument ? { workflowDocument } : {}),
        },
        messages: messages.map(({ ttl: _ttl, ...m }) => m),
        executions,
      });
    }
    if (method === 'GET' && path === '/sandbox/executions') {
      const executions = stepFunctions.listExecutions().map((e) => ({
        name: e.name,
        stateMachine: e.stateMachineArn.slice(e.stateMachineArn.lastIndexOf(':') + 1),
        status: e.status,
        startDate: e.startDate.toISOString(),
      }));
      return sendJson(res, 200, { executions });
    }
    const executionMatch = /^\/sandbox\/executions\/([^/]+)$/.exec(path);
    if (method === 'GET' && executionMatch) {
      const name = decodeURIComponent(executionMatch[1] ?? '');
      const summary = stepFunctions.listExecutions().find((e) => e.name === name);
      if (!summary) return sendJson(res, 404, { error: `no execution named ${name}` });
      const execution = stepFunctions.describeExecution(summary.executionArn);
      const machine = stepFunctions.describeStateMachine(summary.stateMachineArn);
      const events = toAwsHistory(stepFunctions.getExecutionHistory(summary.executionArn), {
        region: LOCAL_REGION,
        roleArn: `arn:aws:iam::${LOCAL_ACCOUNT}:role/sandbox`,
      }).map(historyEntry);
      return sendJson(res, 200, {
        name,
        status: execution.status,
        stateMachine: machine.name,
        input: JSON.parse(execution.input),
        ...(execution.output !== undefined ? { output: JSON.parse(execution.output) } : {}),
        ...(execution.error !== undefined ? { error: execution.error, cause: execution.cause } : {}),
        definition: JSON.parse(machine.definition),
        events,
      });
    }
    if (method === 'GET' && !path.startsWith('/sandbox/')) return serveConsole(deps.consoleDir, path, res);
    return sendJson(res, 404, { error: `no route ${method} ${path}` });
  };
}

/** Characters of a shared file the message list carries: the console shows them as a preview. */
export const FILE_PREVIEW_CHARS = 1_200;

/**
 * A message with its shared files as the fake Slack keeps them (content included, which tests
 * read), plus what the console shows: size, a preview, and where the whole file is served.
 */
function withFileShares<M extends { files?: SlackFile[] }>(message: M) {
  if (!message.files) return message;
  return {
    ...message,
    files: message.files.map((file) => ({
      ...file,
      size: Buffer.byteLength(file.content, 'utf8'),
      preview: file.content.slice(0, FILE_PREVIEW_CHARS),
      truncated: file.content.length > FILE_PREVIEW_CHARS,
      url: `/sandbox/slack/files/${encodeURIComponent(file.id)}`,
    })),
  };
}

function historyEntry(event: { type: string; timestamp: number; [key: string]: unknown }) {
  const details = Object.entries(event).find(([key]) => key.endsWith('EventDetails'))?.[1] as
    | { name?: string; input?: string; output?: string; parameters?: string; error?: string; cause?: string }
    | undefined;
  return {
    type: event.type,
    ...(details?.name ? { stateName: details.name } : {}),
    timestamp: new Date(event.timestamp * 1000).toISOString(),
    ...(details?.input !== undefined ? { input: details.input } : {}),
    ...(details?.output !== undefined ? { output: details.output } : {}),
    // A service integration's request (a build's SourceVersion, say), as the Task sent it.
    ...(details?.parameters !== undefined ? { parameters: details.parameters } : {}),
    ...(details?.error !== undefined ? { error: details.error } : {}),
  };
}

function parsePost(
  body: string,
): { channel: string; user: string; text: string; thread_ts?: string } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { error: 'body must be JSON: {channel, user, text, thread_ts?}' };
  }
  const v = value as Record<string, unknown>;
  if (typeof v.channel !== 'string' || typeof v.user !== 'string' || typeof v.text !== 'string') {
    return { error: 'channel, user and text are required strings' };
  }
  if (v.thread_ts !== undefined && typeof v.thread_ts !== 'string')
    return { error: 'thread_ts must be a string' };
  return {
    channel: v.channel,
    user: v.user,
    text: v.text,
    ...(typeof v.thread_ts === 'string' ? { thread_ts: v.thread_ts } : {}),
  };
}
