import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { conversationIdFor } from '../../lambdas/kernel/keys.ts';
import { freePort } from '../../local/free-port.ts';
import { type Sandbox, startSandbox } from '../../local/sandbox.ts';
import { readSandboxState } from '../../local/sandbox-state.ts';
import { eventually } from '../support/eventually.ts';
import { sandboxDriver } from '../support/sandbox-driver.ts';

/** The file a sandbox keeps its state in, in its state directory (stated here, not imported: the value is what this test checks). */
const STATE_FILE = 'sandbox-state.json';

/**
 * A sandbox started with `state` keeps its state across a restart: a bug conversation waiting
 * for its reporter when the sandbox stops continues after the next start on the same directory
 * when the reporter answers (the offline demo model plays the agent), and GitHub's issues,
 * branches and pull requests are there as they were. One restart serves both.
 */

const REPORTS = 'C_BUG_REPORTS';
const SUMMARIES = 'C_BUG_SUMMARIES';
const dir = mkdtempSync(join(tmpdir(), 'sandbox-state-test-'));
let sandbox: Sandbox | undefined;

let port = 0;
/**
 * A 2-hour reporter wait lasts 6 minutes here: far longer than a restart takes. Both starts
 * listen on one port, as `npm run dev` does: the handlers (loaded once in this process, like a
 * warm Lambda) keep the endpoints they were given.
 */
const start = async () => {
  port ||= await freePort();
  return startSandbox({ port, state: dir, timeScale: 0.05, logLevel: 'SILENT' });
};

afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** What the stop left in the directory, read before the next start. */
interface Stopped {
  readonly saved: {
    stepFunctions: { name: string; status: string; resume?: { stateName: string; token?: string } }[];
    github?: unknown;
  };
  readonly dynamoDbKept: boolean;
  /** GitHub's records as the next start took them back, saved again before anything else ran. */
  readonly githubTakenBack: unknown;
}
let restarted: Promise<Stopped> | undefined;
/** Stops the sandbox and starts it again on the same directory, once for every test of the file. */
const restart = () => {
  restarted ??= (async (): Promise<Stopped> => {
    await sandbox?.stop();
    sandbox = undefined;
    const stopped = {
      saved: JSON.parse(readFileSync(join(dir, STATE_FILE), 'utf8')),
      dynamoDbKept: existsSync(join(dir, 'dynamodb')),
    };
    sandbox = await start();
    return { ...stopped, githubTakenBack: sandbox.github.store.saved() };
  })();
  return restarted;
};

const driver = sandboxDriver(() => {
  if (!sandbox) throw new Error('no sandbox');
  return sandbox;
});
const { messages } = driver;
const conversation = (id: string) => {
  const current = sandbox;
  if (!current) throw new Error('no sandbox');
  return new DynamoConversationStore({
    client: current.dynamodb,
    tableName: current.tableName,
  }).getConversation(id, {
    consistent: true,
  });
};
const waitsIn = (id: string, phase: string) =>
  eventually(
    () => conversation(id),
    (c) => c?.wait !== undefined && c.phase === phase,
    `${id} to wait in ${phase}`,
  );

const REPO = { owner: 'demo', repo: 'webshop' } as const;
const BRANCH = 'fix/discount-before-vat';
/** A client of the sandbox's GitHub acting as `login` (personal tokens are not kept across a restart). */
const github = (login: string) => {
  const current = sandbox;
  if (!current) throw new Error('no sandbox');
  return new Octokit({ baseUrl: current.github.apiUrl, auth: current.github.createUserToken(login) });
};

/** What GitHub answered before the stop, to be answered alike after the start. */
let before: {
  issue: unknown;
  comments: unknown;
  pull: unknown;
  reviews: unknown;
  issueNumber: number;
  pullNumber: number;
  branchSha: string;
  /** The comment's webhook, as the ingress answered it. */
  commented: { url: string; status: number | undefined } | undefined;
};

