import type { Browser, Locator } from 'playwright-core';
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
import { launchBeside, onPage, openConsoleAt, overlaps, releaseConsoleBrowser, shot } from './browser.ts';

/** The sandbox workspace's direct-message channel with the agent (stated here, not imported: the value is what this test checks). */
const ASSISTANT_DM = 'D_AGENT';

/**
 * What Slack shows one person and the channel's history does not hold, in Debian's Chromium:
 * a slash command typed in the composer (sent signed to the ingress, its answer only to its
 * writer), ephemeral messages and their buttons, the thumbs down's "What was wrong?" modal
 * (filled and submitted), an approval refused to someone it is not for, an assistant thread's
 * status, and the words the console uses for a conversation's state.
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

const open = (hash: Record<string, string>, width = 1400) =>
  openConsoleAt(browser, `${h.sandbox.url}/#${new URLSearchParams(hash)}`, { width, height: 900 });

async function send(composer: Locator, text: string): Promise<void> {
  await composer.getByTestId('composer-input').fill(text);
  await composer.getByTestId('composer-input').press('Enter');
  await onPage(
    () => composer.getByTestId('composer-input').inputValue(),
    (v) => v === '',
    'the composer to clear',
  );
}

/** Posts a report whose first turn answers `result`; returns the bug and the bot's top-level post in `channel`. */
async function reported(text: string, result: BugResult, channel: string, marker: string) {
  const report = await h.post(CHANNELS.reports, REPORTER, text);
  const bug = bugIdFor(report);
  h.script(bug, turn(bug, result));
  const posts = await h.eventually(
    () => h.messages(channel),
    (list) => list.some((m) => m.bot && m.text.includes(marker)),
    `the bot's post with ${marker}`,
  );
  return { report, bug, ts: posts.find((m) => m.bot && m.text.includes(marker))?.ts ?? '' };
}

describe('the console shows what Slack shows one person', () => {
  it('sends a command typed in the composer through the ingress and shows its answer only to its writer', async () => {
    const { page, context } = await open({ channel: CHANNELS.reports, as: REPORTER });
    await send(page.getByTestId('channel-composer'), '/prd help');

    const answer = page.getByTestId('ephemeral-message').filter({ hasText: 'shows this help' });
    await answer.waitFor();
    // The usage hint is escaped for Slack and shown as written.
    expect(await answer.getByTestId('message-body').textContent()).toContain('/prd <product idea>');
    expect(await answer.getByTestId('ephemeral-note').textContent()).toContain('Only visible to you');
    // A command is no message in the channel.
    expect((await h.messages(CHANNELS.reports)).map((m) => m.text)).not.toContain('/prd help');
    await shot(page, 'slash-command-help');

    // Another reader of the channel does not see it.
    await page.getByTestId('post-as').selectOption(DEVELOPER);
    await answer.waitFor({ state: 'detached' });
    await context.close();
  });

  it('opens "What was wrong?" on a thumbs down, submits its reason, and shows the acknowledgement to the voter alone', async () => {
    const summary = 'The invoice total rounds each line before summing.';
    const { bug, ts } = await reported(
      'Invoice totals are off by a cent',
      findings(summary),
      CHANNELS.summaries,
      summary,
    );
    const { page, context } = await open({ channel: CHANNELS.summaries, as: DEVELOPER });
    const message = page.locator(`[data-testid="message"][data-ts="${ts}"]`).first();
    // The thread first: once the form is open it covers the page, as a Slack modal does.
    await message.getByTestId('open-thread').click();
    const thread = page.getByTestId('thread-pane');
    await thread.waitFor();
    await message.locator('[data-testid="feedback-down"]').click();

    // The press opened the form with its trigger id; on a machine slow enough for the trigger
    // to expire, the acknowledgement's "Add a reason" button opens it again.
    const modal = page.getByTestId('modal');
    const ack = thread.getByTestId('ephemeral-message').filter({ hasText: 'thumbs down' });
    await ack.waitFor();
    expect(await ack.getByTestId('ephemeral-note').textContent()).toContain('Only visible to you');
    if (!(await modal.isVisible())) await ack.getByRole('button', { name: 'Add a reason' }).click();
    await modal.waitFor();
    expect(await modal.getByTestId('modal-title').textContent()).toBe('What was wrong?');
    await shot(page, 'feedback-reason-modal');
    await modal.getByTestId('modal-input').fill('It rounds after summing; the cause is the tax line.');
    await modal.getByTestId('modal-submit').click();
    await modal.waitFor({ state: 'detached' });

    const stored = await h.eventually(
      () => new DynamoFeedbackStore({ client: h.sandbox.dynamodb, tableName: h.sandbox.tableName }).list(bug),
      (list) => list.some((f) => f.reason !== undefined),
      'the reason from the console',
    );
    expect(stored[0]).toMatchObject({
      vote: 'down',
      by: DEVELOPER,
      reason: 'It rounds after summing; the cause is the tax line.',
    });

    // The reporter sees none of it.
    await page.getByTestId('post-as').selectOption(REPORTER);
    await ack.waitFor({ state: 'detached' });
    await context.close();
  });

  it('tells a reporter who presses an approval meant for the developers why nothing happened', async () => {
    const summary = 'Invoice mailer runs twice per schedule.';
    const escalation: BugResult = { action: 'escalate', summary, confidence: 30, severity: 'low' };
    const { bug, report } = await reported(
      'Invoices are emailed twice',
      escalation,
      CHANNELS.summaries,
      summary,
    );
    const opened = await h.eventually(
      () => h.store.getConversation(bug, { consistent: true }),
      (c) => c?.approvals?.acknowledge_escalation?.messageTs !== undefined,
      'the approval to be open',
    );
    const approval = opened?.approvals?.acknowledge_escalation;
    if (!approval?.channel || !approval.messageTs) throw new Error('no approval message');
    // Slack shows the refusal where the press was: the channel for a top-level message, else its thread.
    const { page, context } = await open({
      channel: approval.channel,
      thread: approval.threadTs ?? approval.messageTs,
      as: REPORTER,
    });
    const message = page.locator(`[data-testid="message"][data-ts="${approval.messageTs}"]`).first();
    await message.locator('[data-testid="block-button"]', { hasText: 'Acknowledge' }).first().click();
    const refusal = page.getByTestId('ephemeral-message');
    await refusal.filter({ hasText: 'changed nothing' }).waitFor();
    expect(await refusal.first().getByTestId('ephemeral-note').textContent()).toContain(
      'Only visible to you',
    );
    const after = await h.store.getConversation(bug, { consistent: true });
    expect(after?.decisions ?? []).toEqual([]);
    await shot(page, 'approval-refused');
    await context.close();
    await h.post(CHANNELS.reports, REPORTER, 'never mind', report);
  });

  it("shows an assistant thread's status while the app sets one, in the app's direct messages", async () => {
    // The thread the app opens in its direct messages (a person's message there would start a
    // channel conversation, which this harness's scripted model does not play).
    const bot = {
      authorization: `Bearer ${h.sandbox.slack.workspace.botToken}`,
      'content-type': 'application/json',
    };
    const greeting = (await (
      await fetch(`${h.sandbox.url}/api/chat.postMessage`, {
        method: 'POST',
        headers: bot,
        body: JSON.stringify({ channel: ASSISTANT_DM, text: 'Hi! What can I look into?' }),
      })
    ).json()) as { ts: string };
    const root = greeting.ts;
    const setStatus = (status: string) =>
      fetch(`${h.sandbox.url}/api/assistant.threads.setStatus`, {
        method: 'POST',
        headers: bot,
        body: JSON.stringify({ channel_id: ASSISTANT_DM, thread_ts: root, status }),
      }).then((r) => r.json() as Promise<{ ok: boolean }>);
    expect(await setStatus('is looking at the deploys…')).toMatchObject({ ok: true });

    const { page, context } = await open({ channel: ASSISTANT_DM, thread: root, as: REPORTER });
    const status = page.getByTestId('assistant-status');
    await onPage(
      () => status.textContent(),
      (text) => text === 'agent is looking at the deploys…',
      'the assistant status',
    );
    await shot(page, 'assistant-status');
    // Cleared when the turn ends.
    expect(await setStatus('')).toMatchObject({ ok: true });
    await status.waitFor({ state: 'detached' });
    await context.close();
  });
});

