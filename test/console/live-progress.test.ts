import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolUse } from '../../local/model/scripted-model.ts';
import { fakeStreams } from '../../local/slack/streams.ts';
import {
  ask,
  type BugHarness,
  bugIdFor,
  CHANNELS,
  REPORTER,
  readsHistory,
  startBugHarness,
  submits,
} from '../sandbox/bug-harness.ts';
import { launchBeside, onPage, openConsoleAt, releaseConsoleBrowser, shot } from './browser.ts';

/**
 * The console's thread pane shows a turn's streamed timeline as Slack does: a card per task
 * with its status, title and outcome, above the answer that follows it.
 */

let h: BugHarness;
let browser: Browser;

beforeAll(async () => {
  ({ browser, started: h } = await launchBeside(
    () =>
      startBugHarness(
        { reporterWaitSeconds: 600_000 },
        { env: { LIVE_PROGRESS: 'on', LIVE_PROGRESS_AFTER_MS: '0' } },
      ),
    (harness) => harness.stop(),
  ));
});

afterAll(async () => {
  await releaseConsoleBrowser(browser);
  await h?.stop();
  expect(h?.modelFailures ?? []).toEqual([]);
});

describe('live progress in the console', () => {
  it("renders a turn's task timeline in the thread pane, then the question after it", async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, 'the checkout total is wrong');
    const bug = bugIdFor(report);
    h.script(bug, [
      readsHistory(bug),
      toolUse('lookup_orders', { order: 'A-17' }),
      submits(ask('Which order shows the wrong total?')),
    ]);
    await h.eventually(
      async () => (await h.messages(CHANNELS.reports, report)).filter((m) => m.bot),
      (bots) => bots.some((m) => m.text.includes('Which order')),
      'the question',
    );
    expect(fakeStreams(h.sandbox.slack.workspace).filter((s) => s.threadTs === report)).toHaveLength(1);

    const hash = `#${new URLSearchParams({ channel: CHANNELS.reports, thread: report }).toString()}`;
    const { context, page } = await openConsoleAt(browser, `${h.sandbox.url}/${hash}`, {
      width: 1280,
      height: 900,
    });
    const cards = page.getByTestId('task-card');
    await onPage(
      () => cards.count(),
      (n) => n === 2,
      'two progress cards',
    );
    expect(await cards.evaluateAll((all) => all.map((c) => c.getAttribute('data-status')))).toEqual([
      'complete',
      'error',
    ]);
    expect(await cards.nth(0).innerText()).toContain('Reading the conversation so far');
    expect(await cards.nth(1).innerText()).toContain('Running lookup orders');
    expect(await cards.nth(1).innerText()).toContain('Unknown tool');
    // The closed timeline has lost its Stop button; the question is below it.
    await onPage(
      () => page.getByText('Done: 2 steps').count(),
      (n) => n > 0,
      'the Done line',
    );
    expect(await page.locator('[data-testid="block-button"][data-action-id="stop_turn"]').count()).toBe(0);
    const text = await page.locator('body').innerText();
    const order = [
      text.indexOf('Reading the conversation so far'),
      text.indexOf('Which order shows the wrong total?'),
    ];
    expect(order[0]).toBeGreaterThanOrEqual(0);
    expect(order[1]).toBeGreaterThan(order[0] ?? 0);
    await shot(page, 'live-progress-timeline');
    await context.close();
  });
});