beforeAll(async () => {
  sandbox = await start();
  // An issue with a comment, a work branch with a commit, and a draft pull request of it.
  const octokit = github('demo-dev');
  const { data: issue } = await octokit.rest.issues.create({
    ...REPO,
    title: 'Checkout total ignores the discount',
    body: 'Seen on the cart page.',
  });
  await octokit.rest.issues.createComment({
    ...REPO,
    issue_number: issue.number,
    body: 'It happens with every code.',
  });
  const { data: main } = await octokit.rest.git.getRef({ ...REPO, ref: 'heads/main' });
  const { data: parent } = await octokit.rest.git.getCommit({ ...REPO, commit_sha: main.object.sha });
  const { data: tree } = await octokit.rest.git.createTree({
    ...REPO,
    base_tree: parent.tree.sha,
    tree: [{ path: 'NOTES.md', mode: '100644', type: 'blob', content: 'The discount applies before VAT.\n' }],
  });
  const { data: commit } = await octokit.rest.git.createCommit({
    ...REPO,
    message: 'Apply the discount before VAT',
    tree: tree.sha,
    parents: [main.object.sha],
  });
  await octokit.rest.git.createRef({ ...REPO, ref: `refs/heads/${BRANCH}`, sha: commit.sha });
  const { data: pull } = await octokit.rest.pulls.create({
    ...REPO,
    head: BRANCH,
    base: 'main',
    title: 'Apply the discount before VAT',
    body: `Fixes #${issue.number}.`,
    draft: true,
  });
  // A review begun and not submitted yet (pending: no time of submission).
  await github('sandbox-user').rest.pulls.createReview({
    ...REPO,
    pull_number: pull.number,
    body: 'Looking at the VAT rounding.',
  });
  await sandbox.github.webhooks.settled();
  const commented = sandbox.github.webhooks
    .deliveries()
    .find((delivery) => delivery.event === 'issue_comment');
  before = {
    issue: (await octokit.rest.issues.get({ ...REPO, issue_number: issue.number })).data,
    comments: (await octokit.rest.issues.listComments({ ...REPO, issue_number: issue.number })).data,
    pull: (await octokit.rest.pulls.get({ ...REPO, pull_number: pull.number })).data,
    reviews: (await octokit.rest.pulls.listReviews({ ...REPO, pull_number: pull.number })).data,
    issueNumber: issue.number,
    pullNumber: pull.number,
    branchSha: commit.sha,
    commented: commented && { url: commented.url, status: commented.status },
  };
});

