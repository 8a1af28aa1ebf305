import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoFeedbackStore } from '../../lambdas/feedback/adapters/dynamo-feedback-store.ts';
import {
  type BugHarness,
  type BugResult,
  bugIdFor,
  CHANNELS,
  DEVELOPER,
  findings,
  REPORTER,
  startBugHarness,
  turn,
} from '../sandbox/bug-harness.ts';
import { launchBeside, openConsoleAt, releaseConsoleBrowser, shot } from './browser.ts';

/**
 * The console's feedback buttons and App Home in Debian's Chromium: a press of an answer's
 * thumbs up sends the real `block_actions`, and the conversation's detail shows the stored
 * feedback; the Home of a developer shows the approval waiting for them, and its button decides it.
 */

let h: BugHarness;
let browser: Browser;

beforeAll(async () => {
  ({ browser, started: h } = await launchBeside(
    () =>
      startBugHarness({
        approvals: { acknowledge_escalation: ['developer'] },
        reporterWaitSeconds: 600_000,
        developerWaitSeconds: 600_000,
        bugInvestigation: {
          sla: {
            acknowledgeMinutes: { critical: 2000, high: 2000, medium: 2000, low: 2000 },
            maxReminders: 1,
          },
        },
      }),
    (harness) => harness.stop(),
  ));
});

afterAll(async () => {
  await releaseConsoleBrowser(browser);
  await h?.stop();
  expect(h?.modelFailures ?? []).toEqual([]);
});

const feedbackOf = (bug: string) =>
  new DynamoFeedbackStore({ client: h.sandbox.dynamodb, tableName: h.sandbox.tableName }).list(bug);

describe('the console', () => {
  it("renders an answer's feedback buttons, sends a press, and shows the feedback in the conversation", async () => {
    const summary = 'The export button calls a removed endpoint.';
    const report = await h.post(CHANNELS.reports, REPORTER, 'Export does nothing');
    const bug = bugIdFor(report);
    h.script(bug, turn(bug, findings(summary)));
    const posts = await h.eventually(
      () => h.messages(CHANNELS.summaries),
      (list) => list.some((m) => m.bot && m.text.includes(summary)),
      'the findings',
    );
    const ts = posts.find((m) => m.bot && m.text.includes(summary))?.ts ?? '';

    const hash = `#${new URLSearchParams({ channel: CHANNELS.summaries, as: DEVELOPER })}`;
    const { page, context } = await openConsoleAt(browser, `${h.sandbox.url}/${hash}`, {
      width: 1400,
      height: 900,
    });
    const message = page.locator(`[data-testid="message"][data-ts="${ts}"]`).first();
    await message.locator('[data-testid="context-actions"]').waitFor();
    await message.locator('[data-testid="feedback-up"]').click();
    await message.locator('[data-testid="feedback-up"].pressed').waitFor();
    // The view renders the channel's messages anew on every change: a later post replaces the
    // answer's node, and the new one still shows this viewer's press.
    await message.evaluate((node) => node.setAttribute('data-rendered-before', ''));
    await h.post(CHANNELS.summaries, DEVELOPER, 'Looking into the endpoint now.');
    await page.locator('[data-testid="message"]', { hasText: 'Looking into the endpoint now.' }).waitFor();
    const rerendered = page.locator(`[data-testid="message"][data-ts="${ts}"]:not([data-rendered-before])`);
    await rerendered.first().waitFor();
    expect(await rerendered.first().locator('[data-testid="feedback-up"]').getAttribute('class')).toContain(
      'pressed',
    );
    const stored = await h.eventually(
      () => feedbackOf(bug),
      (list) => list.length === 1,
      'the feedback from the console',
    );
    expect(stored[0]).toMatchObject({ vote: 'up', by: DEVELOPER, answerKind: 'findings', messageTs: ts });
    await shot(page, 'feedback-buttons');

    await context.close();

    const detail = await openConsoleAt(
      browser,
      `${h.sandbox.url}/#${new URLSearchParams({ conversation: bug, as: DEVELOPER })}`,
      { width: 1400, height: 900 },
    );
    const section = detail.page.locator('[data-testid="conversation-feedback"]');
    await section.locator('[data-testid="feedback-item"][data-vote="up"]').waitFor();
    expect(await section.textContent()).toContain('Dev Eloper on the findings');
    await shot(detail.page, 'conversation-feedback');
    await detail.context.close();
    await h.post(CHANNELS.reports, REPORTER, 'never mind', report);
  });

  it("shows a developer's App Home with the approval waiting for them, and its button decides it", async () => {
    const escalation: BugResult = {
      action: 'escalate',
      summary: 'Invoice mailer runs twice per schedule.',
      confidence: 30,
      severity: 'low',
    };
    const report = await h.post(CHANNELS.reports, REPORTER, 'Invoices are emailed twice');
    const bug = bugIdFor(report);
    h.script(bug, turn(bug, escalation));
    await h.eventually(
      () => h.store.getConversation(bug, { consistent: true }),
      (c) => c?.approvals?.acknowledge_escalation?.messageTs !== undefined,
      'the approval to be open',
    );

    const { page, context } = await openConsoleAt(browser, `${h.sandbox.url}/#as=${DEVELOPER}`, {
      width: 1400,
      height: 900,
    });
    await page.locator('[data-testid="home-button"]').click();
    const home = page.locator('[data-testid="home-view"]');
    await home.getByText('Invoice mailer runs twice').waitFor();
    expect(await page.locator('[data-testid="home-user"]').inputValue()).toBe(DEVELOPER);
    expect(await home.textContent()).toContain('Waiting for you');
    await shot(page, 'app-home');
    await home.locator('[data-testid="block-button"]', { hasText: 'Acknowledge' }).click();
    const decided = await h.eventually(
      () => h.store.getConversation(bug, { consistent: true }),
      (c) => (c?.decisions ?? []).length === 1,
      'the decision from the Home',
    );
    expect(decided?.decisions?.[0]).toMatchObject({ decision: 'acknowledge', by: DEVELOPER });
    await home.getByText('No approval is waiting for you.').waitFor();
    await context.close();
    await h.post(CHANNELS.reports, REPORTER, 'never mind', report);
  });
});
