import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Octokit } from '@octokit/rest';
import { conversationIdFor } from '../../lambdas/kernel/keys.ts';
import { SANDBOX_BOT_LOGIN } from '../../local/github/sandbox-bot.ts';
import type { BugCase } from '../cases/bugs.ts';
import { gradeFindings, type SubmittedFindings } from '../graders/findings.ts';
import { gradeFix, runShell } from '../graders/fix.ts';
import { plantedFiles, REPOS } from '../repos/repos.ts';
import { poll, type Session } from '../session.ts';
import { type Check, verdictOf } from '../types.ts';
import type { DriverRun } from './driver.ts';
import { executionFailure, taskOutputs, withFault } from './faults.ts';

/**
 * A bug case end to end: the bug planted on the repository's `main`, the report posted in the
 * bug-reports channel, the reporter answering when the workflow waits for them (twice at most), and once
 * findings are posted a developer asking, in their thread, for a fix as a pull request. Graded
 * on the findings' citation and on the pull request's branch (graders/fix.ts).
 */

const REPORTS = 'C_BUG_REPORTS';
const SUMMARIES = 'C_BUG_SUMMARIES';
const REPORTER = 'U_REPORTER';
const DEVELOPER = 'U_DEV';
const AUTHOR = { name: 'Dana Developer', email: 'dana@example.com', date: '2026-11-01T09:00:00Z' };

export const bugConfig = (c: BugCase) => ({
  reporterWaitSeconds: 7_200,
  developerWaitSeconds: 8_000,
  bugInvestigation: {
    repository: `${REPOS[c.repo].owner}/${REPOS[c.repo].name}`,
    ...(c.repo === 'invoicing' ? { build: { commands: { test: REPOS.invoicing.full } } } : {}),
  },
});

/** Plants the case's bug on `main` (creating the repository if the sandbox has none); returns the base commit. */
export async function plant(session: Session, c: BugCase): Promise<{ sha: string; line: number }> {
  const { files, line } = await plantedFiles(c);
  const { owner, name } = REPOS[c.repo];
  const store = session.sandbox.github.store;
  let repo = store.repository(owner, name);
  if (repo)
    await store.commitFiles(repo, 'main', files, 'Weekly maintenance: small fixes and refactors', AUTHOR);
  else
    repo = await store.createRepository({
      owner,
      name,
      description: 'Invoice lines, VAT, due dates and invoice numbers',
      files,
      message: 'Invoicing: lines, VAT, due dates and numbers, with tests',
      author: AUTHOR,
      collaborators: {
        'demo-dev': 'write',
        'demo-maintainer': 'admin',
        'sandbox-user': 'write',
        [SANDBOX_BOT_LOGIN]: 'write',
      },
    });
  const sha = await repo.git.resolveCommit('refs/heads/main');
  if (!sha) throw new Error(`${owner}/${name} has no main after planting`);
  return { sha, line };
}

/** A temporary folder holding the files of commit `sha`. */
export async function checkout(gitDir: string, sha: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'eval-checkout-'));
  await mkdir(dir, { recursive: true });
  const run = await runShell(
    `git --git-dir="${gitDir}" archive --format=tar ${sha} | tar -x -C "${dir}"`,
    dir,
    undefined,
    30_000,
  );
  if (run.code !== 0) throw new Error(`could not check out ${sha}: ${run.tail}`);
  return dir;
}

