/**
 * The sandbox's JSON API, as the console reads it (local/sandbox-routes.ts serves it).
 * Shapes are the sandbox's own; the console only reads what it shows.
 */

import type {
  Anchor,
  ConversationView as ConversationSummary,
  MessageView as StoredMessage,
} from '../../statemachines/sandbox-views.ts';

export type { Anchor, ConversationSummary, StoredMessage };

export interface Channel {
  id: string;
  name: string;
}

export interface User {
  id: string;
  name: string;
  realName?: string;
}

/** A file shared with a message (`files.uploadV2`): its name, a preview, and where the whole file is. */
export interface FileShare {
  id: string;
  title: string;
  filename: string;
  /** Bytes. */
  size: number;
  /** The file's beginning, as text. */
  preview: string;
  /** Whether the preview is shorter than the file. */
  truncated: boolean;
  /** The whole file, served by the sandbox as text. */
  url: string;
}

export interface Message {
  ts: string;
  thread_ts?: string;
  user?: string;
  bot?: boolean;
  text: string;
  blocks?: unknown[];
  files?: FileShare[];
  reply_count?: number;
  conversation_id?: string;
  /** Sent with `chat.postEphemeral` (or a command's answer): only its one reader sees it. */
  ephemeral?: boolean;
}

export interface Ledger {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  /** The model calls' estimated cost in micro-dollars (lambdas/agents/pricing.ts). */
  costMicroUsd?: number;
  transitions?: number;
  lambdaMs?: number;
  /** Secrets and personal data the redaction layer replaced in the conversation: counts, never values. */
  redactedSecrets?: number;
  redactedPii?: number;
  /** The same by `family:kind` (`secret:aws-access-key`). */
  redactedKinds?: Record<string, number>;
}

export interface ExecutionSummary {
  name: string;
  status: string;
  startDate: string;
  stateMachine?: string;
}

export interface ConversationDetail {
  conversation: ConversationSummary & {
    ledger: Ledger;
    /** The workflow's own metrics (the incident investigation's AgentMetrics), once stored. */
    workflowMetrics?: Record<string, number | string>;
    /** The workflow's own document (the issue pipeline's state document), when it keeps one. */
    workflowDocument?: unknown;
  };
  messages: StoredMessage[];
  executions: ExecutionSummary[];
}

export interface HistoryEvent {
  type: string;
  stateName?: string;
  timestamp: string;
  input?: string;
  output?: string;
  /** A service integration Task's request parameters (JSON). */
  parameters?: string;
  error?: string;
}

export interface ExecutionDetail {
  name: string;
  status: string;
  stateMachine: string;
  input: unknown;
  output?: unknown;
  error?: string;
  cause?: string;
  definition: unknown;
  events: HistoryEvent[];
}

/** A repository of the sandbox's GitHub, as `/sandbox/github/repos/{owner}/{repo}` shows it. */
export interface RepositoryPage {
  repository: { full_name: string; default_branch: string };
  branches: {
    name: string;
    sha: string;
    ahead_by: number;
    commits: { sha: string; message: string; author: string; date: string }[];
  }[];
  pulls: {
    number: number;
    title: string;
    state: string;
    draft?: boolean;
    head?: string;
    base?: string;
    html_url: string;
  }[];
}

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A call to the sandbox's JSON API: GET, or POST with a JSON body; a failure is an ApiError. */
export async function request<T>(path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) {
    let message = text;
    try {
      message = (JSON.parse(text) as { error?: string }).error ?? text;
    } catch {
      // not JSON: keep the text
    }
    throw new ApiError(response.status, `${path}: ${response.status} ${message}`);
  }
  return JSON.parse(text) as T;
}

const q = encodeURIComponent;

export const api = {
  channels: () => request<{ bot_user_id: string; channels: Channel[] }>('/sandbox/slack/channels'),
  users: () => request<{ users: User[] }>('/sandbox/slack/users'),
  messages: (channel: string, threadTs?: string) =>
    request<{ messages: Message[] }>(
      `/sandbox/slack/messages?channel=${q(channel)}${threadTs ? `&thread_ts=${q(threadTs)}` : ''}`,
    ),
  post: (input: { channel: string; user: string; text: string; thread_ts?: string }) =>
    request<{ ts: string }>('/sandbox/slack/post', input),
  action: (input: {
    channel: string;
    user: string;
    message_ts: string;
    action_id: string;
    value?: string;
    block_id?: string;
  }) => request<{ ok: true }>('/sandbox/slack/action', input),
  conversations: () => request<{ conversations: ConversationSummary[] }>('/sandbox/conversations'),
  conversation: (id: string) => request<ConversationDetail>(`/sandbox/conversations/${q(id)}`),
  execution: (name: string) => request<ExecutionDetail>(`/sandbox/executions/${q(name)}`),
  repositories: () =>
    request<{ repositories: { full_name: string; default_branch: string }[] }>('/sandbox/github/repos'),
  repository: (fullName: string) => {
    const [owner = '', repo = ''] = fullName.split('/');
    return request<RepositoryPage>(`/sandbox/github/repos/${q(owner)}/${q(repo)}`);
  },
};
