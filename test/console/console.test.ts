import { mkdirSync } from 'node:fs';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ask,
  type BugHarness,
  bugIdFor,
  CHANNELS,
  findings,
  REPORTER,
  readsHistory,
  type Step,
  startBugHarness,
  submits,
} from '../sandbox/bug-harness.ts';
import { launchBeside, onPage, openConsoleAt, releaseConsoleBrowser, shot } from './browser.ts';

/**
 * The sandbox web console in Debian's Chromium (playwright-core, no downloaded browser): the
 * console is built with Vite, the sandbox runs in process with a scripted model, and the test
 * uses the page as a person would: the composer, the thread, the conversation's graph.
 * Screenshots of every step go to test-output/console/; `UPDATE_SCREENSHOT=1` also writes the
 * README's docs/console.png.
 */

let h: BugHarness;
let browser: Browser;

beforeAll(async () => {
  // Chromium found, or installed with apt-get as root (saying why), or a failure saying how to
  // install it; an apt-get install of Chromium on a fresh machine takes minutes.
  ({ browser, started: h } = await launchBeside(
    // Long waits for people, so a slow browser never races a scaled 2-hour timeout.
    () => startBugHarness({ reporterWaitSeconds: 600_000, developerWaitSeconds: 600_000 }),
    (harness) => harness.stop(),
  ));
});

afterAll(async () => {
  await releaseConsoleBrowser(browser);
  await h?.stop();
  expect(h?.modelFailures ?? []).toEqual([]);
});

const openConsole = (
  viewport: { width: number; height: number },
  options: { mode?: 'live' | 'polling'; before?: (page: Page) => Promise<void> } = {},
) => openConsoleAt(browser, h.sandbox.url, viewport, options);

