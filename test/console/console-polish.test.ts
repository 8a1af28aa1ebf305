import { Octokit } from '@octokit/rest';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoChannelStore } from '../../lambdas/workflows/channel-conversations/adapters/dynamo-channel-store.ts';
import { channelConversationId } from '../../lambdas/workflows/channel-conversations/model.ts';
import { DEMO_BUG } from '../../local/github/demo-webshop.ts';
import {
  type BugHarness,
  bugIdFor,
  CHANNELS,
  DEVELOPER,
  findings,
  messageIdOf,
  REPORTER,
  readsHistory,
  type Step,
  startBugHarness,
  submits,
} from '../sandbox/bug-harness.ts';
import { eventually } from '../support/eventually.ts';
import { submit, toolUse } from '../support/scripted-model.ts';
import {
  expectGraphFits,
  launchBeside,
  onPage,
  openConsoleAt,
  overlaps,
  releaseConsoleBrowser,
  shot,
} from './browser.ts';

/**
 * The console's items and the workspace view, in Debian's Chromium against the
 * sandbox with the bug workflow on `demo/webshop` (so its graph has the fix path, the
 * 1,700 px wide graph the issue measured): a fix's branch, commits, builds and pull request;
 * execution links that open this console; Fit; the grouped event history; the thread's close
 * button; shared files; channel conversations in the list.
 */

let h: BugHarness;
let browser: Browser;
let github: Octokit;

beforeAll(async () => {
  ({ browser, started: h } = await launchBeside(
    () =>
      startBugHarness(
        {
          bugInvestigation: { repository: 'demo/webshop' },
          reporterWaitSeconds: 600_000,
          developerWaitSeconds: 600_000,
        },
        { buildMemo: true },
      ),
    (harness) => harness.stop(),
  ));
  github = new Octokit({
    baseUrl: h.sandbox.github.apiUrl,
    auth: h.sandbox.github.createUserToken('demo-maintainer'),
  });
});

afterAll(async () => {
  await releaseConsoleBrowser(browser);
  await h?.stop();
  expect(h?.modelFailures ?? []).toEqual([]);
});

const open = (viewport: { width: number; height: number }, hash = '') =>
  openConsoleAt(browser, `${h.sandbox.url}/${hash}`, viewport);

const bot = async (channel: string, threadTs?: string) =>
  (await h.messages(channel, threadTs)).filter((m) => m.bot);

/** Waits up to `seconds` (builds run the demo's real npm test). */
const waitFor = <T>(probe: () => Promise<T>, accept: (value: T) => boolean, what: string, seconds = 60) =>
  eventually(probe, accept, what, seconds * 1000);

/** Reports a bug whose first turn posts findings; returns the bug id and the findings' thread. */
async function reportWithFindings(text: string, summary: string): Promise<{ bug: string; thread: string }> {
  const report = await h.post(CHANNELS.reports, REPORTER, text);
  const bug = bugIdFor(report);
  h.script(bug, [readsHistory(bug), submits(findings(summary))]);
  const posted = await waitFor(
    () => bot(CHANNELS.summaries),
    (all) => all.some((m) => m.text.includes(summary)),
    'the findings',
  );
  const thread = posted.find((m) => m.text.includes(summary))?.ts;
  if (!thread) throw new Error('no findings');
  return { bug, thread };
}

const BUG_LINE = '  const vat = vatFor(subtotal, options.region);';
const FIXED_LINE = '  const vat = vatFor(net, options.region);';
const lineDiff = (before: string, after: string) =>
  `--- a/${DEMO_BUG.file}\n+++ b/${DEMO_BUG.file}\n@@ -${DEMO_BUG.line},1 +${DEMO_BUG.line},1 @@\n-${before}\n+${after}\n`;
const fixerWrites = (diff: string, summary: string): Step[] => [
  () => toolUse('write_file', { path: DEMO_BUG.file, diff }),
  () => submit({ action: 'fix_written', summary }),
];

const currentState = (page: Page, name: string) =>
  page.locator(`[data-testid="current-state"][data-state="${name}"]`).waitFor();