export async function runBugCase(session: Session, c: BugCase, deadline: number): Promise<DriverRun> {
  const { sha: baseSha, line } = await plant(session, c);
  const started = Date.now();
  const reportTs = await session.post(REPORTS, REPORTER, c.report);
  const id = conversationIdFor('bug_investigation', REPORTS, reportTs);
  const answered = new Set<string>();
  let findingsAt: number | undefined;
  let findingsTs: string | undefined;
  let endedAt: number | undefined;
  while (Date.now() < deadline && endedAt === undefined) {
    // The reporter answers when the workflow waits for them (once per wait, twice at most), not
    // on every bot message of the thread: a turn's progress timeline or a notice that findings
    // were posted is no question, and how many of those appear depends on timing, which would
    // make a replay run more turns than its recording.
    const conversation = await session.store.getConversation(id, { consistent: true });
    const wait = conversation?.wait;
    if (
      wait &&
      conversation?.phase === 'awaiting_reporter' &&
      !answered.has(wait.waitId) &&
      answered.size < 2
    ) {
      answered.add(wait.waitId);
      await session.post(REPORTS, REPORTER, c.details, reportTs);
    }
    if (!findingsTs) {
      const findings = (await session.messages(SUMMARIES)).find((m) => m.bot);
      if (findings) {
        findingsAt = Date.now();
        findingsTs = findings.ts;
        await session.post(SUMMARIES, DEVELOPER, 'Looks right, please fix it and open a PR', findings.ts);
      }
    } else {
      const thread = await session.messages(SUMMARIES, findingsTs);
      if (thread.some((m) => m.bot && m.ts !== findingsTs && /pull request/i.test(m.text)))
        endedAt = Date.now();
    }
    const status = session.executionStatus(id);
    if ((status && status !== 'RUNNING') || executionFailure(session, id)) endedAt ??= Date.now();
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const endMs = (endedAt ?? Date.now()) - started;

  const graded = Date.now();
  const checks: Check[] = gradeFindings({ file: c.truth.file, line }, submittedFindings(session, id));
  checks.push(...(await gradePullRequest(session, c, baseSha)));
  return {
    verdict: verdictOf(withFault(session, id, findingsAt !== undefined, checks)),
    ...(findingsAt ? { firstAnswerMs: findingsAt - started } : {}),
    endMs,
    conversationIds: [id],
    gradingMs: Date.now() - graded,
  };
}

/** The fields of the investigator's last turn that posted findings, as its execution's history holds them. */
export function submittedFindings(session: Session, id: string): SubmittedFindings | undefined {
  const posted = taskOutputs(session.execution(id)).filter((o) => o.action === 'post_findings');
  const last = posted.at(-1);
  if (!last) return undefined;
  return {
    ...(typeof last.location === 'string' ? { location: last.location } : {}),
    ...(typeof last.rootCause === 'string' ? { rootCause: last.rootCause } : {}),
  };
}

/** The pull request the workflow opened on the case's repository, judged by the hidden tests on its branch. */
export async function gradePullRequest(session: Session, c: BugCase, baseSha: string): Promise<Check[]> {
  const checks: Check[] = [];
  const { owner, name } = REPOS[c.repo];
  const github = new Octokit({
    baseUrl: session.sandbox.github.apiUrl,
    auth: session.sandbox.github.createUserToken('demo-dev'),
  });
  const pulls = await poll(async () => {
    const list = (await github.rest.pulls.list({ owner, repo: name, state: 'all' })).data;
    return list.length > 0 ? list : undefined;
  }, Date.now() + 2_000);
  const pull = pulls?.[0];
  if (!pull) {
    checks.push({ name: 'pull request', pass: false, detail: 'no pull request was opened' });
  } else {
    const gitDir = session.sandbox.github.store.repository(owner, name)?.git.gitDir ?? '';
    const headDir = await checkout(gitDir, pull.head.sha);
    const baseDir = await checkout(gitDir, baseSha);
    try {
      checks.push({ name: 'pull request', pass: true, detail: `#${pull.number} from ${pull.head.ref}` });
      checks.push(
        ...(await gradeFix({
          headDir,
          baseDir,
          hiddenTests: c.truth.hiddenTests,
          hiddenCommand: REPOS[c.repo].hidden,
          fullCommand: REPOS[c.repo].full,
          testDirs: REPOS[c.repo].testDirs,
          binDir: join(process.cwd(), 'node_modules', '.bin'),
        })),
      );
    } finally {
      await rm(headDir, { recursive: true, force: true });
      await rm(baseDir, { recursive: true, force: true });
    }
  }
  return checks;
}