/** A promise the test resolves to let a scripted model step go on. */
function gate(): { promise: Promise<void>; open(): void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

const waitsFor =
  (g: { promise: Promise<void> }, step: Step): Step =>
  async (request) => {
    await g.promise;
    return typeof step === 'function' ? step(request) : step;
  };

/** The ts of the user's top-level message with `text`, as the fake Slack recorded it. */
async function tsOf(channel: string, user: string, text: string): Promise<string> {
  const messages = await h.eventually(
    () => h.messages(channel),
    (list) => list.some((m) => m.user === user && m.text === text),
    `"${text}" in ${channel}`,
  );
  const found = messages.find((m) => m.user === user && m.text === text);
  if (!found) throw new Error(`no message "${text}"`);
  return found.ts;
}

const currentState = (page: Page, names: string[]) =>
  page
    .locator('[data-testid="current-state"]')
    .and(page.locator(names.map((n) => `[data-state="${n}"]`).join(', ')))
    .waitFor();

async function send(composer: Locator, text: string): Promise<void> {
  await composer.getByTestId('composer-input').fill(text);
  await composer.getByTestId('composer-input').press('Enter');
  await onPage(
    () => composer.getByTestId('composer-input').inputValue(),
    (v) => v === '',
    'the composer to clear',
  );
}

describe('the sandbox console', () => {
  it('takes a vague bug from the composer to findings, the graph following the execution live', async () => {
    const { context, page } = await openConsole({ width: 1280, height: 800 });
    await page.evaluate('window.__sameDocument = true');

    // 1. The reporter posts a vague bug in #bug-reports through the composer.
    await page.locator(`[data-testid="channel-link"][data-channel="${CHANNELS.reports}"]`).click();
    await page.getByTestId('post-as').selectOption(REPORTER);
    await send(page.getByTestId('channel-composer'), 'something is broken');
    const report = await tsOf(CHANNELS.reports, REPORTER, 'something is broken');
    const bug = bugIdFor(report);
    const firstTurn = gate();
    const secondTurn = gate();
    const question = 'Which page fails, and what error do you see?';
    const summary = 'Checkout fails after the payment redirect.';
    h.script(bug, [
      readsHistory(bug),
      waitsFor(firstTurn, submits(ask(question))),
      readsHistory(bug),
      waitsFor(secondTurn, submits(findings(summary))),
    ]);
    const reportMessage = page.locator(`[data-testid="channel-messages"] [data-ts="${report}"]`);
    await reportMessage.waitFor();
    await shot(page, '01-report-posted');

    // 2. Its thread: the bot acknowledges, and shows it is thinking while the agent's turn runs.
    await reportMessage.getByTestId('open-thread').click();
    const thread = page.getByTestId('thread-pane');
    await thread.getByText("I'm looking into this.").waitFor();
    await thread.getByTestId('thinking').waitFor();
    await page.getByTestId('thread-conversation').click();
    await currentState(page, ['Investigate']);
    await shot(page, '02-first-turn-thinking');
    firstTurn.open();

    // 3. The clarification question appears in the thread; the graph waits for the reporter.
    await thread.getByText(question).waitFor();
    await currentState(page, ['Wait for reporter']);
    await thread.getByTestId('thinking').waitFor({ state: 'detached' });
    await onPage(
      () => page.getByTestId('conversation-status').textContent(),
      (text) => text === 'Waiting for the reporter',
      'the status to say it waits for the reporter',
    );
    await shot(page, '03-question-waiting-for-reporter');

    // 4. The reporter answers in the thread: the graph moves on to the investigation.
    await send(page.getByTestId('thread-composer'), 'the checkout page, a 500 after paying');
    await currentState(page, ['Continue investigation', 'Investigate']);
    await thread.getByTestId('thinking').waitFor();
    await shot(page, '04-investigating');
    secondTurn.open();

    // 5. The findings are posted for developers; the graph waits for them.
    await currentState(page, ['Wait for developers']);
    const path = page.locator('svg.graph g.node[data-status="succeeded"]');
    for (const state of ['Ask reporter', 'Wait for reporter', 'Continue investigation', 'Post findings']) {
      await path.and(page.locator(`[data-state="${state}"]`)).waitFor();
    }
    // the ledger shows the conversation's estimated model cost, priced per call.
    const cost = page.getByTestId('ledger-cost').locator('.value');
    await onPage(
      () => cost.textContent(),
      (text) => /^\$0\.\d{4}$/.test(text ?? ''),
      'the ledger cost',
    );
    expect(await cost.textContent()).not.toBe('$0.0000');
    await shot(page, '05-waiting-for-developers');
    if (process.env.UPDATE_SCREENSHOT === '1') {
      mkdirSync('docs', { recursive: true });
      await page.screenshot({ path: 'docs/console.png' });
    }

    // A state's input and output, and an event's, on click.
    await page.locator('svg.graph g.node[data-state="Ask reporter"]').click();
    await page.getByTestId('state-detail').getByText(question).first().waitFor();
    // The history in groups per state visit: open one, then one of its events.
    const asked = page.locator('[data-testid="event-group"][data-state="Ask reporter"]').first();
    await asked.locator('.event-group-row').click();
    const entered = asked.locator('[data-testid="event"][data-type="TaskStateEntered"]');
    await entered.locator('button').click();
    await entered.getByText('Input').waitFor();
    await page
      .getByTestId('conversation-history')
      .getByText('the checkout page, a 500 after paying')
      .first()
      .waitFor();
    await shot(page, '06-state-and-event-detail');

    await page.locator(`[data-testid="channel-link"][data-channel="${CHANNELS.summaries}"]`).click();
    const posted = page
      .getByTestId('channel-messages')
      .locator('[data-testid="message"]', { hasText: summary });
    await posted.locator('.block.header', { hasText: 'Bug investigation findings' }).waitFor();
    await posted.locator('.fields', { hasText: 'Root cause' }).waitFor();
    await shot(page, '07-findings-in-bug-summaries');

    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    await context.close();
  });

  it('holds its layout at 1280x800 and 390x844 with a 4,000-character message and 200 replies', async () => {
    // A conversation of its own, so this test also runs alone.
    const report = await h.post(CHANNELS.reports, REPORTER, 'the layout test reports a bug');
    h.script(bugIdFor(report), [readsHistory(bugIdFor(report)), submits(ask('Where does it happen?'))]);
    const workspace = h.sandbox.slack.workspace;
    const words = 'The checkout service returned an error while the payment provider redirected back.';
    let long = `*Findings* \`checkout-service\` ${'x'.repeat(300)} `;
    while (long.length < 4_000) long += `${words} `;
    long = long.slice(0, 4_000);
    const longPost = workspace.postAsBot({ channel: CHANNELS.developers, text: long });
    const root = workspace.postAsUser({
      channel: CHANNELS.developers,
      user: 'U_THIRD',
      text: 'a busy thread',
    });
    let last = '';
    for (let i = 1; i <= 200; i++) {
      last = workspace.postAsUser({
        channel: CHANNELS.developers,
        user: i % 2 ? 'U_DEV' : 'U_DEV2',
        text: `reply ${i}`,
        thread_ts: root.ts,
      }).ts;
    }
    await workspace.settled();

    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      const phone = viewport.width < 700;
      const { context, page } = await openConsole(viewport);
      // The settled layout must not scroll sideways. The console re-renders as the sandbox's
      // change feed arrives, so the check waits for the render to settle, and on failure names
      // the elements that stick out.
      const noOverflow = async () =>
        onPage(
          () =>
            page.evaluate(`(() => {
              if (document.documentElement.scrollWidth <= window.innerWidth) return 'fits';
              const wide = [...document.querySelectorAll('body *')]
                .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
                .slice(0, 5)
                .map((e) => e.tagName + '.' + e.className + ' right=' + Math.round(e.getBoundingClientRect().right));
              return 'overflows: ' + wide.join('; ');
            })()`),
          (seen) => seen === 'fits',
          'the page to fit its width',
        );
      if (phone) await page.getByTestId('nav-channels').click();
      await page.locator(`[data-testid="channel-link"][data-channel="${CHANNELS.developers}"]`).click();

      const longMessage = page.locator(`[data-testid="channel-messages"] [data-ts="${longPost.ts}"]`);
      await longMessage.waitFor();
      await longMessage.scrollIntoViewIfNeeded();
      await expectInViewport(page, longMessage);
      await noOverflow();
      await shot(page, `layout-${viewport.width}-long-message`);

      await page
        .locator(`[data-testid="channel-messages"] [data-ts="${root.ts}"]`)
        .getByTestId('open-thread')
        .click();
      const lastReply = page.locator(`[data-testid="thread-messages"] [data-ts="${last}"]`);
      await lastReply.waitFor();
      await lastReply.scrollIntoViewIfNeeded();
      await expectInViewport(page, lastReply);
      await noOverflow();
      await shot(page, `layout-${viewport.width}-200-replies`);

      // The conversation panel, whose graph is wider than a phone, scrolls inside its own box.
      if (phone) await page.getByTestId('nav-channels').click();
      await page.getByTestId('conversation-link').first().click();
      await page.locator('svg.graph').waitFor();
      await noOverflow();
      await shot(page, `layout-${viewport.width}-conversation`);
      await context.close();
    }
  });
});