describe('the console shows what a conversation did to code', () => {
  it("shows a fix's work branch, its commits, each build's checks with exit codes and output, and the draft PR", async () => {
    const { bug, thread } = await reportWithFindings(
      'Checkout totals are too high with the discount code SAVE10 in region DE.',
      `VAT is charged before the discount at ${DEMO_BUG.file}:${DEMO_BUG.line}.`,
    );
    h.script(bug, [
      readsHistory(bug),
      (request) =>
        submit({
          action: 'fix_requested',
          fix_request: messageIdOf(request, DEVELOPER),
          summary: `VAT is charged before the discount at ${DEMO_BUG.file}:${DEMO_BUG.line}.`,
          confidence: 90,
          severity: 'high',
          fix: { description: 'Charge VAT on net.' },
        }),
      // The first attempt changes nothing that matters: its build fails, and is fed back.
      ...fixerWrites(lineDiff(BUG_LINE, `${BUG_LINE} // attempt 1`), 'A first try.'),
      ...fixerWrites(lineDiff(`${BUG_LINE} // attempt 1`, FIXED_LINE), 'VAT on net.'),
    ]);
    await h.post(CHANNELS.summaries, DEVELOPER, 'Please fix it and open a PR', thread);
    await waitFor(
      () => bot(CHANNELS.summaries, thread),
      (all) => all.some((m) => m.text.includes('Draft pull request opened')),
      'the pull request in the findings thread',
      300,
    );

    const { context, page } = await open(
      { width: 1280, height: 900 },
      `#conversation=${encodeURIComponent(bug)}`,
    );
    const workspace = page.getByTestId('workspace');
    await workspace.waitFor();
    // The pull request, as GitHub has it, and the branch it comes from.
    const link = workspace.getByTestId('pull-request-link');
    await link.waitFor();
    const number = Number((await link.textContent())?.split('#')[1]);
    const { data: pull } = await github.rest.pulls.get({
      owner: 'demo',
      repo: 'webshop',
      pull_number: number,
    });
    expect(pull.draft).toBe(true);
    expect(await link.getAttribute('href')).toBe(pull.html_url);
    const branch = workspace.locator(`[data-testid="branch"][data-branch="${pull.head.ref}"]`);
    await branch.waitFor();
    // Its commits, as the branch has them on GitHub (the two writes of the fixer).
    const { data: compare } = await github.rest.repos.compareCommitsWithBasehead({
      owner: 'demo',
      repo: 'webshop',
      basehead: `main...${pull.head.ref}`,
    });
    expect(compare.ahead_by).toBe(2);
    await expect
      .poll(() =>
        branch.getByTestId('commit').evaluateAll((els) => els.map((e) => e.getAttribute('data-sha'))),
      )
      .toEqual(expect.arrayContaining(compare.commits.map((c) => c.sha)));
    // Two builds: the first failing its tests (exit 1, the failing test in the tail), the second green.
    const builds = workspace.getByTestId('build');
    await onPage(
      () => builds.count(),
      (n) => n === 2,
      'two builds',
    );
    const first = workspace.locator('[data-testid="build"][data-attempt="1"]');
    expect(await first.getAttribute('data-passed')).toBe('false');
    const failing = first.locator('[data-testid="check"][data-check="test"]');
    expect(await failing.getByTestId('check-exit').textContent()).toBe('exit 1');
    expect(await failing.getByTestId('check-tail').textContent()).toMatch(/fail/i);
    const second = workspace.locator('[data-testid="build"][data-attempt="2"]');
    expect(await second.getAttribute('data-passed')).toBe('true');
    expect(
      await second
        .locator('[data-testid="check"][data-check="test"]')
        .getByTestId('check-exit')
        .textContent(),
    ).toBe('exit 0');
    await workspace.scrollIntoViewIfNeeded();
    await shot(page, 'workspace-fix');
    await context.close();
  });
});

