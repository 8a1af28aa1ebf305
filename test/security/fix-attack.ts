import { createHash } from 'node:crypto';
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, expect } from 'vitest';
import { DEMO_BUG } from '../../local/github/demo-webshop.ts';
import {
  type BugHarness,
  bugIdFor,
  CHANNELS,
  DEVELOPER,
  messageIdOf,
  REPORTER,
  readsHistory,
  type Step,
  startBugHarness,
} from '../sandbox/bug-harness.ts';
import { eventually } from '../support/eventually.ts';
import { lastToolResults, submit, toolResultText, toolUse } from '../support/scripted-model.ts';
import { REPO } from './support.ts';

/**
 * The bug workflow's fix path played through the sandbox by a scripted model: a report, the
 * findings, a developer's request, then the fixer's turn (the real fix, then `more`), one build
 * attempt (the harness's `maxFixAttempts`). The attack suites replay what a fixer could write.
 */
export function fixAttacks(h: BugHarness, github: Octokit) {
  const AT = `${DEMO_BUG.file}:${DEMO_BUG.line}`;
  const BUG_LINE = '  const vat = vatFor(subtotal, options.region);';
  const FIXED_LINE = '  const vat = vatFor(net, options.region);';
  const fixDiff = `--- a/${DEMO_BUG.file}\n+++ b/${DEMO_BUG.file}\n@@ -${DEMO_BUG.line},1 +${DEMO_BUG.line},1 @@\n-${BUG_LINE}\n+${FIXED_LINE}\n`;
  const REPORT =
    'Checkout totals are too high when I use a discount code: 2 T-shirts with SAVE10 in region DE charge 48.53 instead of 47.77.';

  const branchOf = (bug: string) =>
    `agents/bug-${createHash('sha256').update(bug).digest('hex').slice(0, 12)}`;
  const botTexts = async (channel: string, threadTs?: string) =>
    (await h.messages(channel, threadTs)).filter((m) => m.bot).map((m) => m.text);

  const waitFor = <T>(probe: () => Promise<T>, accept: (value: T) => boolean, what: string, seconds = 180) =>
    eventually(probe, accept, what, { stallMs: seconds * 1000, intervalMs: 200 });

  async function packageJson(): Promise<Record<string, unknown>> {
    const { data } = await github.rest.repos.getContent({ ...REPO, path: 'package.json' });
    if (!('content' in data)) throw new Error('not a file');
    return JSON.parse(Buffer.from(data.content, 'base64').toString('utf8')) as Record<string, unknown>;
  }

  /** A fixer turn: the real fix, then `more` (each a tool call whose result must not be an error), then `fix_written`. */
  function fixer(more: Step[]): Step[] {
    const checked =
      (step: Step): Step =>
      (request) => {
        const [result] = lastToolResults(request.body);
        expect(result ? toolResultText(result) : '').not.toMatch(/^error/i);
        return typeof step === 'function' ? step(request) : step;
      };
    return [
      () => toolUse('write_file', { path: DEMO_BUG.file, diff: fixDiff }),
      ...more.map(checked),
      checked(() => submit({ action: 'fix_written', summary: `Changed ${AT}.` })),
    ];
  }

  /** Report, findings, a developer's request, the fixer's turn; returns what both threads were told. */
  async function attack(more: Step[]) {
    const report = await h.post(CHANNELS.reports, REPORTER, REPORT);
    const bug = bugIdFor(report);
    h.script(bug, [
      readsHistory(bug),
      () =>
        submit({
          action: 'post_findings',
          summary: `VAT is charged on the subtotal before the discount at ${AT}.`,
          root_cause: `${AT} passes subtotal to vatFor.`,
          confidence: 90,
          severity: 'high',
        }),
    ]);
    const findings = await waitFor(
      () => h.messages(CHANNELS.summaries),
      (all) => all.some((m) => m.bot && m.text.includes(AT) && Number(m.ts) > Number(report)),
      'the findings',
      60,
    );
    const thread =
      findings.find((m) => m.bot && m.text.includes(AT) && Number(m.ts) > Number(report))?.ts ?? '';
    h.script(bug, [
      readsHistory(bug),
      (request) =>
        submit({
          action: 'fix_requested',
          fix_request: messageIdOf(request, DEVELOPER),
          summary: `VAT is charged on the subtotal before the discount at ${AT}.`,
          confidence: 90,
          severity: 'high',
          fix: { description: 'Charge VAT on net.' },
        }),
      ...fixer(more),
    ]);
    await h.post(CHANNELS.summaries, DEVELOPER, 'Please fix it and open a PR', thread);
    const developers = await waitFor(
      () => botTexts(CHANNELS.summaries, thread),
      (texts) =>
        texts.some((t) => t.includes('No pull request was opened') || t.includes('pull request opened')),
      'the outcome in the findings thread',
    );
    const reporter = await waitFor(
      () => botTexts(CHANNELS.reports, report),
      (texts) =>
        texts.some((t) => t.includes('No pull request was opened') || t.includes('pull request opened')),
      "the outcome in the reporter's thread",
      60,
    );
    const pulls = (await github.rest.pulls.list({ ...REPO, state: 'all', head: `demo:${branchOf(bug)}` }))
      .data;
    return { bug, developers: developers.at(-1) ?? '', reporter: reporter.at(-1) ?? '', pulls };
  }

  return { attack, packageJson, branchOf };
}

/**
 * A suite's sandbox for fix attacks (protected changes refused, one build attempt), started
 * before its tests and stopped after them, with no problem left on the model's side.
 */
export function fixAttackSuite() {
  let h: BugHarness | undefined;
  let attacks: ReturnType<typeof fixAttacks> | undefined;
  beforeAll(async () => {
    h = await startBugHarness({
      bugInvestigation: { repository: 'demo/webshop', protectedChanges: 'refuse', maxFixAttempts: 1 },
    });
    const github = new Octokit({
      baseUrl: h.sandbox.github.apiUrl,
      auth: h.sandbox.github.createUserToken('demo-maintainer'),
    });
    attacks = fixAttacks(h, github);
  });
  afterAll(async () => {
    await h?.stop();
    expect(h?.modelFailures ?? [], 'what went wrong on the model side').toEqual([]);
  });
  const started = () => {
    if (h === undefined || attacks === undefined) throw new Error('the sandbox did not start');
    return { h, attacks };
  };
  return {
    attack: (more: Step[]) => started().attacks.attack(more),
    packageJson: () => started().attacks.packageJson(),
    harness: () => started().h,
  };
}
