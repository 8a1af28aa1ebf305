/**
 * Live progress benchmark: Slack API calls per agent turn, and the time to a turn's first
 * visible sign of life in Slack, with live progress off (before: people see the answer only)
 * and on (after: a task timeline while the turn works). A real bug investigator turn
 * (`runAgentTurn`) with an in-process model that answers after `MODEL_MS` and tools that take
 * `TOOL_MS`; live progress through the real @slack/web-api against the fake Slack on localhost
 * (its calls counted there), paced at one call per second per message as in production. The
 * answer itself is one `chat.postMessage` after the turn, as SlackPost makes it.
 * Prints figures; it is not a test and asserts nothing. Run: `npm run bench:slack-calls`.
 *
 * Slack's own latency (tens to hundreds of ms per call) comes on top in AWS; the calls a turn
 * makes and the pacing do not depend on it.
 */
import type { Message } from '@anthropic-ai/sdk/resources/messages';
import type { ModelClient } from '../lambdas/agents/ports.ts';
import { SUBMIT_TOOL } from '../lambdas/agents/profile.ts';
import { runAgentTurn } from '../lambdas/agents/run-agent-turn.ts';
import type { SlackPostOutput } from '../lambdas/kernel/slack-post-output.ts';
import type { ProgressTarget } from '../lambdas/progress/ports.ts';
import { TurnProgress } from '../lambdas/progress/turn-progress.ts';
import { createProgressClient } from '../lambdas/slack/progress-client.ts';
import { createSlackPoster } from '../lambdas/slack/web-client.ts';
import { BUG_INVESTIGATION_PROFILES } from '../lambdas/workflows/bug-investigation/profiles/index.ts';
import { MemoryProgressStore } from '../local/progress/memory-progress-store.ts';
import { listenFakeSlack } from '../local/slack/api.ts';
import { FakeSlack } from '../local/slack/fake-slack.ts';

const MODEL_MS = 700;
const TOOL_MS = 150;
const TOKEN = 'xoxb-bench';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A model that calls `get_bug_conversations` `calls` times, `perReply` at a time, then submits. */
function model(calls: number, perReply: number): ModelClient {
  let made = 0;
  let n = 0;
  return {
    async createMessage() {
      await sleep(MODEL_MS);
      const batch = Math.min(perReply, calls - made);
      const content =
        batch > 0
          ? Array.from({ length: batch }, () => {
              made += 1;
              n += 1;
              return {
                type: 'tool_use',
                id: `toolu_${n}`,
                name: 'get_bug_conversations',
                input: { bug_id: 'b' },
              };
            })
          : [
              {
                type: 'tool_use',
                id: `toolu_${++n}`,
                name: SUBMIT_TOOL,
                input: {
                  action: 'ask_reporter',
                  summary: 'Too vague.',
                  confidence: 10,
                  severity: 'low',
                  clarification_question: 'Which page?',
                },
              },
            ];
      return {
        id: `msg_${n}`,
        type: 'message',
        role: 'assistant',
        model: 'bench',
        content,
        stop_reason: 'tool_use',
        stop_sequence: null,
        usage: { input_tokens: 100, output_tokens: 20 },
      } as unknown as Message;
    },
  };
}

interface Run {
  slackCalls: number;
  firstSignMs: number;
  turnMs: number;
}

async function runTurn(
  shape: { calls: number; perReply: number },
  where: 'thread' | 'dm' | 'alert' | 'off',
): Promise<Run> {
  const slack = new FakeSlack({
    botToken: TOKEN,
    channels: [
      { id: 'C_BUGS', name: 'bug-reports' },
      { id: 'D_RITA', name: 'rita-dm' },
    ],
    users: [{ id: 'U_RITA', name: 'rita' }],
  });
  const server = await listenFakeSlack(slack);
  try {
    const channel = where === 'dm' ? 'D_RITA' : 'C_BUGS';
    const threadTs = slack.postAsUser({ channel, user: 'U_RITA', text: 'checkout is broken' }).ts;
    const target: ProgressTarget = {
      conversationId: 'bench-1',
      turn: 1,
      channel,
      threadTs,
      ...(where === 'alert' ? {} : { recipientUserId: 'U_RITA' }),
      assistantThread: where === 'dm',
    };
    const posts = new Map<string, SlackPostOutput>();
    const started = Date.now();
    const progress =
      where === 'off'
        ? undefined
        : new TurnProgress(target, {
            slack: createProgressClient({ token: TOKEN, slackApiUrl: server.slackApiUrl }),
            store: new MemoryProgressStore(),
            posts: {
              find: async (_id, key) => posts.get(key),
              record: async (_id, key, out) => void posts.set(key, out),
            },
            clock: { now: () => new Date() },
            logger: { info: () => {}, warn: console.warn, error: console.error },
            // The timeline's calls from the first task on, whatever the turn's length.
            showAfterMs: 0,
          });
    progress?.begin();
    await runAgentTurn(
      {
        conversationId: 'bench-1',
        profile: 'bug_investigator',
        turn: 1,
        mode: 'initial',
        state: 'investigating',
        messages: [],
        notes: [],
      },
      {
        profiles: BUG_INVESTIGATION_PROFILES,
        model: model(shape.calls, shape.perReply),
        modelId: 'bench',
        tools: {
          invoke: async () => {
            await sleep(TOOL_MS);
            return 'the history';
          },
        },
        transcripts: { load: async () => [], save: async () => {} },
        ledger: async () => {},
        clock: { now: () => new Date() },
        budget: { deadlineMs: Date.now() + 600_000, maxToolCalls: 100 },
        ...(progress ? { toolCalls: progress } : {}),
      },
    );
    await progress?.finish({ kind: 'done' });
    const turnMs = Date.now() - started;
    // The answer, as SlackPost posts it after the turn.
    await createSlackPoster({ token: TOKEN, slackApiUrl: server.slackApiUrl }).postMessage({
      channel,
      threadTs,
      text: ':question: Which page?',
    });
    const answeredMs = Date.now() - started;
    const calls = slack.apiCalls().filter((c) => c.method !== 'auth.test' || where !== 'off').length;
    return {
      slackCalls: calls,
      firstSignMs: progress?.firstSignAt === undefined ? answeredMs : progress.firstSignAt - started,
      turnMs,
    };
  } finally {
    await server.close();
  }
}

const shapes = [
  { calls: 2, perReply: 1 },
  { calls: 6, perReply: 1 },
  { calls: 12, perReply: 1 },
  { calls: 12, perReply: 4 },
];

console.log(
  `model ${MODEL_MS} ms per reply, tools ${TOOL_MS} ms per call; Slack calls include the answer's post and auth.test`,
);
console.log(
  'tool calls (per reply) | where  | Slack calls off -> on | first sign of life off -> on | turn duration off -> on',
);
for (const shape of shapes) {
  const off = await runTurn(shape, 'off');
  for (const where of shape.calls === 6 ? (['thread', 'dm', 'alert'] as const) : (['thread'] as const)) {
    const on = await runTurn(shape, where);
    console.log(
      `${String(shape.calls).padStart(3)} (${shape.perReply})`.padEnd(23) +
        `| ${where.padEnd(6)} | ${String(off.slackCalls).padStart(3)} -> ${String(on.slackCalls).padEnd(14)}` +
        `| ${String(off.firstSignMs).padStart(6)} ms -> ${`${on.firstSignMs} ms`.padEnd(16)}` +
        `| ${off.turnMs} ms -> ${on.turnMs} ms (+${on.turnMs - off.turnMs} ms)`,
    );
  }
}