describe('a sandbox that keeps its state', () => {
  it('continues a bug conversation waiting for its reporter after a restart, when the reporter answers', async () => {
    if (!sandbox) throw new Error('the sandbox was restarted before the conversation began');
    const report = await driver.post(REPORTS, 'U_REPORTER', 'something is broken');
    const bug = conversationIdFor('bug_investigation', REPORTS, report);
    await waitsIn(bug, 'awaiting_reporter');
    const asked = await messages(REPORTS, report);
    expect(asked.filter((m) => m.bot)).toHaveLength(2);
    const [before] = sandbox.stepFunctions.listExecutions({ statusFilter: 'RUNNING' });
    if (!before) throw new Error('no running execution');
    // The wait is registered before the task's invocation is answered: the history is complete
    // once the wait's task was submitted (what the stop keeps).
    const running = sandbox;
    const historyBefore = await eventually(
      () => running.stepFunctions.getExecutionHistory(before.executionArn),
      (history) => history.some((e) => e.type === 'TaskSubmitted' && e.stateName === 'Wait for reporter'),
      'the reporter wait to be submitted',
    );

    const { saved, dynamoDbKept } = await restart();
    const waiting = saved.stepFunctions.find((execution) => execution.name === before.name);
    expect(waiting?.status).toBe('RUNNING');
    expect(waiting?.resume?.stateName).toBe('Wait for reporter');
    expect(waiting?.resume?.token).toMatch(/^AQ/);
    expect(dynamoDbKept).toBe(true);
    if (!sandbox) throw new Error('no sandbox');
    // Slack's messages, the table's conversation and the execution with its history came back.
    expect(await messages(REPORTS, report)).toEqual(asked);
    expect((await conversation(bug))?.phase).toBe('awaiting_reporter');
    expect(sandbox.stepFunctions.describeExecution(before.executionArn).status).toBe('RUNNING');
    expect(sandbox.stepFunctions.getExecutionHistory(before.executionArn)).toEqual(historyBefore);

    await driver.post(REPORTS, 'U_REPORTER', 'On Safari 17 checkout shows a 500 after I click Pay', report);
    await eventually(
      () => messages(SUMMARIES),
      (list) => list.some((m) => m.bot),
      'the findings in #bug-summaries',
    );
    await waitsIn(bug, 'awaiting_dev');
    const history = sandbox.stepFunctions.getExecutionHistory(before.executionArn);
    const answered = history.filter((e) => e.type === 'TaskSucceeded' && e.stateName === 'Wait for reporter');
    expect(answered).toHaveLength(1);
    const entered = history.filter((e) => e.type === 'StateEntered' && e.stateName === 'Wait for reporter');
    expect(entered).toHaveLength(1);
    // New messages are newer than every message before the restart.
    const thread = await messages(REPORTS, report);
    const tss = thread.map((m) => Number(m.ts));
    expect(tss).toEqual([...tss].sort((a, b) => a - b));
  });

  it("keeps GitHub's issues, comments, branches and pull requests across a restart, and its webhooks go on", async () => {
    const { saved, githubTakenBack } = await restart();
    // Every record (users, labels, collaborators, reviews, the id and number sequences) came back.
    expect(saved.github).toMatchObject({ version: 1 });
    expect(githubTakenBack).toEqual(saved.github);
    const octokit = github('demo-dev');

    const { data: issue } = await octokit.rest.issues.get({ ...REPO, issue_number: before.issueNumber });
    expect(issue).toEqual(before.issue);
    expect(issue).toMatchObject({ title: 'Checkout total ignores the discount', state: 'open', comments: 1 });
    const { data: comments } = await octokit.rest.issues.listComments({
      ...REPO,
      issue_number: before.issueNumber,
    });
    expect(comments).toEqual(before.comments);
    expect(comments.map((comment) => comment.body)).toEqual(['It happens with every code.']);
    const { data: branch } = await octokit.rest.repos.getBranch({ ...REPO, branch: BRANCH });
    expect(branch.commit.sha).toBe(before.branchSha);
    const { data: pull } = await octokit.rest.pulls.get({ ...REPO, pull_number: before.pullNumber });
    expect(pull).toEqual(before.pull);
    expect(pull).toMatchObject({
      state: 'open',
      draft: true,
      body: `Fixes #${before.issueNumber}.`,
      head: { ref: BRANCH, sha: before.branchSha },
      base: { ref: 'main' },
    });
    const { data: reviews } = await octokit.rest.pulls.listReviews({
      ...REPO,
      pull_number: before.pullNumber,
    });
    expect(reviews).toEqual(before.reviews);
    expect(reviews).toMatchObject([{ state: 'PENDING', user: { login: 'sandbox-user' } }]);

    // Issues and pull requests go on numbering where they stood.
    const { data: next } = await octokit.rest.issues.create({ ...REPO, title: 'Prices round the wrong way' });
    expect(next.number).toBe(before.pullNumber + 1);

    // The pull request takes a review, whose webhook the ingress takes as it took the comment's
    // before the restart: signed alike and queued (the emulator has no merge: a review is the
    // pull request's next step).
    await github('demo-maintainer').rest.pulls.createReview({
      ...REPO,
      pull_number: before.pullNumber,
      event: 'APPROVE',
      body: 'Good catch.',
    });
    const current = sandbox;
    if (!current) throw new Error('no sandbox');
    await current.github.webhooks.settled();
    const reviewed = current.github.webhooks.deliveries().findLast((d) => d.event === 'pull_request_review');
    expect(before.commented?.status).toBe(202);
    expect(reviewed).toMatchObject({ action: 'submitted', url: before.commented?.url, status: 202 });
    expect(reviewed?.payload).toMatchObject({
      pull_request: { number: before.pullNumber, draft: true, head: { sha: before.branchSha } },
    });
  });

  it('refuses GitHub records of a version it does not know, saying which', async () => {
    const { saved } = await restart();
    const other = mkdtempSync(join(tmpdir(), 'sandbox-state-test-'));
    try {
      writeFileSync(
        join(other, STATE_FILE),
        JSON.stringify({ ...saved, github: { ...Object(saved.github), version: 2 } }),
      );
      expect(() => readSandboxState(other)).toThrow(
        expect.objectContaining({
          name: 'SandboxStateError',
          message: expect.stringMatching(
            /github\.version: GitHub records of version 2: this sandbox reads version 1/,
          ),
        }),
      );
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  // Last: it starts the sandbox on a state without GitHub.
  it('starts GitHub from the demo seed on a state directory without GitHub records (as an older sandbox wrote it)', async () => {
    await restart();
    await sandbox?.stop();
    sandbox = undefined;
    const file = join(dir, STATE_FILE);
    const { github: _kept, ...withoutGitHub } = JSON.parse(readFileSync(file, 'utf8')) as Record<
      string,
      unknown
    >;
    writeFileSync(file, JSON.stringify(withoutGitHub));

    sandbox = await start();
    const octokit = github('demo-dev');
    expect((await octokit.rest.issues.listForRepo({ ...REPO, state: 'all' })).data).toEqual([]);
    const { data: heads } = await octokit.rest.git.listMatchingRefs({ ...REPO, ref: 'heads/' });
    expect(heads.map((head) => head.ref)).toEqual(['refs/heads/main']);
    const { data: main } = await octokit.rest.repos.getBranch({ ...REPO, branch: 'main' });
    expect(main.commit.parents).toEqual([]);
    expect(main.commit.commit.message).toMatch(/^Web shop: cart, catalog/);
    expect((await octokit.rest.issues.create({ ...REPO, title: 'First again' })).data.number).toBe(1);
    await sandbox.github.webhooks.settled();
    // The repositories of the records left out went with them.
    expect(readdirSync(join(dir, 'github'))).toHaveLength(1);
  });
});
