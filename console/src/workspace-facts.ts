/**
 * A conversation's workspace, the way the console shows it for any workflow that works on code
 * (the bug workflow's fix path today, the issue pipeline next): its work branches with their
 * commits, its builds with each check's exit code and output tail, and its pull request.
 *
 * Nothing here names a workflow or a state. The facts come from where they really are:
 * - branches, commits and pull requests from the sandbox's GitHub: the branches the
 *   conversation's execution history names (any string equal to an existing branch, or a
 *   `refs/heads/...` ref), and the branches whose name carries the conversation's id;
 * - build results from the history: any value shaped like a build's results (a status, passed
 *   or not, and checks with a name, exit code and output tail), as a workflow's build-reading
 *   step returns them; later attempts replace nothing, the same attempt seen again does;
 * - the pull request outcome from the history (`opened`, with its `url` or the `reason` none was).
 */

import type { RepositoryPage } from './api.ts';

export interface CheckFact {
  name: string;
  /** Absent: the check never finished. */
  exitCode?: number;
  skipped: boolean;
  tail: string;
}

export interface BuildFact {
  attempt?: number;
  status: string;
  passed: boolean;
  buildId?: string;
  checks: CheckFact[];
}

export interface PullRequestOutcomeFact {
  opened: boolean;
  url?: string;
  number?: number;
  reason?: string;
}

export interface BranchFact {
  repository: string;
  name: string;
  base: string;
  aheadBy: number;
  commits: RepositoryPage['branches'][number]['commits'];
}

export interface PullFact {
  repository: string;
  number: number;
  title: string;
  state: string;
  draft: boolean;
  url: string;
  head: string;
}

export interface WorkspaceFacts {
  branches: BranchFact[];
  builds: BuildFact[];
  pulls: PullFact[];
  /** What the workflow said of its pull request (why none was opened, when none was). */
  outcome?: PullRequestOutcomeFact;
}

/** What the execution history says, before GitHub is asked. */
export interface HistoryFacts {
  /** Every short string of the history (branch names among them), refs as their branch names. */
  strings: Set<string>;
  builds: BuildFact[];
  outcome?: PullRequestOutcomeFact;
}

/** Values looked at per history, so a huge history cannot stall the page. */
const MAX_NODES = 50_000;
const MAX_DEPTH = 12;
/** Longer strings are texts, not names. */
const MAX_NAME = 255;

type Obj = Record<string, unknown>;
const isObj = (value: unknown): value is Obj =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function asCheck(value: unknown): CheckFact | undefined {
  if (!isObj(value) || typeof value.name !== 'string' || typeof value.tail !== 'string') return undefined;
  if (value.exitCode !== undefined && typeof value.exitCode !== 'number') return undefined;
  return {
    name: value.name,
    ...(typeof value.exitCode === 'number' ? { exitCode: value.exitCode } : {}),
    skipped: value.skipped === true,
    tail: value.tail,
  };
}

function asBuild(value: Obj): BuildFact | undefined {
  if (typeof value.status !== 'string' || typeof value.passed !== 'boolean' || !Array.isArray(value.checks))
    return undefined;
  const checks = value.checks.map(asCheck);
  if (checks.some((c) => c === undefined)) return undefined;
  // A placeholder before any build ran ({ passed: false, status: 'NOT_STARTED' }) is not a build.
  if (checks.length === 0 && value.attempt === undefined) return undefined;
  return {
    ...(typeof value.attempt === 'number' ? { attempt: value.attempt } : {}),
    status: value.status,
    passed: value.passed,
    ...(typeof value.buildId === 'string' ? { buildId: value.buildId } : {}),
    checks: checks as CheckFact[],
  };
}

function asOutcome(value: Obj): PullRequestOutcomeFact | undefined {
  if (typeof value.opened !== 'boolean') return undefined;
  const url = typeof value.url === 'string' ? value.url : undefined;
  const reason = typeof value.reason === 'string' ? value.reason : undefined;
  // `{ opened: false }` alone is a placeholder before any attempt.
  if (url === undefined && reason === undefined) return undefined;
  return {
    opened: value.opened,
    ...(url === undefined ? {} : { url }),
    ...(typeof value.number === 'number' ? { number: value.number } : {}),
    ...(reason === undefined ? {} : { reason }),
  };
}

function parse(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Reads the history's events (their input, output and parameters) for workspace facts. */
export function historyFacts(
  events: readonly { input?: string; output?: string; parameters?: string }[],
): HistoryFacts {
  const strings = new Set<string>();
  const builds = new Map<string, BuildFact>();
  let outcome: PullRequestOutcomeFact | undefined;
  let budget = MAX_NODES;
  const visit = (value: unknown, depth: number): void => {
    if (budget-- <= 0 || depth > MAX_DEPTH) return;
    if (typeof value === 'string') {
      if (value.length <= MAX_NAME) strings.add(value.replace(/^refs\/heads\//, ''));
      return;
    }
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
      return;
    }
    if (!isObj(value)) return;
    const build = asBuild(value);
    if (build) builds.set(build.buildId ?? `attempt ${build.attempt ?? builds.size + 1}`, build);
    outcome = asOutcome(value) ?? outcome;
    for (const child of Object.values(value)) visit(child, depth + 1);
  };
  for (const event of events) {
    for (const text of [event.parameters, event.input, event.output]) visit(parse(text), 0);
  }
  const ordered = [...builds.values()].sort((a, b) => (a.attempt ?? 0) - (b.attempt ?? 0));
  return { strings, builds: ordered, ...(outcome ? { outcome } : {}) };
}

/** The conversation's workspace: the history's facts joined with what GitHub holds. */
export function workspaceFacts(
  conversationId: string,
  history: HistoryFacts,
  repositories: readonly RepositoryPage[],
): WorkspaceFacts {
  const branches: BranchFact[] = [];
  const pulls: PullFact[] = [];
  for (const page of repositories) {
    const repository = page.repository.full_name;
    const base = page.repository.default_branch;
    const own = page.branches.filter(
      (b) => b.name !== base && (history.strings.has(b.name) || b.name.includes(conversationId)),
    );
    for (const b of own) {
      branches.push({ repository, name: b.name, base, aheadBy: b.ahead_by, commits: b.commits });
    }
    const names = new Set(own.map((b) => b.name));
    for (const p of page.pulls) {
      if (p.head === undefined || !names.has(p.head)) continue;
      pulls.push({
        repository,
        number: p.number,
        title: p.title,
        state: p.state,
        draft: p.draft === true,
        url: p.html_url,
        head: p.head,
      });
    }
  }
  return {
    branches,
    builds: history.builds,
    pulls,
    ...(history.outcome ? { outcome: history.outcome } : {}),
  };
}

/** Whether there is anything to show. */
export function hasWorkspace(facts: WorkspaceFacts): boolean {
  return (
    facts.branches.length > 0 ||
    facts.builds.length > 0 ||
    facts.pulls.length > 0 ||
    facts.outcome !== undefined
  );
}
