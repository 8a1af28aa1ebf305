import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { failures, type Verdict } from './verdicts.ts';

/**
 * A deliberately incompatible release, to show that the upgrade rehearsal fails on one: this
 * checkout's committed code in a temporary `git worktree`, with one field of the workflows'
 * state renamed everywhere the code names it (`turnContext` to `turnCtx`). The release is
 * consistent with itself, so only state written by the release before it cannot pass through.
 */

/** The folders whose code names the workflows' state fields. */
const CODE = ['statemachines', 'lambdas', 'infra'];

export interface RenamedField {
  readonly from: string;
  readonly to: string;
}

/** Parses `old=new`, each a plain identifier. */
export function parseRename(text: string): RenamedField {
  const match = /^([A-Za-z_$][\w$]*)=([A-Za-z_$][\w$]*)$/.exec(text);
  if (match === null) throw new Error(`--rename-field takes old=new (two identifiers), not "${text}"`);
  const [, from, to] = match as unknown as [string, string, string];
  if (from === to) throw new Error(`--rename-field ${text} renames nothing`);
  return { from, to };
}

export interface IncompatibleRelease {
  readonly dir: string;
  /** The files the rename changed. */
  readonly files: readonly string[];
  remove(): void;
}

/** This checkout's HEAD in a temporary worktree, `field` renamed in its code, this checkout's node_modules beside it. */
export function incompatibleRelease(repo: string, field: RenamedField): IncompatibleRelease {
  const dir = join(mkdtempSync(join(tmpdir(), 'rehearse-incompatible-')), 'release');
  execFileSync('git', ['worktree', 'add', '--detach', dir, 'HEAD'], { cwd: repo, stdio: 'ignore' });
  const remove = () => {
    spawnSync('git', ['worktree', 'remove', '--force', dir], { cwd: repo, stdio: 'ignore' });
    rmSync(join(dir, '..'), { recursive: true, force: true });
  };
  try {
    const listed = spawnSync('git', ['grep', '-l', '-w', '-e', field.from, '--', ...CODE], {
      cwd: dir,
      encoding: 'utf8',
    });
    const files = listed.stdout.split('\n').filter((file) => file.endsWith('.ts'));
    if (files.length === 0) throw new Error(`no code in ${CODE.join(', ')} names the field ${field.from}`);
    const word = new RegExp(`\\b${field.from}\\b`, 'g');
    for (const file of files) {
      const path = join(dir, file);
      writeFileSync(path, readFileSync(path, 'utf8').replace(word, field.to));
    }
    symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'), 'dir');
    return { dir, files, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/**
 * Whether the rehearsal against the incompatible release went as it must: at least one
 * conversation failed, and every failure names the renamed field (by either name).
 */
export function failedOnField(verdicts: readonly Verdict[], field: RenamedField): boolean {
  const failed = failures(verdicts);
  const names = (path: string) => path.split('.').some((part) => part === field.from || part === field.to);
  return failed.length > 0 && failed.every((verdict) => verdict.fields.some(names));
}
