import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Adding to a workflow changes that workflow's own files only. The proof is a commit: the one
 * that gave the probe fixture an agent turn, settings, a feedback answer kind, a preflight and a
 * slash command (its subject ends with MARKER). Git's view of that commit must name files of the
 * fixture's own folders and of the modules' registration list, and nothing of the kernel, the
 * stack, the sandbox, the console or the evals, which read all of it from the module. A later
 * commit (its subject ending with COMMAND_ENTITY_MARKER) gave the probe's command a thing it
 * names (an issue of its repository, asked about once), under the same rule.
 */

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const MARKER = '[fixture-enlargement]';
const COMMAND_ENTITY_MARKER = '[probe-command-entity]';

/** Where the fixture may live, and the one list of modules. */
const ALLOWED = [
  /^statemachines\/probe\.ts$/,
  /^statemachines\/kernel-probe\//,
  /^lambdas\/workflows\/kernel-probe\//,
  /^statemachines\/index\.ts$/,
];

const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO, encoding: 'utf8' }).trim();

/** The commit whose subject ends with `marker`, in the history of HEAD; fails saying why when there is none. */
function markedCommit(marker: string): string {
  let log: string;
  try {
    log = git('log', '--format=%H %s', '--fixed-strings', `--grep=${marker}`, 'HEAD');
  } catch (error) {
    throw new Error(`cannot read the git history at ${REPO} (${String(error)}): this test needs a git clone`);
  }
  // The subject names the commit; a later message may mention the marker in its body.
  const found = log
    .split('\n')
    .filter((line) => line.endsWith(` ${marker}`))
    .map((line) => line.slice(0, line.indexOf(' ')));
  if (found.length === 0) {
    const shallow = git('rev-parse', '--is-shallow-repository') === 'true';
    throw new Error(
      `no commit in the history of HEAD has a subject ending with "${marker}"${shallow ? ': this clone is shallow, fetch its full history (git fetch --unshallow)' : ''}`,
    );
  }
  if (found.length > 1)
    throw new Error(`"${marker}" ends ${found.length} subjects: it must mark exactly one commit`);
  return found[0] as string;
}

/** The files a commit touched, as git sees them. */
const touchedBy = (commit: string) =>
  git('diff-tree', '--no-commit-id', '--name-only', '-r', '--root', commit).split('\n');

describe('the commit that enlarged the probe fixture', () => {
  it("touches only the fixture's own folders and the registration list", () => {
    const files = touchedBy(markedCommit(MARKER));
    expect(files.filter((file) => !ALLOWED.some((allowed) => allowed.test(file)))).toEqual([]);
    // It is the enlargement: the module, its state machine side and its Lambda side.
    expect(files).toContain('statemachines/probe.ts');
    expect(files.some((file) => file.startsWith('statemachines/kernel-probe/'))).toBe(true);
    expect(files.some((file) => file.startsWith('lambdas/workflows/kernel-probe/handlers/'))).toBe(true);
  });
});

describe('the commit that gave the probe command a thing it names', () => {
  it("touches only the fixture's own folders: the kernel reads what a command names from its trigger", () => {
    const files = touchedBy(markedCommit(COMMAND_ENTITY_MARKER));
    expect(files.filter((file) => !ALLOWED.some((allowed) => allowed.test(file)))).toEqual([]);
    expect(files.some((file) => file.startsWith('statemachines/kernel-probe/'))).toBe(true);
  });
});
