import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The release an upgrade starts from, checked out beside this one: a temporary `git worktree`
 * of `ref`, installed with `npm ci` from npm's cache when it can (`--prefer-offline`: no network
 * for what the cache holds). `remove()` takes the worktree away again.
 */

export class OldReleaseError extends Error {
  override readonly name = 'OldReleaseError';
}

export interface OldRelease {
  readonly ref: string;
  readonly commit: string;
  readonly dir: string;
  remove(): void;
}

function git(repo: string, args: string[]): string {
  try {
    return execFileSync('git', args, {
      cwd: repo,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  } catch (cause) {
    const stderr = (cause as { stderr?: string }).stderr?.trim();
    throw new OldReleaseError(`git ${args.join(' ')}: ${stderr || String(cause)}`, { cause });
  }
}

/** Checks `ref` out in a temporary worktree of `repo` and installs it; `log` says each step. */
export function checkOutOldRelease(repo: string, ref: string, log: (line: string) => void): OldRelease {
  const commit = git(repo, ['rev-parse', '--verify', `${ref}^{commit}`]);
  const dir = join(mkdtempSync(join(tmpdir(), 'rehearse-upgrade-')), 'old');
  log(`checking out ${ref} (${commit.slice(0, 12)}) in ${dir}`);
  git(repo, ['worktree', 'add', '--detach', dir, commit]);
  const remove = () => {
    spawnSync('git', ['worktree', 'remove', '--force', dir], { cwd: repo, stdio: 'ignore' });
    rmSync(join(dir, '..'), { recursive: true, force: true });
  };
  try {
    if (!existsSync(join(dir, 'local', 'main.ts'))) {
      throw new OldReleaseError(`${ref} has no sandbox (local/main.ts): it cannot be rehearsed from`);
    }
    log(`installing ${ref}: npm ci --prefer-offline`);
    const install = spawnSync('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (install.status !== 0) {
      throw new OldReleaseError(
        `npm ci in ${ref} failed (${install.status}): ${install.stderr.slice(-2000)}`,
      );
    }
    return { ref, commit, dir, remove };
  } catch (error) {
    remove();
    throw error;
  }
}
