import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeStreams } from '../../local/slack/streams.ts';
import {
  ask,
  type BugHarness,
  bugIdFor,
  CHANNELS,
  REPORTER,
  readsHistory,
  startBugHarness,
} from '../sandbox/bug-harness.ts';
import { submit, toolUse } from '../support/scripted-model.ts';
import { launchBeside, onPage, openConsoleAt, releaseConsoleBrowser, shot } from './browser.ts';

/**
 * The console's thread pane shows a turn's streamed timeline as Slack does: a card per task
 * with its status, title and outcome, and the Stop button while the turn works; then the
 * answer in its place, opening with the timeline's summary.
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
  it("renders a turn's task timeline in the thread pane while it works, then the answer in its place", async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, 'the checkout total is wrong');
    const bug = bugIdFor(report);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let asking = false;
    h.script(bug, [
      readsHistory(bug),
      toolUse('lookup_orders', { order: 'A-17' }),
      async () => {
        asking = true;
        await held;
        return submit(ask('Which order shows the wrong total?'));
      },
    ]);
    await h.eventually(
      async () => asking,
      (out) => out,
      'the last model call of the turn to be out',
    );

    const hash = `#${new URLSearchParams({ channel: CHANNELS.reports, thread: report }).toString()}`;
    const { context, page } = await openConsoleAt(browser, `${h.sandbox.url}/${hash}`, {
      width: 1280,
      height: 900,
    });
    const cards = page.getByTestId('task-card');
    await onPage(
      () => cards.evaluateAll((all) => all.map((c) => c.getAttribute('data-status'))),
      (statuses) => statuses.join() === 'complete,error',
      'two progress cards, done and failed',
    );
    expect(await cards.nth(0).innerText()).toContain('Reading the conversation so far');
    expect(await cards.nth(1).innerText()).toContain('Running lookup orders');
    expect(await cards.nth(1).innerText()).toContain('Unknown tool');
    // While the turn works, its Stop button is there.
    const stop = page.locator('[data-testid="block-button"][data-action-id="stop_turn"]');
    expect(await stop.count()).toBe(1);
    await shot(page, 'live-progress-timeline');

    // The answer takes the timeline's place: no cards, no Stop, the summary above the question.
    release();
    await onPage(
      async () => ({ cards: await cards.count(), text: await page.locator('body').innerText() }),
      ({ cards: n, text }) => n === 0 && text.includes('Which order shows the wrong total?'),
      'the question in place of the timeline',
    );
    expect(await stop.count()).toBe(0);
    const text = await page.locator('body').innerText();
    const order = [
      text.indexOf('Done: 2 steps'),
      text.indexOf('Reading the conversation so far'),
      text.indexOf('Which order shows the wrong total?'),
    ];
    expect(order[0]).toBeGreaterThanOrEqual(0);
    expect(order[1]).toBeGreaterThan(order[0] ?? 0);
    expect(order[2]).toBeGreaterThan(order[1] ?? 0);
    expect(fakeStreams(h.sandbox.slack.workspace).filter((s) => s.threadTs === report)).toHaveLength(1);
    await shot(page, 'live-progress-answered');
    await context.close();
  });
});
