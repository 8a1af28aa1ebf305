/**
 * What holding budgets by reservation costs on the model-call path, in the sandbox's DynamoDB
 * (dynalite, in process). Prints figures; asserts nothing.
 *
 * Per model call, the budget work a turn waits on:
 * - without reservations: after the call, the day's counter is added to (one UpdateItem);
 * - with reservations: before the call, the worst case is reserved on the day's counter and
 *   then on the conversation's record (two conditional UpdateItems, in sequence), and after it
 *   the reservation is settled on both (two UpdateItems).
 * The difference is the latency reservations add to each call. Both run in one process, in
 * alternating rounds, first one call at a time, then with eight conversations calling at once
 * (contention on the day's item). A model call itself takes seconds; these are milliseconds.
 *
 * Run: `npm run bench:budget` (`CALLS=600` for more calls per mode).
 */
import {
  DynamoConversationBudget,
  DynamoConversationReservations,
} from '../lambdas/adapters/dynamo-conversation-budget.ts';
import { DynamoDailySpend } from '../lambdas/adapters/dynamo-daily-spend.ts';
import { DynamoConversationStore } from '../lambdas/adapters/dynamo-store.ts';
import { AgentLimits } from '../lambdas/agents/limits.ts';
import type { MessageCreateParamsNonStreaming } from '../lambdas/agents/ports.ts';
import { DEFAULT_MODEL_PRICES } from '../lambdas/agents/pricing.ts';
import { TurnSpending } from '../lambdas/agents/spending.ts';
import { bugConversation } from '../test/support/conversations.ts';
import { startDynalite } from '../test/support/dynalite.ts';

const CALLS = Number(process.env.CALLS ?? 300);
const CONCURRENT = 8;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** A request of a turn some way in: 40 KB of transcript, the size a real one reaches. */
const REQUEST: MessageCreateParamsNonStreaming = {
  model: 'claude-sonnet-5-5',
  max_tokens: 8_192,
  system: 'You investigate bug reports.',
  messages: [{ role: 'user', content: 'x'.repeat(40_000) }],
};
const USAGE = { inputTokens: 10_000, outputTokens: 800 };

const db = await startDynalite();
try {
  const { client, tableName } = db;
  const store = new DynamoConversationStore({ client, tableName });
  const day = new DynamoDailySpend({ client, tableName });
  const conversationBudget = new DynamoConversationBudget({ client, tableName });
  const reservations = new DynamoConversationReservations({ client, tableName });
  // A ceiling no call reaches: the bench measures the path, not refusals.
  const limits = AgentLimits.parse({ maxDailyCostUsd: 1_000_000, maxConversationTokens: 2_000_000_000 });
  const price = DEFAULT_MODEL_PRICES['claude-sonnet-5-5'];
  const clock = { now: () => new Date() };

  const ids = Array.from({ length: CONCURRENT }, (_, i) => `bench-reservation-${i}`);
  for (const id of ids) await store.createConversation(bugConversation(id));

  const spendingOf = (id: string, reserved: boolean) =>
    TurnSpending.start(id, {
      limits,
      conversationBudget,
      dailySpend: day,
      ...(price ? { price } : {}),
      ...(reserved ? { reservations: { day, conversation: reservations } } : {}),
      clock,
    });

  /** The budget work of one call, as run-agent-turn does it around `createMessage`. */
  async function oneCall(spending: TurnSpending): Promise<number> {
    const started = performance.now();
    const reserved = await spending.reserve(REQUEST);
    if (!reserved.granted) throw new Error(`refused: ${reserved.reason}`);
    await spending.record(USAGE, reserved.hold);
    return performance.now() - started;
  }

  const times = { without: [] as number[], with: [] as number[] };
  const concurrent = { without: [] as number[], with: [] as number[] };
  const spendings = {
    without: await Promise.all(ids.map((id) => spendingOf(id, false))),
    with: await Promise.all(ids.map((id) => spendingOf(id, true))),
  };
  // Warm-up: the first calls pay for connections and dynalite's first writes.
  for (let i = 0; i < 20; i++) {
    for (const mode of ['without', 'with'] as const) await oneCall(spendings[mode][0] as TurnSpending);
  }
  for (let i = 0; i < CALLS; i++) {
    for (const mode of i % 2 === 0 ? (['without', 'with'] as const) : (['with', 'without'] as const)) {
      times[mode].push(await oneCall(spendings[mode][0] as TurnSpending));
    }
  }
  for (let i = 0; i < CALLS / CONCURRENT; i++) {
    for (const mode of i % 2 === 0 ? (['without', 'with'] as const) : (['with', 'without'] as const)) {
      concurrent[mode].push(...(await Promise.all(spendings[mode].map((s) => oneCall(s)))));
    }
  }

  const row = (name: string, list: number[]) => {
    const sorted = [...list].sort((a, b) => a - b);
    return { name, n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
  };
  const rows = [
    row('without reservations, one call at a time', times.without),
    row('with reservations, one call at a time', times.with),
    row(`without reservations, ${CONCURRENT} conversations at once`, concurrent.without),
    row(`with reservations, ${CONCURRENT} conversations at once`, concurrent.with),
  ];
  console.log(`Budget work per model call, dynalite in process (Node ${process.version}); ms`);
  console.log(`${'measure'.padEnd(52)}${'n'.padStart(6)}${'p50'.padStart(9)}${'p99'.padStart(9)}`);
  for (const r of rows) {
    console.log(
      `${r.name.padEnd(52)}${String(r.n).padStart(6)}${r.p50.toFixed(2).padStart(9)}${r.p99.toFixed(2).padStart(9)}`,
    );
  }
  const [alone, withAlone, together, withTogether] = rows as [
    (typeof rows)[0],
    (typeof rows)[0],
    (typeof rows)[0],
    (typeof rows)[0],
  ];
  console.log(
    `added per call: p50 ${(withAlone.p50 - alone.p50).toFixed(2)} ms, p99 ${(withAlone.p99 - alone.p99).toFixed(2)} ms (one at a time); ` +
      `p50 ${(withTogether.p50 - together.p50).toFixed(2)} ms, p99 ${(withTogether.p99 - together.p99).toFixed(2)} ms (${CONCURRENT} at once)`,
  );
} finally {
  await db.close();
}