describe('the console, beyond the bug workflow', () => {
  it('renders Block Kit and sends a button press through the ingress', async () => {
    const message = h.sandbox.slack.workspace.postAsBot({
      channel: CHANNELS.developers,
      text: 'Deploy approval needed',
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: ':rocket: Deploy approval', emoji: true } },
        {
          type: 'section',
          text: {
            type: 'mrkdwn',
            text: '*Service* `checkout` for <@U_DEV>, see <https://example.test/pr/1|the PR>',
          },
          fields: [
            { type: 'mrkdwn', text: '*Risk*\n_low_' },
            { type: 'mrkdwn', text: '*Paged*\n<!subteam^S_ONCALL>' },
          ],
        },
        { type: 'divider' },
        { type: 'context', elements: [{ type: 'mrkdwn', text: 'asked by <@U_REPORTER>' }] },
        {
          type: 'actions',
          block_id: 'approval',
          elements: [
            {
              type: 'button',
              action_id: 'approve',
              value: 'deploy-1',
              style: 'primary',
              text: { type: 'plain_text', text: 'Approve' },
            },
            {
              type: 'button',
              action_id: 'reject',
              value: 'deploy-1',
              style: 'danger',
              text: { type: 'plain_text', text: 'Reject' },
            },
          ],
        },
      ],
    });
    const { context, page } = await openConsole({ width: 1280, height: 800 });
    await page.locator(`[data-testid="channel-link"][data-channel="${CHANNELS.developers}"]`).click();
    const shown = page.locator(`[data-testid="channel-messages"] [data-ts="${message.ts}"]`);
    await shown.locator('.block.header', { hasText: 'Deploy approval' }).waitFor();
    await shown.locator('strong', { hasText: 'Service' }).waitFor();
    await shown.locator('code', { hasText: 'checkout' }).waitFor();
    await shown.locator('a[href="https://example.test/pr/1"]', { hasText: 'the PR' }).waitFor();
    await shown.locator('.mention', { hasText: '@Dev Eloper' }).waitFor();
    await shown.locator('.fields em', { hasText: 'low' }).waitFor();
    await shown.locator('.block.context', { hasText: '@Rita Reporter' }).waitFor();

    await page.getByTestId('post-as').selectOption('U_DEV');
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/sandbox/slack/action')),
      shown.locator('[data-action-id="approve"]').click(),
    ]);
    expect(response.status()).toBe(200);
    expect(JSON.parse(response.request().postData() ?? '{}')).toEqual({
      channel: CHANNELS.developers,
      message_ts: message.ts,
      action_id: 'approve',
      value: 'deploy-1',
      block_id: 'approval',
      user: 'U_DEV',
    });
    await expect(page.locator('.error-banner').isHidden()).resolves.toBe(true);
    await shot(page, 'block-kit');
    await context.close();
  });

  it('falls back to polling when the change stream fails, and still shows new messages', async () => {
    const { context, page } = await openConsole(
      { width: 1280, height: 800 },
      {
        mode: 'polling',
        before: async (p) => {
          await p.route('**/sandbox/events', (route) => route.abort());
        },
      },
    );
    await page.locator(`[data-testid="channel-link"][data-channel="${CHANNELS.developers}"]`).click();
    // The channel as first loaded: whatever comes after can only arrive by polling.
    await page.getByTestId('channel-messages').locator('[data-testid="message"], .empty').first().waitFor();
    await h.post(CHANNELS.developers, 'U_THIRD', 'posted while the stream is down');
    await page.getByTestId('channel-messages').getByText('posted while the stream is down').waitFor();
    await context.close();
  });
});

/** Some of the element is inside the viewport, and it is no wider than the viewport. */
async function expectInViewport(page: Page, locator: Locator): Promise<void> {
  const box = await locator.boundingBox();
  const size = page.viewportSize();
  if (!box || !size) throw new Error('the element has no box');
  expect(box.y).toBeLessThan(size.height);
  expect(box.y + box.height).toBeGreaterThan(0);
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(size.width + 0.5);
}
