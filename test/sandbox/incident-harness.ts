import { afterAll, beforeAll, expect } from 'vitest';
import type { SlackAgentsConfigInput } from '../../infra/config.ts';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { conversationIdFor } from '../../lambdas/kernel/keys.ts';
import { DynamoIncidentStore } from '../../lambdas/workflows/incident-investigation/adapters/dynamo-incident-store.ts';
import type { Sandbox } from '../../local/sandbox-options.ts';
import { until } from '../support/eventually.ts';
import { workerSandbox } from '../support/sandbox.ts';
import {
  type SlackMessage as Message,
  type SandboxDriver,
  sandboxDriver,
} from '../support/sandbox-driver.ts';
import {
  lastToolResults,
  type ModelReply,
  type RecordedModelRequest,
  startScriptedModel,
  toolResultText,
  toolUse,
} from '../support/scripted-model.ts';
import { promptOfTurn } from './bug-harness.ts';

/**
 * The incident investigation's sandbox scenarios: `/investigate` as a signed slash command,
 * the incident thread's posts, the stored record and tree, and a scripted model whose replies
 * are queued per phase (its final tool: `submit_triage`...) and, for the investigator, per
 * hypothesis (`submit_evaluation:H2`), because the hypotheses of a round are investigated in
 * parallel and their requests interleave.
 */

export const INCIDENTS = 'C_INCIDENTS';
export const OPS = 'C_OPS';
export const RESPONDER = 'U_RESPONDER';
export const APPROVER = 'U_ONCALL';
export const BYSTANDER = 'U_THIRD';

export type Step = ModelReply | ((request: RecordedModelRequest) => ModelReply | Promise<ModelReply>);
/** Replies by queue: `submit_triage`, `submit_hypotheses`, `submit_evaluation:H1`, `submit_conclusion`, `submit_remediation_plan`. */
export type Script = Record<string, Step[]>;

type Execution = {
  name: string;
  status: string;
  /** The error and cause it failed with, when it failed. */
  error?: string;
  cause?: string;
  events: { type: string; stateName?: string }[];
};

export interface IncidentHarness {
  sandbox: Sandbox;
  /** Slack's moves in the sandbox (a slash command, an event, a press) and the waits for what follows. */
  driver: SandboxDriver;
  store: DynamoConversationStore;
  incidents: DynamoIncidentStore;
  modelFailures: string[];
  /** Every model request of the incident, with the queue it was answered from. */
  requestsOf(id: string): { queue: string; request: RecordedModelRequest }[];
  script(id: string, script: Script): void;
  post(channel: string, user: string, text: string, threadTs?: string): Promise<string>;
  press(channel: string, user: string, messageTs: string, actionId: string, value: string): Promise<void>;
  messages(channel: string, threadTs?: string): Promise<Message[]>;
  execution(name: string): Promise<Execution>;
  eventually<T>(probe: () => Promise<T>, accept: (value: T) => boolean, what: string): Promise<T>;
  stop(): Promise<void>;
}

/** The queue a request is answered from: its final tool, and for an investigator its hypothesis. */
export function queueOf(request: RecordedModelRequest): string {
  const submit = (request.body.tools?.at(-1) as { name?: string } | undefined)?.name ?? 'unknown';
  if (submit !== 'submit_evaluation') return submit;
  const hypothesis = /You investigate hypothesis (H[\d.]+)/.exec(promptOfTurn(request))?.[1];
  return `${submit}:${hypothesis ?? 'unknown'}`;
}

function incidentIdOf(request: RecordedModelRequest): string | undefined {
  for (const message of request.body.messages) {
    const blocks =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    for (const block of blocks) {
      if (block.type !== 'text') continue;
      const match = /Incident id: "([^"]+)"/.exec((block as { text: string }).text);
      if (match?.[1]) return match[1];
    }
  }
  return undefined;
}

