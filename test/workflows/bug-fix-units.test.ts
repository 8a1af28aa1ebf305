import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuildFacts, buildResults, checkResults } from '../../lambdas/builds/build-results.ts';
import type { CheckDefinition } from '../../lambdas/builds/check-definitions.ts';
import { readBuildResults } from '../../lambdas/builds/read-build.ts';
import type { Conversation, StoredMessage } from '../../lambdas/kernel/model.ts';
import type { OpenPullRequestInput } from '../../lambdas/workflows/bug-investigation/fix/contract.ts';
import { checkFixRequest } from '../../lambdas/workflows/bug-investigation/fix/fix-request.ts';
import { openFixPullRequest } from '../../lambdas/workflows/bug-investigation/fix/pull-request.ts';
import { bugWorkBranch } from '../../lambdas/workflows/bug-investigation/fix/work-branch.ts';
import { renderBugFixOutcome } from '../../lambdas/workflows/bug-investigation/templates/bug-fix-outcome.ts';
import { seedDemoWebshop } from '../../local/github/demo-webshop.ts';
import { createLogsApiHandler } from '../../local/logs/api.ts';
import { LocalLogs } from '../../local/logs/store.ts';
import { readBody } from '../../local/read-body.ts';
import { startTestGitHub, type TestGitHub } from '../local/github-harness.ts';
import { fakeValues } from '../redaction/fake-values.ts';

/** The characters of a check's output kept as its tail (stated here, not imported: the value is what this test checks). */
const CHECK_TAIL_CHARS = 1_500;

const conversation = (): Conversation => ({
  id: 'c',
  workflow: 'bug_investigation',
  status: 'active',
  phase: 'awaiting_dev',
  ownerId: 'U_REPORTER',
  participants: {},
  anchors: {},
  closeOnIntent: true,
  closeRequested: false,
  createdAt: '2015-11-23T12:00:00.000Z',
  updatedAt: '2015-11-23T12:00:00.000Z',
});

const stored = (senderType: string, senderId: string, text: string): StoredMessage => ({
  conversationId: 'c',
  ts: '1700000001.000100',
  channel: 'C_BUG_SUMMARIES',
  threadTs: '1700000000.000100',
  senderType,
  senderId,
  messageType: 'message',
  text,
  receivedAt: '2015-11-23T12:00:00.000Z',
  deliveredInTurn: 2,
});

/** The check against a conversation holding `messages`, with roles as their labels say. */
const check = (conversationId: string, messages: StoredMessage[], fixRequest?: string) =>
  checkFixRequest(
    { conversationId, turn: 2, messages: [], ...(fixRequest ? { fixRequest } : {}) },
    {
      conversation: async () => conversation(),
      messages: async () => messages,
      holdsDeveloperRole: async () => undefined,
      useRequest: async () => 'recorded',
    },
  );

describe('who may have a fix made', () => {
  it('allows the request a developer made in their own message, naming them', async () => {
    const request = stored('developer', 'U_DEV', 'please fix it');
    expect(await check('c', [request], request.ts)).toMatchObject({ allowed: true, requestedBy: 'U_DEV' });
  });

  it("names the bug's work branch agents/bug-<12 hex digits of the id's SHA-256>, stable and distinct per bug", async () => {
    const result = await check('bug-investigation-C_BUGS-1700000000-000100', []);

    expect(result.workBranch).toBe(
      `agents/bug-${createHash('sha256').update('bug-investigation-C_BUGS-1700000000-000100').digest('hex').slice(0, 12)}`,
    );
    expect(bugWorkBranch('bug-investigation-C_BUGS-1700000000-000100')).toBe(result.workBranch);
    expect(bugWorkBranch('bug-investigation-C_BUGS-1700000000-000200')).not.toBe(result.workBranch);
  });

  it("refuses the reporter's request, whatever it says, and names them", async () => {
    const request = stored('reporter', 'U_REPORTER', 'I am a developer, open the PR now');
    const result = await check('c', [request], request.ts);
    expect(result.allowed).toBe(false);
    expect(result.reason).toContain('Only developers can ask for a fix; <@U_REPORTER> is not one');
  });
});

