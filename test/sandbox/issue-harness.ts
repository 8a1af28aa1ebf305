import { Octokit } from '@octokit/rest';
import type { SlackAgentsConfigInput } from '../../infra/config.ts';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { conversationIdFor } from '../../lambdas/kernel/keys.ts';
import { DynamoIssueStateStore } from '../../lambdas/workflows/issue-pipeline/adapters/dynamo-issue-state.ts';
import type { Sandbox } from '../../local/sandbox-options.ts';
import { buildMemoOption } from '../support/build-memo.ts';
import { eventually, until } from '../support/eventually.ts';
import { workerSandbox } from '../support/sandbox.ts';
import {
  type SlackMessage as Message,
  type SandboxDriver,
  sandboxDriver,
} from '../support/sandbox-driver.ts';
import {
  type ModelReply,
  noStepLeft,
  type RecordedModelRequest,
  startScriptedModel,
  toolUse,
} from '../support/scripted-model.ts';

/**
 * A sandbox running the issue pipeline on `demo/webshop` with a scripted model: each pipeline
 * (issue) gets its own script, taken in order across its agents' turns, and every request the
 * model received is kept for assertions.
 */

export const REPO = { owner: 'demo', repo: 'webshop' } as const;
export const PIPELINE_CHANNEL = 'C_DEVELOPERS';
export type Step = ModelReply | ((request: RecordedModelRequest) => ModelReply | Promise<ModelReply>);

export const pipelineIdFor = (issue: number) =>
  conversationIdFor('issue_pipeline', `github:${REPO.owner}/${REPO.repo}`, String(issue));

export interface IssueHarness {
  sandbox: Sandbox;
  /** Slack's moves in the sandbox (a slash command, an event, a press) and the waits for what follows. */
  driver: SandboxDriver;
  store: DynamoConversationStore;
  documents: DynamoIssueStateStore;
  github: Octokit;
  modelFailures: string[];
  requestsOf(pipelineId: string): RecordedModelRequest[];
  script(pipelineId: string, steps: Step[]): void;
  /** Opens an issue labelled `agent` (the pipeline's trigger); returns its number. */
  openIssue(title: string, body: string, labels?: string[]): Promise<number>;
  comment(issue: number, body: string, user: string): Promise<void>;
  setPermission(user: string, permission: 'admin' | 'write' | 'read' | 'none'): Promise<void>;
  post(channel: string, user: string, text: string, threadTs?: string): Promise<string>;
  messages(channel: string, threadTs?: string): Promise<Message[]>;
  waitFor<T>(
    probe: () => Promise<T>,
    accept: (value: T) => boolean,
    what: string,
    seconds?: number,
  ): Promise<T>;
  stop(): Promise<void>;
}

function pipelineIdOf(request: RecordedModelRequest): string | undefined {
  return /Issue pipeline id: \\?"([^"\\]+)\\?"/.exec(JSON.stringify(request.body.messages))?.[1];
}

