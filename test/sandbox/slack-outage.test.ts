import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoOutbox } from '../../lambdas/adapters/dynamo-outbox.ts';
import { eventually } from '../support/eventually.ts';
import {
  type BugHarness,
  bugIdFor,
  CHANNELS,
  findings,
  REPORTER,
  startBugHarness,
  turn,
} from './bug-harness.ts';
import { addFault, clearFaults } from './misbehaviour-scenarios.ts';

/**
 * A Slack outage longer than the state machine's retries of a post: the findings are kept
 * (lambdas/slack/outbox.ts), the conversation goes on instead of failing, and once Slack is
 * back the findings are posted once, opening with a line that says they were delayed and since
 * when; the reporter's link to them follows, in order.
 */

let h: BugHarness;

beforeAll(async () => {
  // Workflow time runs 10,000 times faster: the retries' hour and a half of waiting take 0.55 s
  // at most, and the Slack client's own retries of each attempt (1.5 s) take 0.15 ms. The
  // outage lasts until the test sees the findings kept, however long the retries take.
  h = await startBugHarness({ developerWaitSeconds: 1_000_000 }, { timeScale: 0.0001 });
});
afterAll(async () => {
  await h?.stop();
  expect(h?.modelFailures ?? []).toEqual([]);
});

const SUMMARY = 'Invoices render before the fonts load.';

describe('a Slack outage longer than the retries', () => {
  it('keeps the findings and posts them once, with a delay notice, after Slack is back', async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, 'the invoice PDF is blank');
    const bug = bugIdFor(report);
    await addFault(h, {
      target: 'slack',
      kind: 'server_error',
      method: 'chat.postMessage',
      channel: CHANNELS.summaries,
      // Workflow time, as every sandbox fault: about two months (10 min here), far past the
      // retries; the outage ends below, once the retries are spent and the findings kept.
      forSeconds: 6_000_000,
    });
    h.script(bug, turn(bug, findings(SUMMARY)));

    // During the outage: every attempt refused, then the post is kept and the workflow waits on.
    // Nine attempts, each with the client's own two retries: on a loaded machine, longer than
    // the harness's usual wait.
    const waiting = await eventually(
      () => h.store.getConversation(bug, { consistent: true }),
      (c) => c?.wait !== undefined && c.phase === 'awaiting_dev',
      'the bug to wait for the developers while the findings are kept',
      120_000,
    );
    expect(waiting?.status).not.toBe('failed');
    expect((await h.messages(CHANNELS.summaries)).filter((m) => m.bot)).toEqual([]);

    // Slack is back: the sweep posts what the outage kept.
    await clearFaults(h);

    const posted = await h.eventually(
      () => h.messages(CHANNELS.summaries),
      (messages) => messages.some((m) => m.bot && m.text.includes(SUMMARY)),
      'the findings once Slack is back',
    );
    const findingsPosts = posted.filter((m) => m.bot && m.text.includes(SUMMARY));
    expect(findingsPosts).toHaveLength(1);
    expect(findingsPosts[0]?.text).toMatch(
      /^:hourglass: Delayed: Slack was unavailable when this was ready \(since <!date\^\d+\^/,
    );

    // The reporter's link to the findings waited behind them and points at the real post.
    const reporterThread = await h.eventually(
      () => h.messages(CHANNELS.reports, report),
      (messages) => messages.some((m) => m.bot && m.text.includes('posted what I found')),
      "the reporter's link to the findings",
    );
    const link = reporterThread.find((m) => m.text.includes('posted what I found'));
    expect(link?.text).toContain(`thread=${findingsPosts[0]?.ts}`);
    expect(reporterThread.filter((m) => m.text.includes('posted what I found'))).toHaveLength(1);

    // Still one of each after a later sweep went over the conversation's outbox: the sweep does
    // not post them again. A sweep that finds nothing to post leaves no trace, so a probe post
    // is kept behind the findings; the sweep walks a conversation's kept posts in order, so the
    // one that posts the probe went over the findings first and would have posted them again.
    const findingsTs = findingsPosts[0]?.ts ?? '';
    const outbox = new DynamoOutbox({ client: h.sandbox.dynamodb, tableName: h.sandbox.tableName });
    await keepProbe(outbox, bug, findingsTs);
    await h.eventually(
      () => h.messages(CHANNELS.summaries, findingsTs),
      (thread) => thread.some((m) => m.bot && m.text.includes(PROBE)),
      'a later sweep to post the probe kept behind the findings',
    );
    // The sweep forgets a kept post after Slack took it: the outbox empties just after the post.
    await h.eventually(
      () => outbox.waiting(bug),
      (waiting) => waiting.length === 0,
      'the sweep to forget the posts it made',
    );
    expect(
      (await h.messages(CHANNELS.summaries)).filter((m) => m.bot && m.text.includes(SUMMARY)),
    ).toHaveLength(1);
    expect((await h.execution(bug)).status).toBe('RUNNING');
  }, 300_000);
});

const PROBE = 'A probe kept behind the findings.';

/** Keeps a post of the conversation in its outbox, as SlackPost keeps one through an outage. */
async function keepProbe(outbox: DynamoOutbox, conversationId: string, threadTs: string): Promise<void> {
  const key = 'outage-test-probe';
  const now = new Date().toISOString();
  await outbox.keep({
    conversationId,
    seq: `${now}#${key}`,
    input: { conversationId, channel: CHANNELS.summaries, threadTs, text: PROBE, idempotencyKey: key },
    // The stand-in answer the workflow would have got (no later post names it here).
    placeholder: { channel: CHANNELS.summaries, ts: `stand-in-${key}`, threadTs },
    since: now,
  });
}