describe("the console's words and layout", () => {
  it("names a conversation's state in words on its chip, and keeps a long subject and a wrapping thread header readable", async () => {
    const subject = '[cloudwatch ALARM] payment-api p99 latency above 2 s in eu-west-1 for 15 minutes';
    const summary = 'The payment client waits on a lock held by the retry loop.';
    const { ts } = await reported(subject, findings(summary), CHANNELS.summaries, summary);
    const { page, context } = await open({ channel: CHANNELS.reports, as: DEVELOPER }, 1101);
    const chip = page.getByTestId('open-conversation').first();
    await onPage(
      () => chip.textContent(),
      (text) => /^⚙ Bug investigation · [A-Z]/.test(text ?? ''),
      'the workflow chip',
    );
    expect(await chip.textContent()).not.toMatch(/awaiting|_/);

    // The list shows the subject whole (as readable.ts cut it), not its first 25 characters.
    const title = page
      .locator('[data-testid="conversation-subject"]', { hasText: 'cloudwatch ALARM' })
      .first();
    await title.waitFor();
    const hidden = await title.evaluate(
      (node) => node.scrollWidth > node.clientWidth + 1 || node.scrollHeight > node.clientHeight + 1,
    );
    expect(hidden).toBe(false);

    // A thread whose header wraps (a narrow pane) keeps its header above its messages.
    await context.close();
    const opened = await open({ channel: CHANNELS.summaries, thread: ts, as: DEVELOPER }, 1101);
    const threadPage = opened.page;
    const head = threadPage.getByTestId('thread-pane').locator('.pane-head');
    const first = threadPage.getByTestId('thread-messages').getByTestId('message').first();
    await first.waitFor();
    await threadPage.getByTestId('thread-conversation').waitFor();
    for (const part of [head.locator('h1'), threadPage.getByTestId('thread-conversation')])
      expect(await overlaps(part, first)).toBe(false);
    const [headBox, bodyBox] = await Promise.all([
      head.boundingBox(),
      threadPage.getByTestId('thread-messages').boundingBox(),
    ]);
    if (!headBox || !bodyBox) throw new Error('no box');
    expect(headBox.y + headBox.height).toBeLessThanOrEqual(bodyBox.y + 1);
    await shot(threadPage, 'labels-and-wrapping');
    await opened.context.close();
  });
});
