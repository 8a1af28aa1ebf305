import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDailySpend } from '../../lambdas/adapters/dynamo-daily-spend.ts';
import { utcDay } from '../../lambdas/agents/pricing.ts';
import { submit, withUsage } from '../support/scripted-model.ts';
import { type BugHarness, bugIdFor, CHANNELS, findings, REPORTER, startBugHarness } from './bug-harness.ts';

/**
 * the sandbox: a per-day ceiling across all conversations
 * (`agentLimits.maxDailyCostUsd`), priced with the default price of the configured model
 * (claude-sonnet-5-5: $2 in, $10 out per million tokens). One conversation spends past it;
 * the next one's turn makes no model call, and the bug workflow says so in the reporter's
 * thread and escalates to on call, as for its other stops.
 */

let h: BugHarness;
const CEILING_USD = 0.5;

beforeAll(async () => {
  h = await startBugHarness({ agentLimits: { maxDailyCostUsd: CEILING_USD } });
});
afterAll(async () => {
  await h?.stop();
  expect(h?.modelFailures ?? []).toEqual([]);
});

const botTexts = async (channel: string, threadTs?: string) =>
  (await h.messages(channel, threadTs)).filter((m) => m.bot).map((m) => m.text);

describe('the daily cost ceiling in the sandbox', () => {
  it("stops the next conversation's turn before any model call once the day's spend reached the ceiling, telling the reporter and on call", async () => {
    const spend = new DynamoDailySpend({ client: h.sandbox.dynamodb, tableName: h.sandbox.tableName });
    const today = utcDay(new Date());
    // One turn, one call: 1,000 in ($0.002) and 60,000 out ($0.60), past the $0.50 ceiling.
    const first = await h.post(CHANNELS.reports, REPORTER, 'the export button downloads an empty CSV');
    const firstBug = bugIdFor(first);
    h.script(firstBug, [
      withUsage(submit(findings('The export query filters on a column that is always null.')), {
        input_tokens: 1_000,
        output_tokens: 60_000,
      }),
    ]);
    await h.eventually(
      () => botTexts(CHANNELS.summaries),
      (texts) => texts.some((text) => text.includes('always null')),
      'the first conversation’s findings',
    );
    expect(await spend.spentOn(today)).toBe(602_000);
    expect((await h.store.getConversation(firstBug, { consistent: true }))?.ledger?.costMicroUsd).toBe(
      602_000,
    );

    const second = await h.post(CHANNELS.reports, REPORTER, 'the login page is slow');
    const secondBug = bugIdFor(second);
    h.script(secondBug, []);
    const told = await h.eventually(
      () => botTexts(CHANNELS.reports, second),
      (texts) => texts.some((text) => text.startsWith(':warning:')),
      'the reporter to be told the agent stopped',
    );
    const escalation = await h.eventually(
      () => h.messages(CHANNELS.developers),
      (messages) => messages.some((m) => m.bot && m.text.includes('spending ceiling')),
      'the escalation to on call',
    );

    const reason =
      'the platform reached its spending ceiling of $0.50 of estimated model cost for today ' +
      `(${today}, UTC); it resets at midnight UTC`;
    expect(told.find((text) => text.startsWith(':warning:'))).toBe(
      ":warning: I had to stop investigating this automatically, so I've asked the developers to take over. " +
        `The automated investigation stopped: ${reason}. A developer needs to take over.`,
    );
    expect(escalation.find((m) => m.bot && m.text.includes('spending ceiling'))?.text).toMatch(
      /^<!subteam\^S_ONCALL>/,
    );
    expect(h.requestsOf(secondBug)).toEqual([]);
    expect(await spend.spentOn(today)).toBe(602_000);
    // What the console's ledger shows.
    const ledgerOf = async (id: string) =>
      (
        await h.driver.api<{ conversation: { ledger: { costMicroUsd?: number } } }>(
          `/sandbox/conversations/${id}`,
        )
      ).conversation.ledger;
    expect((await ledgerOf(firstBug)).costMicroUsd).toBe(602_000);
    expect((await ledgerOf(secondBug)).costMicroUsd).toBe(0);
  });
});
