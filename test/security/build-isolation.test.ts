import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StartBuildCommand } from '@aws-sdk/client-codebuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handOver, isolatedCommand, isolationMode } from '../../local/codebuild/isolation.ts';
import { createProject, finished, makeRepository, startCodeBuild } from '../local/codebuild.harness.ts';

/** The uids builds run as, one each, above any the system hands out (stated here, not imported: the value is what this test checks). */
const BUILD_UIDS = { first: 1_500_000, count: 100_000 } as const;

/**
 * The attack: a build script (a branch's test script, a `postinstall`) that reads the
 * sandbox project's own files by absolute path and writes outside its build directory. The
 * sandbox's CodeBuild runs it as `nobody` in a private mount namespace (when the sandbox runs
 * as root, as CI does), so the reads find nothing and the writes land nowhere the host sees.
 */

const projectRoot = process.cwd();
const marker = `/tmp/build-isolation-${process.pid}`;
let cb: Awaited<ReturnType<typeof startCodeBuild>>;
let repo: ReturnType<typeof makeRepository>;

beforeAll(async () => {
  cb = await startCodeBuild({ minuteMs: 2_000, projectRoot });
  repo = makeRepository({
    'attack.sh': [
      'echo "running-as-uid=$(id -u)"',
      `cat ${join(projectRoot, 'package.json')} && echo READ-PROJECT-FILE`,
      `echo "listing: $(ls -A ${projectRoot} | tr '\\n' ' ')"`,
      `echo pwned > ${join(projectRoot, 'pwned.txt')} && echo WROTE-PROJECT`,
      `echo pwned > ${marker} && echo WROTE-TMP`,
      'cat /etc/shadow >/dev/null 2>&1 && echo READ-SHADOW',
      'echo own > "$CODEBUILD_SRC_DIR/own.txt" && echo WROTE-OWN',
      // A link committed on the branch, to the project's manifest: followed, it finds nothing.
      'cat leak.json && echo READ-THROUGH-LINK',
      // The checks still run: node and the project's tsx are there.
      'node -e "console.log(\'node \' + process.version)"',
      'tsx --version >/dev/null && echo TSX-OK',
      'exit 0',
    ].join('\n'),
  });
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', repo.path, ...args], {
      env: {
        PATH: process.env.PATH,
        HOME: repo.path,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@example.com',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@example.com',
      },
    });
  symlinkSync(join(projectRoot, 'package.json'), join(repo.path, 'leak.json'));
  git('add', 'leak.json');
  git('commit', '--quiet', '-m', 'a link out of the checkout');
  await createProject(
    cb.client,
    'attack',
    repo.path,
    'version: 0.2\nphases:\n  build:\n    commands:\n      - bash attack.sh\n',
  );
});

afterAll(async () => {
  await cb?.close();
  repo?.remove();
  rmSync(marker, { force: true });
  rmSync(join(projectRoot, 'pwned.txt'), { force: true });
});

describe('a build script attacking the machine that runs it', () => {
  it('cannot read the project’s files nor write outside its directory, and the checks still run', async () => {
    const mode = await isolationMode();
    // CI runs as root: the full isolation is what is asserted there. Elsewhere the mode is reported.
    if (process.getuid?.() === 0) expect(mode).toBe('namespace-uid');

    const started = await cb.client.send(new StartBuildCommand({ projectName: 'attack' }));
    const done = await finished(cb.client, started.build?.id ?? '');
    const log = cb.service
      .readLog(done.id ?? '')
      .events.map((event) => event.message)
      .join('\n');

    expect(done.buildStatus).toBe('SUCCEEDED');
    expect(log).toContain('Build isolation: ');
    expect(log).toContain('WROTE-OWN');
    expect(log).toMatch(/node v\d+/);
    expect(log).toContain('TSX-OK');
    if (mode === 'none') return;
    expect(log).not.toContain('READ-PROJECT-FILE');
    expect(log).not.toContain('WROTE-PROJECT');
    expect(log).not.toContain('READ-SHADOW');
    expect(log).not.toContain('READ-THROUGH-LINK');
    // A write to /tmp lands in the build's own throwaway /tmp, never on the host.
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(join(projectRoot, 'pwned.txt'))).toBe(false);
    if (mode === 'namespace-uid') {
      const uid = Number(/running-as-uid=(\d+)/.exec(log)?.[1]);
      expect(uid).toBeGreaterThanOrEqual(BUILD_UIDS.first);
      expect(uid).toBeLessThan(BUILD_UIDS.first + BUILD_UIDS.count);
    }
    // The project root shows nothing but its node_modules (read-only, for the checks' tools).
    expect(log).toContain('listing: node_modules \n');
  });

  // Regression: with the project checked out under /tmp (a CI clone can be), hiding /tmp after
  // the project root hid the project's node_modules too, and every build failed at once.
  it('keeps the checks’ tools and hides the project when the project itself lives under /tmp', async () => {
    const mode = await isolationMode();
    const root = mkdtempSync(join(tmpdir(), 'isolated-project-'));
    const work = mkdtempSync(join(tmpdir(), 'isolated-build-'));
    try {
      mkdirSync(join(root, 'node_modules'));
      writeFileSync(join(root, 'node_modules', 'tool.txt'), 'TOOL-VISIBLE\n');
      writeFileSync(join(root, 'secret.txt'), 'secret\n');
      const uid = BUILD_UIDS.first;
      await handOver(mode, work, uid);
      const script = `cat ${root}/node_modules/tool.txt; cat ${root}/secret.txt 2>/dev/null && echo READ-SECRET; echo "in=$(pwd)"`;
      const { file, args } = isolatedCommand(mode, {
        projectRoot: root,
        workDir: work,
        uid,
        command: ['sh', '-c', script],
      });
      // The build runner passes a build nothing of its own environment; neither does this test.
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
      const out = execFileSync(file, args, { encoding: 'utf8', env });
      expect(out).toContain('TOOL-VISIBLE');
      expect(out).toContain(`in=${work}`);
      if (mode !== 'none') expect(out).not.toContain('READ-SECRET');
    } finally {
      rmSync(root, { recursive: true, force: true });
      rmSync(work, { recursive: true, force: true });
    }
  });
});
