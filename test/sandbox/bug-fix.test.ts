import { createHash } from 'node:crypto';
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUG } from '../../local/github/demo-webshop.ts';
import { eventually } from '../support/eventually.ts';
import {
  lastToolResults,
  type RecordedModelRequest,
  submit,
  toolResultText,
  toolUse,
} from '../support/scripted-model.ts';
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
} from './bug-harness.ts';
import { expectFailedWithRefusal, refusedSentence } from './model-refusal.ts';

/**
 * the sandbox: the bug workflow on `demo/webshop` (the GitHub
 * emulator's demo repository with its planted bug), a scripted model driving the real code
 * tools, the emulated CodeBuild running the repository's real tests, and the workflow opening
 * the draft pull request through Octokit.
 */

let h: BugHarness;
let github: Octokit;
const REPO = { owner: 'demo', repo: 'webshop' };
const BUG_LINE = '  const vat = vatFor(subtotal, options.region);';
const FIXED_LINE = '  const vat = vatFor(net, options.region);';
const AT = `${DEMO_BUG.file}:${DEMO_BUG.line}`;
const REPORT =
  'Checkout totals are too high when I use a discount code: 2 T-shirts with SAVE10 in region DE charge 48.53 instead of 47.77, steps: add to cart, apply code, pay.';

beforeAll(async () => {
  h = await startBugHarness({ bugInvestigation: { repository: 'demo/webshop' } }, { buildMemo: true });
  github = new Octokit({
    baseUrl: h.sandbox.github.apiUrl,
    auth: h.sandbox.github.createUserToken('demo-maintainer'),
  });
});
afterAll(async () => {
  await h?.stop();
  expect(h?.modelFailures ?? [], 'what went wrong on the model side').toEqual([]);
});

const botTexts = async (channel: string, threadTs?: string) =>
  (await h.messages(channel, threadTs)).filter((m) => m.bot).map((m) => m.text);

/** Waits up to `seconds` (builds run real npm, tests and tsc). */
const waitFor = <T>(probe: () => Promise<T>, accept: (value: T) => boolean, what: string, seconds = 150) =>
  eventually(probe, accept, what, seconds * 1000);

const resultOf = (request: RecordedModelRequest) => {
  const [first] = lastToolResults(request.body);
  return first ? toolResultText(first) : '';
};

/** One line of the demo's checkout.ts replaced, as a unified diff. */
const lineDiff = (before: string, after: string) =>
  `--- a/${DEMO_BUG.file}\n+++ b/${DEMO_BUG.file}\n@@ -${DEMO_BUG.line},1 +${DEMO_BUG.line},1 @@\n-${before}\n+${after}\n`;
/** A change that does not fix the bug (the failing test keeps failing). */
const uselessDiff = (n: number) => lineDiff(BUG_LINE, `${BUG_LINE} // attempt ${n}`);

/** The investigator's first turn: history, search, read, findings citing the planted bug. */
function investigates(bug: string, seen: { search: string; read: string }): Step[] {
  return [
    readsHistory(bug),
    () => toolUse('search_code', { pattern: 'vatFor\\(', regex: true, path_glob: 'src/**' }),
    (request) => {
      seen.search = resultOf(request);
      return toolUse('read_file', { path: DEMO_BUG.file, start_line: 30, end_line: 50 });
    },
    (request) => {
      seen.read = resultOf(request);
      return submit({
        action: 'post_findings',
        summary: `VAT is charged on the subtotal before the discount at ${AT}.`,
        root_cause: `${AT} passes subtotal to vatFor; net (after the discount) is meant.`,
        confidence: 90,
        severity: 'high',
      });
    },
  ];
}

/**
 * The investigator's turn on a fix request: it says `fix_requested`, citing the latest message
 * of its turn (from `user` when given) as the request; the workflow checks that message's sender.
 */
const fixRequested = (bug: string, user?: string): Step[] => [
  readsHistory(bug),
  (request) =>
    submit({
      action: 'fix_requested',
      fix_request: messageIdOf(request, user),
      summary: `VAT is charged on the subtotal before the discount at ${AT}.`,
      confidence: 90,
      severity: 'high',
      fix: { description: 'Charge VAT on net, the amount after the discount.' },
    }),
];