describe("the console's rough edges", () => {
  it('links findings to the sandbox console, whose Fit fits the graph and whose history is grouped per state', async () => {
    const summary = 'The session token is lost after the payment redirect.';
    const { bug } = await reportWithFindings('paying fails after the redirect', summary);
    const first = await open({ width: 1280, height: 800 }, `#channel=${CHANNELS.summaries}`);
    const findingsMessage = first.page
      .getByTestId('channel-messages')
      .locator('[data-testid="message"]', { hasText: summary });
    const link = findingsMessage.locator('a', { hasText: 'Investigation in the Step Functions console' });
    const href = (await link.getAttribute('href')) ?? '';
    // The sandbox's executions exist nowhere else: the link is this console's, not AWS's.
    expect(href.startsWith(`${h.sandbox.url}/#execution=`)).toBe(true);
    expect(href).not.toContain('amazon');
    await first.context.close();

    const { context, page } = await openConsoleAt(browser, href, { width: 1280, height: 800 });
    await page.getByTestId('conversation-status').waitFor();
    expect(await page.locator('.conversation-pane .pane-head h1').getAttribute('title')).toBe(bug);
    await currentState(page, 'Wait for developers');

    // Fit: the whole graph's width in the box, whatever its size (the fix path makes it wide).
    await page.getByTestId('zoom-fit').click();
    const sizes = await expectGraphFits(page);
    expect(sizes.graph).toBeGreaterThan(sizes.box);
    await page.setViewportSize({ width: 1100, height: 800 });
    await expectGraphFits(page);

    // The history: a few groups, one per state visit, each opened on demand.
    const count = (await page.getByTestId('event-count').textContent()) ?? '';
    const [, events = '0', steps = '0'] = /(\d+) events in (\d+) steps/.exec(count) ?? [];
    expect(Number(steps)).toBeLessThan(Number(events) / 2);
    expect(await page.getByTestId('event-group').count()).toBe(Number(steps));
    expect(await page.getByTestId('event').count()).toBe(0);
    const investigate = page.locator('[data-testid="event-group"][data-state="Investigate"]').first();
    await investigate.locator('.event-group-row').click();
    await onPage(
      () => investigate.getByTestId('event').count(),
      (n) => n > 1,
      'the open group to list its events',
    );
    expect(await page.getByTestId('event').count()).toBe(await investigate.getByTestId('event').count());
    await page.getByTestId('toggle-all-groups').click();
    await onPage(
      () => page.getByTestId('event').count(),
      (n) => n === Number(events),
      'every group open',
    );
    await shot(page, 'fit-and-grouped-history');
    await context.close();
  });

  it("keeps the thread's close button off the title and the chip at 1,400 px", async () => {
    const summary = 'A thread to close.';
    const { thread } = await reportWithFindings('the close button test reports a bug', summary);
    for (const width of [1400, 1280, 1101]) {
      const { context, page } = await open(
        { width, height: 800 },
        `#channel=${CHANNELS.summaries}&thread=${encodeURIComponent(thread)}`,
      );
      const head = page.getByTestId('thread-pane').locator('.pane-head');
      const close = page.getByTestId('close-thread');
      await page.getByTestId('thread-conversation').waitFor();
      for (const other of [head.locator('h1'), page.getByTestId('thread-conversation')]) {
        expect(await overlaps(close, other), `at ${width} px`).toBe(false);
      }
      // The button is inside the pane, on the right, where it can be pressed.
      const [box, pane] = await Promise.all([
        close.boundingBox(),
        page.getByTestId('thread-pane').boundingBox(),
      ]);
      if (!box || !pane) throw new Error('no box');
      expect(box.x + box.width).toBeLessThanOrEqual(pane.x + pane.width);
      if (width === 1400) await shot(page, 'thread-close-1400');
      await close.click();
      await page.getByTestId('thread-pane').waitFor({ state: 'hidden' });
      await context.close();
    }
  });

  it('shows a PRD shared as a file with its name, a preview and a link to the whole file', async () => {
    const workspace = h.sandbox.slack.workspace;
    const root = workspace.postAsUser({
      channel: CHANNELS.developers,
      user: REPORTER,
      text: 'an idea: dark mode',
    });
    const lines = [
      '# PRD: dark mode',
      '',
      '## Problem',
      'Night owls squint.',
      ...Array.from({ length: 40 }, (_, i) => `- requirement ${i + 1}`),
    ];
    const content = `${lines.join('\n')}\n`;
    const id = workspace.reserveUpload({ filename: 'prd-dark-mode.md' });
    workspace.receiveUpload(id, content);
    const shared = workspace.completeUploads({
      files: [{ id, title: 'PRD: dark mode' }],
      channel: CHANNELS.developers,
      thread_ts: root.ts,
    });
    await workspace.settled();

    const { context, page } = await open(
      { width: 1280, height: 800 },
      `#channel=${CHANNELS.developers}&thread=${encodeURIComponent(root.ts)}`,
    );
    const message = page.locator(`[data-testid="thread-messages"] [data-ts="${shared.ts}"]`);
    const card = message.getByTestId('file-share');
    await card.waitFor();
    expect(await card.locator('.file-title').textContent()).toBe('PRD: dark mode');
    expect(await card.locator('.file-meta').textContent()).toContain('prd-dark-mode.md');
    const preview = (await card.getByTestId('file-preview').textContent()) ?? '';
    expect(preview.startsWith('# PRD: dark mode\n\n## Problem\nNight owls squint.')).toBe(true);
    expect(preview).not.toContain('requirement 40');
    expect(preview.endsWith('…')).toBe(true);
    // The whole file, as uploaded.
    const href = (await card.getByTestId('file-open').getAttribute('href')) ?? '';
    const file = await page.request.get(`${h.sandbox.url}${href}`);
    expect(file.status()).toBe(200);
    expect(await file.text()).toBe(content);
    await shot(page, 'file-share');
    await context.close();
  });

  it("lists channel conversations beside the workflows' conversations, with their messages", async () => {
    const store = new DynamoChannelStore({ client: h.sandbox.dynamodb, tableName: h.sandbox.tableName });
    const ts = `${Math.floor(Date.now() / 1000)}.000200`;
    const id = channelConversationId(CHANNELS.developers, ts);
    const now = new Date().toISOString();
    await store.startConversation(
      {
        channel: CHANNELS.developers,
        conversationId: id,
        startedAt: now,
        lastActivity: now,
        participants: {},
      },
      now,
    );
    await store.recordMessage(id, CHANNELS.developers, {
      ts,
      userId: 'U_THIRD',
      text: 'hey bot, what does the checkout service do?',
      isBot: false,
      at: now,
    });

    const { context, page } = await open({ width: 1280, height: 800 });
    const link = page.locator(`[data-testid="conversation-link"][data-conversation="${id}"]`);
    await link.waitFor();
    expect(await link.textContent()).toContain('Channel conversations');
    await link.click();
    await page
      .getByTestId('conversation-history')
      .getByText('hey bot, what does the checkout service do?')
      .waitFor();
    // Said in words; the raw status is the badge's title.
    expect(await page.getByTestId('conversation-status').textContent()).toBe('Listening');
    expect(await page.getByTestId('conversation-status').getAttribute('title')).toBe('active · attentive');
    await context.close();
  });
});
