import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BatchGetReportsCommand,
  type Build,
  DescribeTestCasesCommand,
  StartBuildCommand,
  StopBuildCommand,
} from '@aws-sdk/client-codebuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { createProject, finished, makeRepository, startCodeBuild } from './codebuild.harness.ts';

/**
 * The sandbox CodeBuild's build memo: a build of a tree, buildspec and environment already built
 * replays what the commands did (phases, log lines, test report) instead of running them again;
 * anything else that differs, or a build that did not run to its end, runs.
 */

let cb: Awaited<ReturnType<typeof startCodeBuild>>;
let repo: ReturnType<typeof makeRepository>;
let memoDir: string;

const TEST = `import { test } from 'node:test';\nimport assert from 'node:assert';\ntest('adds', () => {});\ntest('rounds', () => { assert.equal(1, 2); });\n`;

beforeAll(async () => {
  memoDir = mkdtempSync(join(tmpdir(), 'codebuild-memo-'));
  cb = await startCodeBuild({ minuteMs: 60_000, memoDir });
  // `same` holds main's files in a commit of its own; `other` changes one.
  repo = makeRepository(
    { 'cart.test.ts': TEST },
    { same: { 'cart.test.ts': TEST }, other: { 'cart.test.ts': TEST.replace('1, 2', '2, 2') } },
  );
  await createProject(cb.client, 'memo', repo.path, 'version: 0.2\nphases: {}\n');
});
afterAll(async () => {
  await cb?.close();
  repo?.remove();
  rmSync(memoDir, { recursive: true, force: true });
});

/** A command whose output differs on every run: the same output twice means it ran once. */
const NONCE = 'echo "nonce $(od -An -N8 -tx8 /dev/urandom | tr -d " ")"';
const TESTS =
  'tsx --test --test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=.check-junit.xml cart.test.ts';

const buildspec = (commands: string[]) =>
  JSON.stringify({
    version: 0.2,
    phases: { build: { commands } },
    reports: { tests: { files: ['.check-junit.xml'], 'file-format': 'JUNITXML' } },
  });

async function build(
  sourceVersion: string,
  commands: string[],
  environment: Record<string, string> = {},
): Promise<{ build: Build; log: string[] }> {
  const started = await cb.client.send(
    new StartBuildCommand({
      projectName: 'memo',
      sourceVersion,
      buildspecOverride: buildspec(commands),
      environmentVariablesOverride: Object.entries(environment).map(([name, value]) => ({
        name,
        value,
        type: 'PLAINTEXT',
      })),
    }),
  );
  const done = await finished(cb.client, started.build?.id ?? '');
  return { build: done, log: cb.service.readLog(done.id ?? '').events.map((e) => e.message) };
}

const nonce = (log: string[]) => log.find((line) => line.startsWith('nonce '));
const replayed = (log: string[]) => log.some((line) => line.includes('Replaying the commands'));
const phases = (b: Build) => b.phases?.map((p) => [p.phaseType, p.phaseStatus]);

async function failedCases(b: Build) {
  const arn = b.reportArns?.[0] ?? '';
  const { reports } = await cb.client.send(new BatchGetReportsCommand({ reportArns: [arn] }));
  const { testCases } = await cb.client.send(
    new DescribeTestCasesCommand({ reportArn: arn, filter: { status: 'FAILED' } }),
  );
  return { report: reports?.[0], failed: testCases?.map((c) => c.name) };
}

describe("the sandbox CodeBuild's build memo", () => {
  it('replays a build of the same tree from another commit: its phases, its log and its test report, as its own', async () => {
    const first = await build('main', [NONCE, TESTS]);
    const second = await build('same', [NONCE, TESTS]);

    expect(first.build.buildStatus).toBe('FAILED');
    expect(replayed(first.log)).toBe(false);
    expect(replayed(second.log)).toBe(true);
    expect(nonce(second.log)).toBe(nonce(first.log));
    expect(second.build.buildStatus).toBe('FAILED');
    expect(phases(second.build)).toEqual(phases(first.build));
    expect(second.build.phases?.find((p) => p.phaseType === 'BUILD')?.contexts).toEqual(
      first.build.phases?.find((p) => p.phaseType === 'BUILD')?.contexts,
    );
    // Its own build: its own id, its own resolved commit, its own report of the same cases.
    expect(second.build.id).not.toBe(first.build.id);
    expect(second.build.resolvedSourceVersion).toBe(repo.sha('same'));
    expect(second.build.reportArns).toHaveLength(1);
    expect(second.build.reportArns).not.toEqual(first.build.reportArns);
    const [a, b] = [await failedCases(first.build), await failedCases(second.build)];
    expect(b.failed).toEqual(['rounds']);
    expect(b.failed).toEqual(a.failed);
    expect(b.report?.executionId).toBe(second.build.arn);
    expect(b.report?.testSummary).toEqual(a.report?.testSummary);
  });

  it('runs again for another tree, other commands or another environment', async () => {
    const base = await build('main', [NONCE]);
    const tree = await build('other', [NONCE]);
    const commands = await build('main', [NONCE, 'true']);
    const environment = await build('main', [NONCE], { STAGE: 'two' });

    for (const other of [tree, commands, environment]) {
      expect(replayed(other.log)).toBe(false);
      expect(nonce(other.log)).not.toBe(nonce(base.log));
    }
    // The tests of the other tree pass: its outcome is its own.
    expect((await build('other', [TESTS])).build.buildStatus).toBe('SUCCEEDED');
  });

  it('runs the commands of two builds of one tree started together once: the second waits for the first', async () => {
    const commands = [NONCE, 'sleep 1'];
    const [one, two] = await Promise.all([build('main', commands), build('same', commands)]);

    expect([replayed(one.log), replayed(two.log)].sort()).toEqual([false, true]);
    expect(nonce(one.log)).toBe(nonce(two.log));
    expect(two.build.buildStatus).toBe('SUCCEEDED');
    expect(one.build.buildStatus).toBe('SUCCEEDED');
  });

  it('keeps no build that was stopped, so the next one of the same tree runs its commands', async () => {
    const kept = readdirSync(memoDir).length;
    for (const round of [1, 2]) {
      const started = await cb.client.send(
        new StartBuildCommand({
          projectName: 'memo',
          sourceVersion: 'main',
          buildspecOverride: buildspec([NONCE, 'sleep 60']),
        }),
      );
      const id = started.build?.id ?? '';
      await eventually(
        () => cb.service.readLog(id).events.map((e) => e.message),
        (log) => nonce(log) !== undefined,
        `the nonce of build ${round}`,
      );
      await cb.client.send(new StopBuildCommand({ id }));
      expect((await finished(cb.client, id)).buildStatus).toBe('STOPPED');
      expect(replayed(cb.service.readLog(id).events.map((e) => e.message))).toBe(false);
    }
    expect(readdirSync(memoDir)).toHaveLength(kept);
  });
});