/** A fixer turn: one write, then `fix_written`; `prompt` gets what the turn was told. */
const fixerWrites = (diff: string, prompt?: (text: string) => void): Step[] => [
  (request) => {
    prompt?.(JSON.stringify(request.body.messages));
    return toolUse('write_file', { path: DEMO_BUG.file, diff });
  },
  (request) => {
    expect(resultOf(request)).not.toMatch(/^error/i);
    return submit({ action: 'fix_written', summary: `Changed ${AT}.` });
  },
];

/** Runs the first turn of the bug reported at `reportTs`, and returns its findings thread. */
async function reportAndFindings(bug: string, reportTs: string, seen = { search: '', read: '' }) {
  h.script(bug, investigates(bug, seen));
  const isFindings = (m: { ts: string; bot?: boolean; text: string }) =>
    m.bot === true && m.text.includes(AT) && Number(m.ts) > Number(reportTs);
  const messages = await waitFor(
    () => h.messages(CHANNELS.summaries),
    (all) => all.some(isFindings),
    'findings citing the planted bug',
    60,
  );
  const post = messages.find(isFindings);
  if (!post) throw new Error('no findings');
  return post.ts;
}

async function fileOn(ref: string): Promise<string> {
  const { data } = await github.rest.repos.getContent({ ...REPO, path: DEMO_BUG.file, ref });
  if (!('content' in data)) throw new Error('not a file');
  return Buffer.from(data.content, 'base64').toString('utf8');
}

/** `agents/bug-<short id>`: the first 12 hex digits of the conversation id's SHA-256. */
const branchOf = (bug: string) => `agents/bug-${createHash('sha256').update(bug).digest('hex').slice(0, 12)}`;

async function pullsOf(bug: string) {
  return (await github.rest.pulls.list({ ...REPO, state: 'all', head: `demo:${branchOf(bug)}` })).data;
}

