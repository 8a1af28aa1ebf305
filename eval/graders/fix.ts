import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Check } from '../types.ts';

/**
 * The fix grader, by code, SWE-bench's rule: on the pull request's branch, the case's hidden
 * tests must pass (fail-to-pass) and the repository's own tests must keep passing
 * (pass-to-pass). What judges is the base's: its test folders replace the branch's (a branch
 * cannot pass by editing or deleting tests) and its test command runs, with the hidden tests
 * added. Runs in temporary copies, one per command (the two run side by side); nothing of the
 * branch's checkout is changed.
 */

export interface FixInput {
  /** A checkout of the pull request's head. */
  headDir: string;
  /** A checkout of the base commit. */
  baseDir: string;
  hiddenTests: Record<string, string>;
  hiddenCommand: string;
  fullCommand: string;
  testDirs: string[];
  /** Prepended to PATH (e.g. where `tsx` is). */
  binDir?: string;
  /** @default 120_000 */
  timeoutMs?: number;
  /** Which checks to run and report, in this order. @default both */
  checks?: readonly FixCheck[];
}

export type FixCheck = 'fail-to-pass' | 'pass-to-pass';

export interface CommandRun {
  code: number | null;
  tail: string;
}

export function runShell(
  command: string,
  cwd: string,
  binDir: string | undefined,
  timeoutMs: number,
): Promise<CommandRun> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], {
      cwd,
      env: {
        ...process.env,
        PATH: `${binDir ? `${binDir}:` : ''}${process.env.PATH ?? ''}`,
        NODE_OPTIONS: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const keep = (chunk: Buffer) => {
      out = (out + chunk.toString()).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, tail: out.slice(-600) });
    });
  });
}

async function runCheck(check: FixCheck, input: FixInput, work: string, timeoutMs: number): Promise<Check> {
  if (check === 'fail-to-pass') {
    const hidden = await runShell(input.hiddenCommand, work, input.binDir, timeoutMs);
    return {
      name: 'fail-to-pass',
      pass: hidden.code === 0,
      detail:
        hidden.code === 0
          ? 'the hidden tests pass'
          : `the hidden tests fail (exit ${hidden.code}): ${hidden.tail}`,
    };
  }
  const full = await runShell(input.fullCommand, work, input.binDir, timeoutMs);
  return {
    name: 'pass-to-pass',
    pass: full.code === 0,
    detail:
      full.code === 0
        ? "the base's test command passes"
        : `the base's tests fail (exit ${full.code}): ${full.tail}`,
  };
}

export async function gradeFix(input: FixInput): Promise<Check[]> {
  const root = await mkdtemp(join(tmpdir(), 'eval-fix-'));
  const timeoutMs = input.timeoutMs ?? 120_000;
  try {
    const work = join(root, 'work');
    await cp(input.headDir, work, { recursive: true });
    for (const dir of input.testDirs) {
      await rm(join(work, dir), { recursive: true, force: true });
      await cp(join(input.baseDir, dir), join(work, dir), { recursive: true }).catch(() => undefined);
    }
    for (const [path, text] of Object.entries(input.hiddenTests)) {
      await mkdir(dirname(join(work, path)), { recursive: true });
      await writeFile(join(work, path), text);
    }
    const wanted = input.checks ?? ['fail-to-pass', 'pass-to-pass'];
    // The commands run side by side, each in a copy of its own: what one run writes (a cache,
    // a file the code under test creates) cannot reach the other.
    const dirs = await Promise.all(
      wanted.map(async (check, i) => {
        if (i === 0) return work;
        const copy = join(root, check);
        await cp(work, copy, { recursive: true });
        return copy;
      }),
    );
    return await Promise.all(wanted.map((check, i) => runCheck(check, input, dirs[i] ?? work, timeoutMs)));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