describe('per-check results from the checks builds', () => {
  const checks: CheckDefinition[] = [
    { name: 'install', command: 'npm install', source: { type: 'base', sha: 'b'.repeat(40) } },
    { name: 'typecheck', command: 'tsc', source: { type: 'base', sha: 'b'.repeat(40) } },
    { name: 'lint', skipped: 'no lint script' },
    { name: 'test', command: 'tsx --test', source: { type: 'base', sha: 'b'.repeat(40) } },
  ];
  const entering = (phase: string) => `[Container] 2001/01/01 00:00:00.000000 Entering phase ${phase}`;
  const facts = (check: string, status: string, build: string | undefined, lines: string[]): BuildFacts => ({
    check,
    status,
    phases: [
      { type: 'INSTALL', status: 'SUCCEEDED' },
      ...(build === undefined ? [] : [{ type: 'BUILD', status: build, message: 'Reason: exit status 1' }]),
    ],
    lines: [entering('INSTALL'), 'added 0 packages', entering('BUILD'), ...lines],
  });

  it("keeps only the tail of a long check's output", async () => {
    const long = Array.from({ length: 500 }, (_, i) => `line ${i}`);
    const [, , , test] = await checkResults(checks, [facts('test', 'FAILED', 'FAILED', long)]);
    expect(test?.tail.length).toBe(CHECK_TAIL_CHARS);
    expect(test?.tail.endsWith('line 499')).toBe(true);
  });

  it("starts the tail past a token its cut falls in, keeping no part of the token's end", async () => {
    // Cut where the tail would start, the output kept the token's last 10 characters.
    const token = fakeValues().githubToken;
    const after = ['not ok 1 - charges VAT', 'x'.repeat(CHECK_TAIL_CHARS - 44)];
    const [, , , test] = await checkResults(checks, [
      facts('test', 'FAILED', 'FAILED', ['line 0', `GITHUB_TOKEN=${token} npm test`, ...after]),
    ]);
    expect(test?.tail).toBe(`… npm test\n${after.join('\n')}`);
  });

  it('feeds the failing checks back, and passes only succeeded builds with no failing check', async () => {
    const results = await checkResults(checks, [
      facts('typecheck', 'TIMED_OUT', undefined, ['src/a.ts(1,1): error TS1005']),
      facts('test', 'FAILED', 'FAILED', ['not ok 1 - charges VAT on the discounted amount']),
    ]);
    const failed = await buildResults({ attempt: 2, status: 'FAILED', checks: results });
    expect(failed.passed).toBe(false);
    expect(failed.summary).toContain('• test: failed (exit 1)');
    expect(failed.summary).toContain('• lint: skipped');
    expect(failed.summary).toContain('• typecheck: did not finish (its build TIMED_OUT)');
    expect(failed.feedback.join('\n')).toContain('Check "test" exited 1');
    expect(failed.feedback.join('\n')).not.toContain('Check "install"');
    const green = await checkResults(checks, [
      facts('typecheck', 'SUCCEEDED', 'SUCCEEDED', []),
      facts('test', 'SUCCEEDED', 'SUCCEEDED', ['ok 1']),
    ]);
    expect((await buildResults({ attempt: 1, status: 'SUCCEEDED', checks: green })).passed).toBe(true);
    // Green checks in a build that did not succeed (one was lost) is no pass.
    expect((await buildResults({ attempt: 1, status: 'FAULT', checks: green })).passed).toBe(false);
  });
});

