import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import {
  ask,
  type BugHarness,
  bugIdFor,
  CHANNELS,
  REPORTER,
  startBugHarness,
  turn,
} from '../sandbox/bug-harness.ts';
import { launchBeside, openConsoleAt, releaseConsoleBrowser, shot } from './browser.ts';

/** The smallest scale that stays readable (stated here, not imported: the number is what this test checks). */
const READABLE_SCALE = 0.7;

/**
 * The console says what a conversation is about and where it stands: the list names each by
 * its opening message with its state in words, a conversation begun on GitHub opens on its
 * issue (no empty `github:` thread), and the bug workflow's large graph opens at a readable
 * size around the state it is in. `UPDATE_SCREENSHOT=1` also writes docs/console-conversation.png.
 */

let h: BugHarness;
let browser: Browser;

beforeAll(async () => {
  ({ browser, started: h } = await launchBeside(
    () => startBugHarness({ reporterWaitSeconds: 600_000, developerWaitSeconds: 600_000 }),
    (harness) => harness.stop(),
  ));
});

afterAll(async () => {
  await releaseConsoleBrowser(browser);
  await h?.stop();
  expect(h?.modelFailures ?? []).toEqual([]);
});

const REPORT = 'The checkout total is blank after the payment redirect on Safari';

describe('the console names conversations and shows where they stand', () => {
  it('lists a bug by its report, waiting for the reporter, and opens its graph around that wait', async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, REPORT);
    const bug = bugIdFor(report);
    h.script(bug, turn(bug, ask('Which version of Safari?')));
    await h.eventually(
      () => h.store.getConversation(bug),
      (c) => c?.phase === 'awaiting_reporter' && c.wait !== undefined,
      'the bug to wait for the reporter',
    );

    const { context, page } = await openConsoleAt(browser, h.sandbox.url, { width: 1024, height: 768 });
    const link = page.locator(`[data-testid="conversation-link"][data-conversation="${bug}"]`);
    await link.waitFor();
    expect(await link.getByTestId('conversation-subject').textContent()).toBe(REPORT);
    expect(await link.getByTestId('list-status').textContent()).toBe('Waiting for the reporter');

    await link.click();
    await page.locator('svg.graph g.node[data-status="current"]').waitFor();
    expect(await page.getByTestId('conversation-status').textContent()).toBe('Waiting for the reporter');
    expect(
      await page.locator('.pane-head:has([data-testid="conversation-status"]) h1').textContent(),
    ).toContain(REPORT);
    // Around: the large graph at 100%, scrolled so the state it waits in is in view.
    expect(await page.getByTestId('zoom-focus').getAttribute('class')).toContain('active');
    // Readable: never shrunk below the scale where state names can still be read.
    const scale = await page
      .locator('svg.graph')
      .evaluate((svg) => Number.parseFloat(svg.style.width) / Number(svg.getAttribute('width')));
    expect(scale).toBeGreaterThanOrEqual(READABLE_SCALE);
    const current = page.locator('svg.graph g.node[data-status="current"]');
    await expect
      .poll(async () => {
        const box = await current.boundingBox();
        const frame = await page.locator('.graph-scroll').boundingBox();
        if (!box || !frame) return false;
        return (
          box.x >= frame.x &&
          box.y >= frame.y &&
          box.x + box.width <= frame.x + frame.width &&
          box.y + box.height <= frame.y + frame.height
        );
      })
      .toBe(true);
    await shot(page, 'named-conversation');
    if (process.env.UPDATE_SCREENSHOT === '1') {
      mkdirSync('docs', { recursive: true });
      await page.screenshot({ path: 'docs/console-conversation.png' });
    }
    await context.close();
  });

  it('opens a conversation begun on GitHub on its issue, not on an empty thread', async () => {
    const store = new DynamoConversationStore({ client: h.sandbox.dynamodb, tableName: h.sandbox.tableName });
    const id = 'issue-pipeline-demo-webshop-12';
    const now = new Date().toISOString();
    await store.createConversation({
      id,
      workflow: 'issue_pipeline',
      status: 'active',
      phase: 'triage',
      ownerId: 'octocat',
      participants: {},
      anchors: {
        issue: {
          name: 'issue',
          channel: 'github:demo/webshop',
          threadTs: '12',
          ownerRole: 'requester',
          othersRole: null,
        },
      },
      closeOnIntent: false,
      closeRequested: false,
      createdAt: now,
      updatedAt: now,
    });
    await store.putMessage({
      conversationId: id,
      ts: '1.000012',
      channel: 'github:demo/webshop',
      threadTs: '12',
      senderType: 'requester',
      senderId: 'octocat',
      messageType: 'message',
      text: 'Cart total ignores the VAT region\n\nThe total is computed before the region is known.',
      receivedAt: now,
    });

    const { context, page } = await openConsoleAt(browser, h.sandbox.url, { width: 1280, height: 800 });
    const link = page.locator(`[data-testid="conversation-link"][data-conversation="${id}"]`);
    await link.waitFor();
    expect(await link.getByTestId('conversation-subject').textContent()).toBe(
      'Cart total ignores the VAT region',
    );
    expect(await link.textContent()).toContain('GitHub demo/webshop#12');
    await link.click();
    const started = page.getByTestId('started-by');
    await started.waitFor();
    expect(await started.locator('h2').textContent()).toBe('Started by GitHub demo/webshop#12');
    expect(await started.locator('pre').textContent()).toContain(
      'The total is computed before the region is known.',
    );
    // No thread pane on a `github:` anchor: the address names no thread.
    expect(decodeURIComponent(page.url())).not.toContain('github:');
    await shot(page, 'github-conversation');
    await context.close();
  });
});
