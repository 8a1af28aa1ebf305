import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeValues } from '../redaction/fake-values.ts';
import {
  type BugHarness,
  bugIdFor,
  CHANNELS,
  findings,
  REPORTER,
  readsHistory,
  startBugHarness,
  submits,
} from '../sandbox/bug-harness.ts';
import { launchBeside, onPage, openConsoleAt, releaseConsoleBrowser, shot } from './browser.ts';

/**
 * The console's ledger shows how many secrets and how much personal data the redaction layer
 * replaced in a conversation, as the ledger counts them, and never the values themselves.
 */

const v = fakeValues(11);
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

describe('redaction counts in the console', () => {
  it("shows the conversation's redacted secrets and personal data from its ledger, without the values", async () => {
    const report = await h.post(
      CHANNELS.reports,
      REPORTER,
      `Checkout charged my card ${v.card} twice; the log shows token ${v.githubToken}`,
    );
    const id = bugIdFor(report);
    h.script(id, [readsHistory(id), submits(findings('The payment retried after a timeout.'))]);
    // The report's card and token, replaced where the Router stored the message, are counted by the doors.
    const conversation = await h.eventually(
      () => h.store.getConversation(id, { consistent: true }),
      (c) => c?.wait !== undefined && (c.ledger?.redactedSecrets ?? 0) > 0,
      'the findings to wait for developers, the counts in the ledger',
    );
    expect(conversation?.ledger?.redactedKinds).toEqual({ 'secret:github-token': 1, 'pii:card': 1 });
    expect(conversation?.ledger?.redactedSecrets).toBe(1);
    expect(conversation?.ledger?.redactedPii).toBe(1);

    const { context, page } = await openConsoleAt(
      browser,
      `${h.sandbox.url}/#conversation=${encodeURIComponent(id)}`,
      { width: 1400, height: 900 },
    );
    const ledger = page.getByRole('region', { name: 'Ledger' });
    const secrets = page.getByTestId('ledger-redacted-secrets');
    const pii = page.getByTestId('ledger-redacted-pii');
    await onPage(
      () => secrets.locator('.value').textContent(),
      (text) => text === String(conversation?.ledger?.redactedSecrets),
      'the redacted secrets count',
    );
    expect(await pii.locator('.value').textContent()).toBe(String(conversation?.ledger?.redactedPii));
    expect(await secrets.getAttribute('title')).toBe('1 github-token');
    expect(await pii.getAttribute('title')).toBe('1 card');
    expect(await secrets.locator('.label').textContent()).toBe('secrets redacted');
    expect(await pii.locator('.label').textContent()).toBe('personal data redacted');
    const shown = (await ledger.textContent()) ?? '';
    for (const value of [v.card, v.githubToken]) expect(shown).not.toContain(value);
    await shot(page, 'redaction-counts');
    await context.close();
  });
});