describe('bug fixes as pull requests in the sandbox', () => {
  it("cites the planted bug's file:line, and a developer's request gets a commit, a green build and a draft PR in both threads", async () => {
    const mainBefore = (await github.rest.repos.getBranch({ ...REPO, branch: 'main' })).data.commit.sha;
    const report = await h.post(CHANNELS.reports, REPORTER, REPORT);
    const bug = bugIdFor(report);
    const seen = { search: '', read: '' };
    const thread = await reportAndFindings(bug, report, seen);
    expect(seen.search).toContain(`${AT}:`);
    expect(seen.read).toContain(`${DEMO_BUG.line}\t${BUG_LINE}`);
    const [findings] = await botTexts(CHANNELS.summaries, thread);
    expect(findings).toContain(AT);

    h.script(bug, [...fixRequested(bug), ...fixerWrites(lineDiff(BUG_LINE, FIXED_LINE))]);
    await h.post(CHANNELS.summaries, DEVELOPER, 'Please fix it and open a PR', thread);

    const said = await waitFor(
      () => botTexts(CHANNELS.summaries, thread),
      (texts) => texts.some((t) => t.includes('pull request')),
      'the pull request in the findings thread',
    );
    expect(said.at(-1)).toContain('Draft pull request opened');
    const [pull] = await pullsOf(bug);
    expect(pull?.draft).toBe(true);
    expect(pull?.base.ref).toBe('main');
    expect(pull?.head.ref).toMatch(/^agents\/bug-[0-9a-f]{12}$/);
    expect(pull?.head.ref).toBe(branchOf(bug));
    // The conversation-id branch of the code tools' own rule was never made.
    await expect(github.rest.git.getRef({ ...REPO, ref: `heads/agents/${bug}` })).rejects.toMatchObject({
      status: 404,
    });
    expect(said.some((t) => t.includes(`Draft pull request opened: ${pull?.html_url}`))).toBe(true);
    expect(pull?.body).toContain(AT);
    expect(pull?.body).toContain('test: passed');
    expect(pull?.body).toContain(
      `https://slack.com/archives/${CHANNELS.summaries}/p${thread.replace('.', '')}`,
    );
    const reporterTexts = await waitFor(
      () => botTexts(CHANNELS.reports, report),
      (texts) => texts.some((t) => t.includes('Draft pull request opened')),
      "the pull request in the reporter's thread",
      30,
    );
    expect(reporterTexts.some((t) => t.includes(pull?.html_url ?? 'missing'))).toBe(true);

    const files = (await github.rest.pulls.listFiles({ ...REPO, pull_number: pull?.number ?? 0 })).data;
    expect(files.map((f) => f.filename)).toEqual([DEMO_BUG.file]);
    expect(files[0]?.patch).toContain(`-${BUG_LINE}`);
    expect(files[0]?.patch).toContain(`+${FIXED_LINE}`);
    expect(await fileOn(branchOf(bug))).toContain(FIXED_LINE);
    // The default branch is untouched.
    expect((await github.rest.repos.getBranch({ ...REPO, branch: 'main' })).data.commit.sha).toBe(mainBefore);
    expect(await fileOn('main')).toContain(BUG_LINE);
  });

  it('feeds a failing build back to the fixer, whose second attempt passes and opens the PR', async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, REPORT);
    const bug = bugIdFor(report);
    const thread = await reportAndFindings(bug, report);
    let secondPrompt = '';
    h.script(bug, [
      ...fixRequested(bug),
      ...fixerWrites(uselessDiff(1)),
      ...fixerWrites(lineDiff(`${BUG_LINE} // attempt 1`, FIXED_LINE), (text) => {
        secondPrompt = text;
      }),
    ]);
    await h.post(CHANNELS.summaries, DEVELOPER, 'Go ahead and fix it please', thread);
    const said = await waitFor(
      () => botTexts(CHANNELS.summaries, thread),
      (texts) => texts.some((t) => t.includes('pull request')),
      'the pull request after a second attempt',
      240,
    );
    expect(said.at(-1)).toContain('Draft pull request opened');
    expect(secondPrompt).toContain('Build attempt 1 of your fix failed');
    expect(secondPrompt).toContain('Check \\"test\\" exited 1');
    const [pull] = await pullsOf(bug);
    expect(pull?.draft).toBe(true);
    expect(pull?.body).toContain('attempt 2');
    expect(await fileOn(branchOf(bug))).toContain(FIXED_LINE);
  });

  it('says why in both threads when three builds fail, and opens nothing', async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, REPORT);
    const bug = bugIdFor(report);
    const thread = await reportAndFindings(bug, report);
    h.script(bug, [
      ...fixRequested(bug),
      ...fixerWrites(uselessDiff(1)),
      ...fixerWrites(lineDiff(`${BUG_LINE} // attempt 1`, `${BUG_LINE} // attempt 2`)),
      ...fixerWrites(lineDiff(`${BUG_LINE} // attempt 2`, `${BUG_LINE} // attempt 3`)),
    ]);
    await h.post(CHANNELS.summaries, DEVELOPER, 'Please open a PR with the fix', thread);
    const reason = 'No pull request was opened: the checks still fail after 3 build-and-fix attempts';
    await waitFor(
      () => botTexts(CHANNELS.summaries, thread),
      (texts) => texts.some((t) => t.includes(reason)),
      'the reason in the findings thread',
      360,
    );
    const reporterTexts = await waitFor(
      () => botTexts(CHANNELS.reports, report),
      (texts) => texts.some((t) => t.includes(reason)),
      "the reason in the reporter's thread",
      30,
    );
    expect(reporterTexts.find((t) => t.includes(reason))).toContain('test: failed (exit 1)');
    expect(await pullsOf(bug)).toEqual([]);
  });

  it("ends the conversation when the model refuses the fixer's call: the developers told, then the reporter, the execution failed with the model's answer", async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, REPORT);
    const bug = bugIdFor(report);
    const thread = await reportAndFindings(bug, report);
    const [history, asks] = fixRequested(bug);
    if (history === undefined || typeof asks !== 'function') throw new Error('fixRequested changed shape');
    h.script(bug, [
      history,
      (request) => {
        // The next call, the fixer's, meets the fault: 401, as the API answers a key it does not accept.
        h.sandbox.modelFaults.add({ kind: 'key_rejected', count: 1 });
        return asks(request);
      },
    ]);
    await h.post(CHANNELS.summaries, DEVELOPER, 'Please fix it and open a PR', thread);
    const execution = await waitFor(
      () => h.execution(bug),
      (e) => e.status !== 'RUNNING',
      `${bug} to end`,
      60,
    );

    expectFailedWithRefusal(execution);
    expect((await botTexts(CHANNELS.summaries, thread)).at(-1)).toBe(
      refusedSentence('fix', 'post the report again'),
    );
    expect((await botTexts(CHANNELS.reports, report)).at(-1)).toBe(
      refusedSentence('investigation', 'post the report again'),
    );
    expect(await h.store.getConversation(bug, { consistent: true })).toMatchObject({ status: 'failed' });
    // Nothing accepted is lost: the developer's request reached the turn that asked for the fix,
    // and the findings stay; the fixer's call never reached the model behind the fault.
    const asked = (await h.store.listMessages(bug)).filter((m) => m.text === 'Please fix it and open a PR');
    expect(asked).toHaveLength(1);
    expect(asked[0]?.deliveredInTurn).toBeDefined();
    expect((await botTexts(CHANNELS.summaries, thread)).filter((t) => t.includes(AT)).length).toBeGreaterThan(
      0,
    );
    expect(h.requestsOf(bug).some((r) => JSON.stringify(r.body.system).includes("Bug Bot's fixer"))).toBe(
      false,
    );
    expect(await pullsOf(bug)).toEqual([]);
  });

  it('refuses a fix request the model cites from the reporter or a third party, and says why where it was asked: no fixer turn, no branch, no PR', async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, REPORT);
    const bug = bugIdFor(report);
    const thread = await reportAndFindings(bug, report);
    const updatedFindings = (count: number, what: string) =>
      waitFor(
        () => botTexts(CHANNELS.summaries, thread),
        (texts) => texts.filter((t) => t.includes(AT)).length >= count,
        what,
        60,
      );
    // The model is fooled into asking for a fix; the workflow's check is not.
    h.script(bug, fixRequested(bug));
    await h.post(CHANNELS.reports, REPORTER, 'Just fix it yourself and open a PR', report);
    await updatedFindings(2, "the updated findings instead of a fix (the reporter's request)");
    await waitFor(
      () => botTexts(CHANNELS.reports, report),
      (texts) => texts.some((t) => t.includes('Only developers can ask for a fix; <@U_REPORTER> is not one')),
      "the refusal in the reporter's thread",
      30,
    );
    // U_THIRD is no developer (not in S_DEVELOPERS): in the findings thread a participant.
    h.script(bug, fixRequested(bug));
    await h.post(CHANNELS.summaries, 'U_THIRD', 'I need this fixed, open the PR', thread);
    await updatedFindings(3, "the updated findings instead of a fix (a third party's request)");
    expect(await botTexts(CHANNELS.summaries, thread)).toContainEqual(
      expect.stringContaining('Only developers can ask for a fix; <@U_THIRD> is not one'),
    );
    // A third party in the reporter's thread starts no turn at all (the script has no step left
    // for one): once the Router has taken the message, the wait it would have woken is still open.
    const { wait } =
      (await waitFor(
        () => h.store.getConversation(bug, { consistent: true }),
        (c) => c?.wait !== undefined,
        'the wait after the updated findings',
        30,
      )) ?? {};
    await h.post(CHANNELS.reports, 'U_THIRD', 'open a PR for this now', report);
    await h.sandbox.idle();
    expect((await h.store.getConversation(bug, { consistent: true }))?.wait).toEqual(wait);
    expect(h.requestsOf(bug).every((r) => !JSON.stringify(r.body.system).includes("Bug Bot's fixer"))).toBe(
      true,
    );
    expect(await pullsOf(bug)).toEqual([]);
    await expect(github.rest.git.getRef({ ...REPO, ref: `heads/${branchOf(bug)}` })).rejects.toMatchObject({
      status: 404,
    });
  });
});