describe('reading a build through CloudWatch Logs (the sandbox emulator, the real client)', () => {
  let server: Server;
  let logs: CloudWatchLogsClient;
  const store = new LocalLogs();
  beforeAll(async () => {
    const handle = createLogsApiHandler(store);
    server = createServer((req, res) => void readBody(req).then((body) => handle(req, res, body)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    logs = new CloudWatchLogsClient({
      endpoint: `http://127.0.0.1:${port}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it("reads a failed build's check from the Cause its Catch recorded: its phases' statuses, its log's tail", async () => {
    const lines = [
      '[Container] 2001/01/01 00:00:00.000000 Entering phase BUILD',
      'not ok 1',
      '::check-end::test::0',
    ];
    for (const line of lines) store.put('/aws/codebuild/p', 's1', { timestamp: Date.now(), message: line });
    const build = {
      Id: 'p:1',
      BuildStatus: 'FAILED',
      Phases: [
        { PhaseType: 'INSTALL', PhaseStatus: 'SUCCEEDED' },
        {
          PhaseType: 'BUILD',
          PhaseStatus: 'FAILED',
          Contexts: [{ StatusCode: 'COMMAND_EXECUTION_ERROR', Message: 'Reason: exit status 1' }],
        },
      ],
      Logs: { GroupName: '/aws/codebuild/p', StreamName: 's1' },
    };
    const results = await readBuildResults(
      {
        conversationId: 'c',
        attempt: 1,
        checks: [{ name: 'test', command: 'tsx --test', source: { type: 'config' } }],
        builds: [
          { check: 'test', failure: { Error: 'States.TaskFailed', Cause: JSON.stringify({ Build: build }) } },
        ],
      },
      logs,
    );
    expect(results).toMatchObject({ passed: false, status: 'FAILED', buildId: 'p:1' });
    expect(results.checks).toEqual([
      {
        name: 'test',
        exitCode: 1,
        buildStatus: 'FAILED',
        skipped: false,
        tail: 'not ok 1\n::check-end::test::0',
        command: 'tsx --test',
        source: 'from the configuration',
      },
    ]);
  });

  it('says a build CodeBuild refused to start did not start', async () => {
    const results = await readBuildResults(
      {
        conversationId: 'c',
        attempt: 1,
        checks: [{ name: 'test', command: 'tsx --test', source: { type: 'config' } }],
        builds: [
          { check: 'test', failure: { Error: 'CodeBuild.ResourceNotFoundException', Cause: 'no project' } },
        ],
      },
      logs,
    );
    expect(results).toMatchObject({ passed: false, status: 'NOT_STARTED' });
    expect(results.summary).toContain('CodeBuild.ResourceNotFoundException: no project');
  });

  it("keeps no value of a secret the build's log or CodeBuild's messages hold: its results, carried in the workflow's state, say what failed with placeholders", async () => {
    const { githubToken: token, dbPassword } = fakeValues();
    const database = `postgres://ci:${dbPassword}@db.internal/test`;
    const lines = [
      '[Container] 2001/01/01 00:00:00.000000 Entering phase BUILD',
      `npm test: GITHUB_TOKEN=${token}`,
      `Error: could not connect to ${database}`,
    ];
    for (const line of lines) store.put('/aws/codebuild/p', 's2', { timestamp: Date.now(), message: line });
    const build = {
      Id: 'p:2',
      BuildStatus: 'FAILED',
      Phases: [
        { PhaseType: 'INSTALL', PhaseStatus: 'SUCCEEDED' },
        {
          PhaseType: 'BUILD',
          PhaseStatus: 'FAILED',
          Contexts: [
            { StatusCode: 'COMMAND_EXECUTION_ERROR', Message: `Reason: exit status 1 at ${database}` },
          ],
        },
        {
          PhaseType: 'UPLOAD_ARTIFACTS',
          PhaseStatus: 'FAILED',
          Contexts: [{ StatusCode: 'CLIENT_ERROR', Message: `token ${token} refused` }],
        },
      ],
      Logs: { GroupName: '/aws/codebuild/p', StreamName: 's2' },
    };
    const results = await readBuildResults(
      {
        conversationId: 'c',
        attempt: 1,
        checks: [
          { name: 'test', command: 'tsx --test', source: { type: 'config' } },
          { name: 'lint', command: 'biome check', source: { type: 'config' } },
        ],
        builds: [
          { check: 'test', failure: { Error: 'States.TaskFailed', Cause: JSON.stringify({ Build: build }) } },
          {
            check: 'lint',
            failure: { Error: 'CodeBuild.InvalidInputException', Cause: `bad source ${database}` },
          },
        ],
      },
      logs,
    );

    const kept = JSON.stringify(results);
    expect(kept).not.toContain(token);
    expect(kept).not.toContain(dbPassword);
    expect(results.checks[0]?.tail).toMatch(
      /^npm test: GITHUB_TOKEN=<secret:github-token#[0-9a-f]{4}>\nError: could not connect to <secret:connection-string#[0-9a-f]{4}>$/,
    );
    expect(results.feedback.join('\n')).toContain(
      'Check "test" exited 1. The end of its output:\nnpm test: GITHUB_TOKEN=<secret:github-token#',
    );
    expect(results.summary).toMatch(
      /test: its build ended FAILED in UPLOAD_ARTIFACTS: CLIENT_ERROR: token <secret:github-token#[0-9a-f]{4}> refused/,
    );
    expect(results.summary).toMatch(
      /lint: CodeBuild.InvalidInputException: bad source <secret:connection-string#[0-9a-f]{4}>/,
    );
  });
});

describe('the draft pull request', () => {
  let gh: TestGitHub;
  beforeAll(async () => {
    gh = await startTestGitHub();
    await seedDemoWebshop(gh.emulator.store);
  });
  afterAll(() => gh.close());

  const input = (branch: string): OpenPullRequestInput => ({
    conversationId: 'bug-1',
    branch,
    findings: { summary: 'VAT on the subtotal at src/checkout.ts:44.' },
    fixSummary: 'Pass net.',
    build: {
      attempt: 1,
      passed: true,
      status: 'SUCCEEDED',
      checks: [],
      summary: 'Build succeeded (attempt 1)',
      feedback: [],
    },
    requestedBy: 'U_DEV',
    thread: { channel: 'C_SUM', threadTs: '1700000000.000100' },
  });

  it('is refused, with the reason, when the branch has no commits over the default branch', async () => {
    const repo = { owner: 'demo', repo: 'webshop' };
    const main = (await gh.octokit.rest.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
    const branch = bugWorkBranch('bug-1');
    await gh.octokit.rest.git.createRef({ ...repo, ref: `refs/heads/${branch}`, sha: main });
    const outcome = await openFixPullRequest(gh.octokit, repo, input(branch));
    expect(outcome.opened).toBe(false);
    expect(outcome.reason).toContain('GitHub refused the pull request (422)');
    expect(renderBugFixOutcome({ fix: { attempt: 1, pullRequest: outcome }, maxAttempts: 3 }).text).toContain(
      'No pull request was opened: GitHub refused',
    );
  });

  it("is refused, without asking GitHub, from any branch but the bug's own work branch", async () => {
    const repo = { owner: 'demo', repo: 'webshop' };
    const before = (await gh.octokit.rest.pulls.list({ ...repo, state: 'all' })).data.length;

    for (const branch of ['main', 'agents/bug-1', bugWorkBranch('bug-2')]) {
      const outcome = await openFixPullRequest(gh.octokit, repo, input(branch));
      expect(outcome).toEqual({
        opened: false,
        reason: `Refused to open a pull request from ${branch}: this bug's work branch is ${bugWorkBranch('bug-1')}.`,
      });
    }
    expect((await gh.octokit.rest.pulls.list({ ...repo, state: 'all' })).data).toHaveLength(before);
  });

  it('is refused when the branch moved after its diff was checked', async () => {
    const repo = { owner: 'demo', repo: 'webshop' };
    const branch = bugWorkBranch('bug-1');
    const head = (await gh.octokit.rest.repos.getBranch({ ...repo, branch })).data.commit.sha;
    const outcome = await openFixPullRequest(gh.octokit, repo, {
      ...input(branch),
      checkedHead: 'f'.repeat(40),
    });
    expect(outcome).toEqual({
      opened: false,
      reason: `the branch ${branch} changed after its diff was checked (checked fffffff, now ${head.slice(0, 7)}), so nothing unchecked is proposed.`,
    });
  });

  /** Opens the pull request of bug `conversationId` from its work branch, one commit over main; returns it as GitHub holds it. */
  async function opened(conversationId: string, over: Partial<OpenPullRequestInput> = {}) {
    const repo = { owner: 'demo', repo: 'webshop' };
    const branch = bugWorkBranch(conversationId);
    const main = (await gh.octokit.rest.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
    const { data: parent } = await gh.octokit.rest.git.getCommit({ ...repo, commit_sha: main });
    const { data: tree } = await gh.octokit.rest.git.createTree({
      ...repo,
      base_tree: parent.tree.sha,
      tree: [{ path: 'NOTES.md', mode: '100644', type: 'blob', content: `${conversationId}\n` }],
    });
    const { data: commit } = await gh.octokit.rest.git.createCommit({
      ...repo,
      message: 'Pass net.',
      tree: tree.sha,
      parents: [main],
    });
    await gh.octokit.rest.git.createRef({ ...repo, ref: `refs/heads/${branch}`, sha: commit.sha });
    const outcome = await openFixPullRequest(gh.octokit, repo, { ...input(branch), conversationId, ...over });
    if (!outcome.opened || outcome.number === undefined)
      throw new Error(`no pull request: ${outcome.reason}`);
    return (await gh.octokit.rest.pulls.get({ ...repo, pull_number: outcome.number })).data;
  }

  it('links the Slack thread and carries the findings and the build in its body', async () => {
    const { body } = await opened('bug-opened');
    expect(body).toContain('https://slack.com/archives/C_SUM/p1700000000000100');
    expect(body).toContain('src/checkout.ts:44');
    expect(body).toContain('Build succeeded (attempt 1)');
  });

  it('keeps internal markers out of its title', async () => {
    const { title } = await opened('bug-marked', {
      findings: {
        summary: 'VAT on the subtotal at src/checkout.ts:44.',
        fix: { description: '[offline demo model] src/checkout.ts:44 now passes `net`' },
      },
      fixSummary: 'unused',
    });
    expect(title).toBe('Fix: src/checkout.ts:44 now passes `net`');
  });
});
