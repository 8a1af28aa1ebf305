import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { createAnthropicModel } from '../../lambdas/adapters/anthropic-model.ts';
import type { AgentTurnInput, ToolInvoker } from '../../lambdas/agents/contract.ts';
import type { TranscriptStore } from '../../lambdas/agents/ports.ts';
import type { runAgentTurn } from '../../lambdas/agents/run-agent-turn.ts';
import type { DrainedMessage } from '../../lambdas/kernel/drained-message.ts';
import type { Ledger } from '../../lambdas/kernel/model.ts';
import type { ToolContext } from '../../lambdas/tools/invocation.ts';
import { BUG_INVESTIGATION_PROFILES } from '../../lambdas/workflows/bug-investigation/profiles/index.ts';
import { REQUIREMENTS_INTERVIEW_PROFILES } from '../../lambdas/workflows/requirements-interview/profiles/index.ts';
import { createDemoModelHandler } from '../../local/model/demo-model.ts';
import { readBody } from '../../local/read-body.ts';
import { BUG_DEMO_AGENTS } from '../../statemachines/bug-investigation/demo.ts';
import { REQUIREMENTS_DEMO_AGENTS } from '../../statemachines/requirements-interview/demo.ts';
import { type ModelReply, type ScriptStep, startScriptedModel } from '../support/scripted-model.ts';

/** Fakes and builders shared by the agent tests. */

/** The roles the agent tests run: the bug investigation's and the requirements interview's. */
export const TEST_PROFILES = { ...BUG_INVESTIGATION_PROFILES, ...REQUIREMENTS_INTERVIEW_PROFILES };
export type TestProfiles = typeof TEST_PROFILES;
/** What `runAgentTurn` takes for the test roles. */
type TurnDeps = Parameters<typeof runAgentTurn<TestProfiles, keyof TestProfiles & string>>[1];

export const CONVERSATION = 'bug-investigation-C_BUGS-1732190000-000100';

export function drained(
  senderType: DrainedMessage['senderType'],
  senderId: string,
  text: string,
  ts = '1732190000.000100',
): DrainedMessage {
  return { ts, channel: 'C_BUGS', senderType, senderId, messageType: 'message', text, truncated: false };
}

/** A bug investigator's turn (the profile most agent tests run). */
export type BugTurnInput = AgentTurnInput & { profile: 'bug_investigator' };

export function turnInput(overrides: Partial<Omit<AgentTurnInput, 'profile'>> = {}): BugTurnInput {
  return {
    conversationId: CONVERSATION,
    profile: 'bug_investigator',
    turn: 1,
    mode: 'initial',
    state: 'investigating',
    messages: [
      drained('reporter', 'U_REPORTER', 'Checkout fails with HTTP 500 after I click Pay on version 2.3.1'),
    ],
    notes: [],
    ...overrides,
  };
}

/** A requirements clarifier's first turn on an idea (the profile the requirements agent tests start from). */
export function clarifierInput(overrides: Partial<Omit<AgentTurnInput, 'profile'>> = {}) {
  return {
    conversationId: 'requirements-interview-C_PRODUCT-1',
    profile: 'requirements_clarifier',
    turn: 1,
    mode: 'initial',
    state: 'clarification',
    messages: [drained('requester', 'U_REQ', 'I want to build an AI project manager')],
    notes: [],
    confidenceThreshold: 95,
    ...overrides,
  } as const satisfies AgentTurnInput;
}

/** Transcripts in memory, one entry per saved turn, as the DynamoDB adapter keeps them. */
export class MemoryTranscripts implements TranscriptStore {
  readonly turns = new Map<string, Map<number, MessageParam[]>>();

  async load(conversationId: string, sessionId: string, options: { beforeTurn?: number } = {}) {
    const turns = this.turns.get(`${conversationId}/${sessionId}`) ?? new Map();
    return [...turns.entries()]
      .filter(([turn]) => options.beforeTurn === undefined || turn < options.beforeTurn)
      .sort(([a], [b]) => a - b)
      .flatMap(([, messages]) => structuredClone(messages));
  }

  async save(conversationId: string, sessionId: string, turn: number, messages: MessageParam[]) {
    const key = `${conversationId}/${sessionId}`;
    const turns = this.turns.get(key) ?? new Map<number, MessageParam[]>();
    turns.set(turn, structuredClone(messages));
    this.turns.set(key, turns);
  }

  saved(sessionId: string, turn: number): MessageParam[] | undefined {
    return this.turns.get(`${CONVERSATION}/${sessionId}`)?.get(turn);
  }
}