export async function startIncidentHarness(
  config: SlackAgentsConfigInput = {},
  options: { model?: 'scripted' | 'demo'; env?: Record<string, string> } = {},
): Promise<IncidentHarness> {
  const scripts = new Map<string, Script>();
  const requests = new Map<string, { queue: string; request: RecordedModelRequest }[]>();
  const model = await startScriptedModel({
    steps: async (request) => {
      const id = incidentIdOf(request);
      if (!id) throw new Error('a model request without an incident id in its prompt');
      await until(() => scripts.has(id), `a script for ${id}`, 5_000).catch(() => false);
      const queue = queueOf(request);
      const step = scripts.get(id)?.[queue]?.shift();
      if (!step) throw new Error(`the script of ${id} has no step left in ${queue}`);
      requests.set(id, [...(requests.get(id) ?? []), { queue, request }]);
      return typeof step === 'function' ? step(request) : step;
    },
  });
  const sandbox = await workerSandbox({
    timeScale: 0.001,
    config: { channels: { incidents: INCIDENTS }, ...config },
    // `demo`: the sandbox's offline demo model plays the agents, as in `npm run dev`.
    env: {
      ...(options.model === 'demo'
        ? {}
        : { ANTHROPIC_BASE_URL: model.baseUrl, ANTHROPIC_API_KEY: 'test-key', MODEL_MAX_RETRIES: '2' }),
      ...options.env,
    },
    logLevel: 'SILENT',
  });
  const store = new DynamoConversationStore({ client: sandbox.dynamodb, tableName: sandbox.tableName });
  const incidents = new DynamoIncidentStore({ client: sandbox.dynamodb, tableName: sandbox.tableName });
  const driver = sandboxDriver(() => sandbox, { stallMs: 60_000 });
  return {
    sandbox,
    driver,
    store,
    incidents,
    modelFailures: model.failures,
    requestsOf: (id) => requests.get(id) ?? [],
    script(id, script) {
      const current = scripts.get(id) ?? {};
      for (const [queue, steps] of Object.entries(script))
        current[queue] = [...(current[queue] ?? []), ...steps];
      scripts.set(id, current);
    },
    post: driver.post,
    async press(channel, user, messageTs, actionId, value) {
      const response = await driver.press({ channel, user, messageTs, actionId, value });
      if (!response.ok) throw new Error(`the press answered ${response.status}: ${await response.text()}`);
    },
    messages: driver.messages,
    execution: (name) => driver.api<Execution>(`/sandbox/executions/${name}`),
    eventually: driver.eventually,
    async stop() {
      await sandbox.stop();
      await model.close();
    },
  };
}

/** A sandbox for the calling file's tests, checked to have had no unexpected model call. */
export function useIncidentHarness(
  config: SlackAgentsConfigInput = {},
  options: { model?: 'scripted' | 'demo'; env?: Record<string, string> } = {},
): IncidentHarness {
  let started: IncidentHarness | undefined;
  beforeAll(async () => {
    started = await startIncidentHarness(config, options);
  });
  afterAll(async () => {
    await started?.stop();
    expect(started?.modelFailures ?? []).toEqual([]);
  });
  return new Proxy({} as IncidentHarness, {
    get(_, key) {
      if (!started) throw new Error('the sandbox harness is used before it started');
      const value: unknown = Reflect.get(started, key);
      return typeof value === 'function' ? value.bind(started) : value;
    },
  });
}

/** `/investigate <text>` typed by the responder in `channel`. Returns the conversation id. */
export async function slashInvestigate(
  h: IncidentHarness,
  triggerId: string,
  text: string,
  channel = OPS,
): Promise<string> {
  const response = await h.driver.slash({
    command: '/investigate',
    text,
    channel,
    user: RESPONDER,
    triggerId,
  });
  expect(response.status).toBe(200);
  return conversationIdFor('incident_investigation', channel, triggerId);
}

/** The incident's thread in the incidents channel. */
export async function threadOf(h: IncidentHarness, id: string): Promise<string> {
  const conversation = await h.eventually(
    () => h.store.getConversation(id, { consistent: true }),
    (c) => Object.values(c?.anchors ?? {}).some((a) => a.name === 'incident'),
    `the incident thread of ${id}`,
  );
  const anchor = Object.values(conversation?.anchors ?? {}).find((a) => a.name === 'incident');
  if (!anchor) throw new Error('no incident anchor');
  return anchor.threadTs;
}

export const finished = (h: IncidentHarness, id: string) =>
  h.eventually(
    () => h.execution(id),
    (e) => e.status !== 'RUNNING',
    `${id} to finish`,
  );

/** Submits `result` through the turn's own final tool (`submit_triage`, `submit_evaluation`...). */
export const answer = (result: unknown) => (request: RecordedModelRequest) =>
  toolUse((request.body.tools?.at(-1) as { name?: string } | undefined)?.name ?? 'submit_result', result);

/** A reply calling a data tool. */
export const query = (tool: string, args: unknown): ModelReply => toolUse(tool, args);

export const TRIAGE = {
  incident_summary: 'Checkout latency is high since 14:30 UTC.',
  affected_services: ['checkout', 'payment-api'],
  symptoms: ['p99 latency of checkout above 5 s'],
  error_messages: ['upstream timeout'],
  time_window: { start: '2015-11-23T14:00:00Z', end: '2015-11-23T15:00:00Z' },
  severity: 'high',
  related_knowledge: [],
};

export const hypothesis = (statement: string, category = 'dependency', priority = 1) => ({
  statement,
  category,
  priority,
  confirming_evidence: `${statement}: shows in the data`,
  refuting_evidence: `${statement}: absent from the data`,
  suggested_queries: [{ tool: 'query_logs', purpose: 'look for it' }],
});

export const HYPOTHESES = {
  hypotheses: [
    hypothesis('The payment provider times out', 'dependency', 1),
    hypothesis('The cache evicts under memory pressure', 'capacity', 2),
    hypothesis('A recent deploy of checkout regressed', 'application', 3),
  ],
};

