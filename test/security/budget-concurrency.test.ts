import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDailySpend } from '../../lambdas/adapters/dynamo-daily-spend.ts';
import { DEFAULT_MODEL_PRICES, utcDay } from '../../lambdas/agents/pricing.ts';
import { worstCaseOf } from '../../lambdas/agents/reservations.ts';
import { DynamoEvidenceLedger } from '../../lambdas/workflows/incident-investigation/telemetry/dynamo-evidence-ledger.ts';
import {
  type BugHarness,
  bugIdFor,
  CHANNELS,
  findings,
  REPORTER,
  startBugHarness,
} from '../sandbox/bug-harness.ts';
import { startDynalite } from '../support/dynalite.ts';
import { submit, withUsage } from '../support/scripted-model.ts';

/**
 * The attack: eight bug reports at once against a small daily ceiling. When the ceiling was
 * read once per turn, every turn saw the same spend and all eight called the model. With each
 * call's worst case reserved atomically before it runs, the day's spend stays within the
 * ceiling plus one call's worst case, and every conversation refused is told why.
 */

const CEILING_USD = 0.2;
const REPORTS = 8;
const price = DEFAULT_MODEL_PRICES['claude-sonnet-5-5'];

let h: BugHarness;
beforeAll(async () => {
  h = await startBugHarness({ agentLimits: { maxDailyCostUsd: CEILING_USD } });
});
afterAll(async () => {
  await h?.stop();
});

const botTexts = async (threadTs: string) =>
  (await h.messages(CHANNELS.reports, threadTs)).filter((m) => m.bot).map((m) => m.text);

describe('eight conversations racing for a small daily ceiling', () => {
  it('spend at most the ceiling plus one call’s worst case, and tell each refused reporter why', async () => {
    const today = utcDay(new Date());
    const reports = await Promise.all(
      Array.from({ length: REPORTS }, (_, i) =>
        h.post(CHANNELS.reports, REPORTER, `checkout fails, case ${i}`),
      ),
    );
    /** How many of the reports' turns reached the model or were told they were refused. */
    const turnsDecided = async () => {
      const decided = await Promise.all(
        reports.map(
          async (ts) =>
            h.requestsOf(bugIdFor(ts)).length > 0 ||
            (await botTexts(ts)).some((t) => t.startsWith(':warning:')),
        ),
      );
      return decided.filter(Boolean).length;
    };
    for (const ts of reports) {
      h.script(bugIdFor(ts), [
        // Each call lasts until every turn reached the model or was refused, so the eight turns
        // are in flight together; it bills 2,000 in and 8,000 out ($0.084), within its worst
        // case (max_tokens 8,192).
        async () => {
          await h.eventually(
            turnsDecided,
            (decided) => decided === REPORTS,
            'every turn to reach the model or be refused',
          );
          return withUsage(submit(findings('The payment client times out.')), {
            input_tokens: 2_000,
            output_tokens: 8_000,
          });
        },
      ]);
    }

    const outcomes = await Promise.all(
      reports.map((ts) =>
        h.eventually(
          () => botTexts(ts),
          (texts) => texts.some((t) => t.startsWith(':warning:') || t.startsWith(':mag:')),
          `the outcome of report ${ts}`,
        ),
      ),
    );
    // Findings go to the summaries channel; what the reporter's thread shows is the stop, if any.
    const summaries = (await h.messages(CHANNELS.summaries)).filter((m) => m.bot).map((m) => m.text);
    const answered = reports.filter((ts) => h.requestsOf(bugIdFor(ts)).length > 0);
    const refused = reports.filter((ts) => h.requestsOf(bugIdFor(ts)).length === 0);

    const spent = await new DynamoDailySpend({
      client: h.sandbox.dynamodb,
      tableName: h.sandbox.tableName,
    }).spentOn(today);
    const worst = Math.max(
      ...reports.flatMap((ts) => h.requestsOf(bugIdFor(ts)).map((r) => worstCaseOf(r.body, price).microUsd)),
    );
    expect(answered.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    expect(spent).toBe(answered.length * 84_000);
    expect(spent).toBeLessThanOrEqual(CEILING_USD * 1_000_000 + worst);
    expect(summaries.filter((t) => t.includes('payment client'))).toHaveLength(answered.length);
    const reason = `the platform reached its spending ceiling of $0.20 of estimated model cost for today (${today}, UTC)`;
    for (const ts of refused) {
      const texts = outcomes[reports.indexOf(ts)] ?? [];
      expect(texts.find((t) => t.startsWith(':warning:'))).toContain(reason);
    }
  });
});

describe('the incident query budget', () => {
  it('grants exactly five queries of one scope to twenty racing calls', async () => {
    const db = await startDynalite();
    try {
      const ledger = new DynamoEvidenceLedger({ client: db.client, tableName: db.tableName });
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => ledger.reserveQuery('incident-1', 'round-1:h1', 5)),
      );
      expect(answers.filter((a) => a.granted)).toHaveLength(5);
      expect(
        answers
          .filter((a) => a.granted)
          .map((a) => a.used)
          .sort(),
      ).toEqual([1, 2, 3, 4, 5]);
      // Another hypothesis has its own five.
      expect((await ledger.reserveQuery('incident-1', 'round-1:h2', 5)).granted).toBe(true);
    } finally {
      await db.close();
    }
  });
});