/** Tools answered from a table; every call recorded. */
export function fakeTools(answers: Record<string, (args: unknown) => string | Promise<string>>) {
  const calls: { tool: string; args: unknown; conversationId: string; toolContext?: ToolContext }[] = [];
  const invoker: ToolInvoker = {
    async invoke(tool, args, context) {
      calls.push({
        tool,
        args,
        conversationId: context.conversationId,
        ...(context.toolContext === undefined ? {} : { toolContext: context.toolContext }),
      });
      const answer = answers[tool];
      if (!answer) throw new Error(`no fake answer for ${tool}`);
      return answer(args);
    },
  };
  return { invoker, calls };
}

export function ledgerRecorder() {
  const deltas: Partial<Ledger>[] = [];
  return {
    deltas,
    write: async (_conversationId: string, delta: Partial<Ledger>) => {
      deltas.push(delta);
    },
    total: (field: Exclude<keyof Ledger, 'redactedKinds'>) =>
      deltas.reduce((sum, delta) => sum + (delta[field] ?? 0), 0),
  };
}

/** Deps for `runAgentTurn` over the real SDK client pointed at a local model server. */
export function turnDeps(
  baseUrl: string,
  overrides: Partial<TurnDeps> & { maxRetries?: number } = {},
): TurnDeps {
  const { maxRetries, ...rest } = overrides;
  // The deadline is on the clock the turn reads, so a test that pins the clock keeps a minute.
  const clock = rest.clock ?? { now: () => new Date() };
  return {
    profiles: TEST_PROFILES,
    model: createAnthropicModel({ apiKey: 'test-key', baseURL: baseUrl, maxRetries: maxRetries ?? 0 }),
    modelId: 'claude-test',
    tools: fakeTools({}).invoker,
    transcripts: new MemoryTranscripts(),
    ledger: async () => {},
    clock,
    budget: { deadlineMs: clock.now().getTime() + 60_000, maxToolCalls: 10 },
    newSessionId: () => 'session-1',
    ...rest,
  };
}

export const validFindings = {
  action: 'post_findings',
  summary: 'The payment service rejects the cart token after the 2.3.1 release.',
  root_cause: 'The token format changed in 2.3.1.',
  confidence: 80,
  severity: 'high',
} as const;

/**
 * A scripted model server per test, closed after each one. `strict` (the default) also
 * checks the script was used exactly as written: no surprise requests, no leftover steps.
 */
export function useScriptedModel(options: { strict?: boolean } = {}) {
  let model: Awaited<ReturnType<typeof startScriptedModel>> | undefined;
  afterEach(async () => {
    if (options.strict ?? true) {
      expect(model?.failures ?? []).toEqual([]);
      expect(model?.remaining() ?? 0).toBe(0);
    }
    await model?.close();
    model = undefined;
  });
  return async (steps: ScriptStep[]) => {
    model = await startScriptedModel({ steps });
    return model;
  };
}

/**
 * A model call that hangs until the test releases it (once the client gave up on it), then
 * answers `reply`: a call slower than any timeout or budget, without a fixed sleep.
 */
export function heldReply(reply: ModelReply): { step: ScriptStep; release: () => void } {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    step: async () => {
      await released;
      return reply;
    },
    release,
  };
}

/**
 * The offline demo model on its own server for the file's tests, mounted under a prefix as the
 * sandbox mounts it, playing the agents these tests run (the bug investigation's and the
 * requirements interview's, as their modules declare them). Returns its base URL once the
 * server is up.
 */
export function useDemoModel(): () => string {
  let server: Server | undefined;
  let baseUrl = '';
  beforeAll(async () => {
    const handle = createDemoModelHandler(
      [BUG_DEMO_AGENTS, REQUIREMENTS_DEMO_AGENTS].map((agents) => ({ demoAgents: async () => agents })),
    );
    const listening = createServer((req, res) => {
      void readBody(req).then((body) => handle(req, res, body));
    });
    server = listening;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(listening.address() as AddressInfo).port}/model`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  });
  return () => baseUrl;
}

/**
 * The text of the demo model's reply to one Messages API request, sent over HTTP to `baseUrl`
 * (`useDemoModel()`'s) as the SDK sends it.
 */
export async function demoModelText(baseUrl: string, request: object): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(request),
  });
  expect(response.status).toBe(200);
  const reply = (await response.json()) as { type: string; content: { type: string; text?: string }[] };
  expect(reply.type).toBe('message');
  return reply.content.map((b) => (b.type === 'text' ? (b.text ?? '') : '')).join('');
}