export const evaluation = (
  id: string,
  action: 'branch' | 'prune' | 'confirm' | 'continue',
  strength: 'strong' | 'weak' | 'none' | 'contradicting',
  findings: { finding: string; evidence_ids: string[]; strength: 'strong' | 'weak' | 'contradicting' }[] = [],
  extra: Record<string, unknown> = {},
) => ({
  hypothesis_id: id,
  evidence_strength: strength,
  reasoning: `${id}: ${action}`,
  confidence: action === 'confirm' ? 90 : 20,
  action,
  findings,
  ...extra,
});

export const INCONCLUSIVE = {
  outcome: 'inconclusive',
  root_cause: 'Not established.',
  confidence: 'low',
  evidence_chain: [],
  alternative_explanations: [],
  unknowns: ['Whether the provider was slow'],
  gaps: ['No provider-side telemetry'],
};

export const NO_PLAN = {
  steps: [],
  estimated_recovery_time: 'unknown',
  monitoring: ['checkout p99 latency'],
};

/** The evidence id a data tool's result (the last tool result of the request) says to cite. */
export function evidenceIdOf(request: RecordedModelRequest): string {
  const [result] = lastToolResults(request.body);
  const id = result ? /Cite it as (ev-\d+)/.exec(toolResultText(result))?.[1] : undefined;
  if (!id)
    throw new Error(
      `no evidence id in the tool result: ${result ? toolResultText(result).slice(0, 300) : 'none'}`,
    );
  return id;
}

export type Button = { action_id: string; value: string; text: { text: string } };

/** The Approve and Reject buttons of the approval message of remediation step `step` (1-based), once posted. */
export async function stepButtons(
  h: IncidentHarness,
  thread: string,
  step: number,
): Promise<{ ts: string; approve: Button; reject: Button }> {
  const posts = await h.eventually(
    () => h.messages(INCIDENTS, thread),
    (list) => list.some((m) => m.bot && m.text.includes(`*Remediation step ${step} of`)),
    `the approval of step ${step}`,
  );
  const ts = posts.find((m) => m.bot && m.text.includes(`*Remediation step ${step} of`))?.ts ?? '';
  const blocks = (h.sandbox.slack.workspace.find(INCIDENTS, ts).blocks ?? []) as {
    type: string;
    elements?: Button[];
  }[];
  const [approve, reject] = blocks.find((b) => b.type === 'actions')?.elements ?? [];
  if (approve === undefined || reject === undefined)
    throw new Error(`step ${step}'s approval has no buttons`);
  return { ts, approve, reject };
}

/** The incident's conclusion with a confirmed root cause, without tools (the tree decides). */
export const ROOT_CAUSE = (hypothesisId: string, evidence: string[]) => ({
  outcome: 'root_cause',
  root_cause: 'The payment-api deploy made provider calls time out.',
  hypothesis_id: hypothesisId,
  confidence: 'medium',
  evidence_chain: evidence.map((id) => ({
    finding: `finding ${id}`,
    evidence_ids: [id],
    strength: 'strong',
  })),
  alternative_explanations: [],
  unknowns: [],
  gaps: [],
});

/** Skills of the sandbox's labelled demo target: a rollback skill and what undoes it. */
export const DEMO_SKILLS = {
  skills: [
    {
      name: 'rollback_deployment',
      description: 'Rolls a service back (demo)',
      target: { type: 'demo' as const },
      rollbackSkill: 'restore_deployment',
    },
    {
      name: 'restore_deployment',
      description: 'Restores the deployment (demo)',
      target: { type: 'demo' as const },
    },
  ],
};

/** An investigation that confirms H1 in round 1 with cited evidence, then plans `plan`. */
export function confirmThenPlan(h: IncidentHarness, id: string, plan: unknown) {
  let logs = '';
  let deploys = '';
  h.script(id, {
    submit_triage: [answer(TRIAGE)],
    submit_hypotheses: [answer(HYPOTHESES)],
    'submit_evaluation:H1': [
      query('query_logs', { service: 'payment-api', filterPattern: 'timeout', lastMinutes: 180 }),
      (request: RecordedModelRequest) => {
        logs = evidenceIdOf(request);
        return query('recent_deployments', { service: 'payment-api', lastMinutes: 180 });
      },
      (request: RecordedModelRequest) => {
        deploys = evidenceIdOf(request);
        return answer(
          evaluation('H1', 'confirm', 'strong', [
            { finding: 'provider timeouts', evidence_ids: [logs], strength: 'strong' },
            { finding: 'a deploy just before', evidence_ids: [deploys], strength: 'strong' },
          ]),
        )(request);
      },
    ],
    'submit_evaluation:H2': [answer(evaluation('H2', 'prune', 'none'))],
    'submit_evaluation:H3': [answer(evaluation('H3', 'prune', 'none'))],
    submit_conclusion: [
      (request: RecordedModelRequest) => answer(ROOT_CAUSE('H1', [logs, deploys]))(request),
    ],
    submit_remediation_plan: [answer(plan)],
  });
}
