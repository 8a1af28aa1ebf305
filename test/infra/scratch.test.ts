import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeScratch, scratchDirectory } from '../../infra/scratch.ts';
import { sweepScratch } from '../support/sweep-scratch.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const fakeTmp = mkdtempSync(join(tmpdir(), 'scratch-test-'));
afterAll(() => rmSync(fakeTmp, { recursive: true, force: true }));

/** The id of a process that has ended (a child that ran and was reaped). */
function endedPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('scratch directories', () => {
  it("live in this process's folder and are gone once removed", () => {
    const directory = scratchDirectory('cdk.out-');
    expect(dirname(directory)).toBe(join(tmpdir(), `slack-agents-${process.pid}`));
    expect(existsSync(directory)).toBe(true);
    removeScratch(directory);
    expect(existsSync(directory)).toBe(false);
  });

  it('go with their folder when the process exits', () => {
    const script =
      "import { scratchDirectory } from './infra/scratch.ts'; process.stdout.write(scratchDirectory('x-'));";
    const made = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(made).toContain('slack-agents-');
    expect(existsSync(dirname(made))).toBe(false);
  });

  it('are swept when their process is gone, and kept while it runs or when they are not ours', () => {
    const gone = join(fakeTmp, `slack-agents-${endedPid()}`);
    const running = join(fakeTmp, `slack-agents-${process.ppid}`);
    const mine = join(fakeTmp, `slack-agents-${process.pid}`);
    const other = join(fakeTmp, 'slack-agents-cache');
    for (const folder of [gone, running, mine, other])
      mkdirSync(join(folder, 'cdk.out-1'), { recursive: true });
    expect(sweepScratch(fakeTmp)).toBe(1);
    expect(readdirSync(fakeTmp).sort()).toEqual(
      [running, mine, other].map((folder) => folder.slice(fakeTmp.length + 1)).sort(),
    );
  });
});