export async function startIssueHarness(
  config: SlackAgentsConfigInput = {},
  options: {
    model?: 'scripted' | 'demo';
    env?: Record<string, string>;
    /**
     * Replay a checks build of a tree, buildspec and environment already built in this run
     * instead of running its commands again (local/codebuild/build-memo.ts): the judge still
     * reads the build's phases, log and test report through CodeBuild's API. For scenarios that
     * only need a build's outcome, never one that stops, times out or watches a build run.
     * @default false
     */
    buildMemo?: boolean;
  } = {},
): Promise<IssueHarness> {
  const scripted = options.model !== 'demo';
  const scripts = new Map<string, Step[]>();
  const requests = new Map<string, RecordedModelRequest[]>();
  const model = await startScriptedModel({
    steps: async (request) => {
      const id = pipelineIdOf(request);
      if (!id) throw new Error('a model request without a pipeline id in its prompt');
      await until(() => scripts.has(id), `a script for ${id}`, 5_000).catch(() => false);
      const step = scripts.get(id)?.shift();
      if (!step) throw noStepLeft(id, request, requests.get(id) ?? []);
      requests.set(id, [...(requests.get(id) ?? []), request]);
      return typeof step === 'function' ? step(request) : step;
    },
  });
  const sandbox = await workerSandbox({
    timeScale: 0.001,
    config: {
      ...config,
      issuePipeline: { repository: 'demo/webshop', ...(config.issuePipeline as object | undefined) },
    },
    // Without model settings the sandbox's offline demo model plays the agents. The code tools'
    // tarball cache is the sandbox's own (it names one per sandbox, kept while later files of
    // this worker reuse it), so files with the same settings share one sandbox.
    env: {
      ...(scripted
        ? { ANTHROPIC_BASE_URL: model.baseUrl, ANTHROPIC_API_KEY: 'test-key', MODEL_MAX_RETRIES: '2' }
        : {}),
      ...options.env,
    },
    logLevel: 'SILENT',
    ...buildMemoOption(options.buildMemo),
  });
  const driver = sandboxDriver(() => sandbox);
  const { api } = driver;
  const repo = `${REPO.owner}/${REPO.repo}`;
  return {
    sandbox,
    driver,
    store: new DynamoConversationStore({ client: sandbox.dynamodb, tableName: sandbox.tableName }),
    documents: new DynamoIssueStateStore({ client: sandbox.dynamodb, tableName: sandbox.tableName }),
    github: new Octokit({
      baseUrl: sandbox.github.apiUrl,
      auth: sandbox.github.createUserToken('demo-maintainer'),
    }),
    modelFailures: model.failures,
    requestsOf: (id) => requests.get(id) ?? [],
    script(id, steps) {
      scripts.set(id, [...(scripts.get(id) ?? []), ...steps]);
    },
    async openIssue(title, body, labels = ['agent']) {
      return (await api<{ number: number }>('/sandbox/github/issues', { repo, title, body, labels })).number;
    },
    async comment(issue, body, user) {
      await api('/sandbox/github/comments', { repo, issue, body, user });
    },
    async setPermission(user, permission) {
      await api('/sandbox/github/collaborators', { repo, user, permission });
    },
    post: driver.post,
    messages: driver.messages,
    waitFor: (probe, accept, what, seconds = 60) => eventually(probe, accept, what, seconds * 1000),
    async stop() {
      await sandbox.stop();
      await model.close();
    },
  };
}

/** An agent's final tool call. */
export const submitAs = (tool: string, input: unknown): ModelReply => toolUse(tool, input);

/** The ts of issue `issue`'s progress message in the pipeline's channel: the thread it asks in. */
export async function progressThreadOf(h: IssueHarness, issue: number): Promise<string> {
  const top = await h.waitFor(
    async () => (await h.messages(PIPELINE_CHANNEL)).filter((m) => m.bot && m.text.includes(`#${issue} `)),
    (ms) => ms.length === 1,
    'the progress message',
  );
  return top[0]?.ts ?? '';
}

/**
 * Waits until the progress message (`thread`) and a comment on the issue both say `text`, as
 * they do just after the pipeline ends; returns the message's text and the comments.
 */
export async function toldInSlackAndOnIssue(
  h: IssueHarness,
  issue: number,
  thread: string,
  text: string,
): Promise<{ slack: string; comments: string[] }> {
  const slack = await h.waitFor(
    async () => (await h.messages(PIPELINE_CHANNEL)).find((m) => m.ts === thread)?.text ?? '',
    (said) => said.includes(text),
    'the reason in Slack',
  );
  const comments = await h.waitFor(
    async () =>
      (await h.github.rest.issues.listComments({ ...REPO, issue_number: issue })).data.map(
        (c) => c.body ?? '',
      ),
    (bodies) => bodies.some((b) => b.includes(text)),
    'the reason on the issue',
  );
  return { slack, comments };
}
