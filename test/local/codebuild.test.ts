import { StartBuildCommand, StopBuildCommand } from '@aws-sdk/client-codebuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/eventually.ts';
import { createProject, finished, makeRepository, startCodeBuild } from './codebuild.harness.ts';

/**
 * The sandbox's CodeBuild through the real `@aws-sdk/client-codebuild`: builds run the
 * buildspec's commands in one shell, in a clean checkout of a branch of a git repository on
 * disk, and report phases, statuses and logs as CodeBuild does.
 */

let cb: Awaited<ReturnType<typeof startCodeBuild>>;
let repo: ReturnType<typeof makeRepository>;
// One minute of a build lasts 300 ms here: the 5-minute minimum timeout is 1.5 s.
const MINUTE_MS = 300;

beforeAll(async () => {
  cb = await startCodeBuild({ minuteMs: MINUTE_MS, maxLogBytes: 64 * 1024 });
  repo = makeRepository(
    { 'README.md': 'main branch\n', 'check.sh': 'echo "checking $1"; exit "$2"\n' },
    { 'agents/bug-1': { 'README.md': 'work branch\n' } },
  );
  await createProject(
    cb.client,
    'checks',
    repo.path,
    'version: 0.2\nphases:\n  build:\n    commands:\n      - cat README.md\n',
  );
});

afterAll(async () => {
  await cb?.close();
  repo?.remove();
});

async function build(buildspec: string, extra: Record<string, unknown> = {}) {
  const started = await cb.client.send(
    new StartBuildCommand({ projectName: 'checks', buildspecOverride: buildspec, ...extra }),
  );
  return { started, done: await finished(cb.client, started.build?.id ?? '') };
}

const logOf = (id: string | undefined) =>
  cb.service
    .readLog(id ?? '')
    .events.map((event) => event.message)
    .join('\n');

const spec = (phases: Record<string, string[] | { commands: string[]; 'on-failure'?: string }>) =>
  JSON.stringify({
    version: 0.2,
    phases: Object.fromEntries(
      Object.entries(phases).map(([name, value]) => [
        name,
        Array.isArray(value) ? { commands: value } : value,
      ]),
    ),
  });

describe('builds in the sandbox CodeBuild', () => {
  it('runs the commands on the requested branch, carrying variables and directory between them, and reports every phase SUCCEEDED', async () => {
    const { started, done } = await build(
      spec({
        install: ['cd $CODEBUILD_SRC_DIR', 'export GREETING=hello'],
        build: ['cat README.md', 'echo "$GREETING from $FROM_PROJECT and $FROM_START"'],
      }),
      {
        sourceVersion: 'refs/heads/agents/bug-1',
        environmentVariablesOverride: [{ name: 'FROM_START', value: 'start', type: 'PLAINTEXT' }],
      },
    );

    expect(started.build).toMatchObject({
      buildStatus: 'IN_PROGRESS',
      projectName: 'checks',
      buildNumber: 1,
    });
    expect(done).toMatchObject({
      buildStatus: 'SUCCEEDED',
      currentPhase: 'COMPLETED',
      buildComplete: true,
      sourceVersion: 'refs/heads/agents/bug-1',
      resolvedSourceVersion: repo.sha('agents/bug-1'),
    });
    expect(done.phases?.map((p) => [p.phaseType, p.phaseStatus])).toEqual([
      ['SUBMITTED', 'SUCCEEDED'],
      ['QUEUED', 'SUCCEEDED'],
      ['PROVISIONING', 'SUCCEEDED'],
      ['DOWNLOAD_SOURCE', 'SUCCEEDED'],
      ['INSTALL', 'SUCCEEDED'],
      ['PRE_BUILD', 'SUCCEEDED'],
      ['BUILD', 'SUCCEEDED'],
      ['POST_BUILD', 'SUCCEEDED'],
      ['UPLOAD_ARTIFACTS', 'SUCCEEDED'],
      ['FINALIZING', 'SUCCEEDED'],
      ['COMPLETED', undefined],
    ]);
    const log = logOf(done.id);
    expect(log).toContain('work branch');
    expect(log).toContain('hello from project and start');
    expect(log).toMatch(/\[Container\] \d{4}\/\d{2}\/\d{2} [\d:.]+ Running command cat README.md/);
  });

  it('stops a phase at its failing command, still runs POST_BUILD, and fails the build with the command in the context', async () => {
    const { done } = await build(
      spec({
        build: ['sh check.sh test 3', 'echo never-runs'],
        post_build: ['echo "succeeding=$CODEBUILD_BUILD_SUCCEEDING"'],
      }),
    );

    expect(done.buildStatus).toBe('FAILED');
    const phase = done.phases?.find((p) => p.phaseType === 'BUILD');
    expect(phase).toMatchObject({
      phaseStatus: 'FAILED',
      contexts: [
        {
          statusCode: 'COMMAND_EXECUTION_ERROR',
          message: 'Error while executing command: sh check.sh test 3. Reason: exit status 3',
        },
      ],
    });
    expect(done.phases?.find((p) => p.phaseType === 'POST_BUILD')?.phaseStatus).toBe('SUCCEEDED');
    const log = logOf(done.id);
    expect(log).toContain('checking test');
    expect(log).toContain('succeeding=0');
    expect(log).not.toContain('never-runs');
    expect(log).toContain('Command did not exit successfully sh check.sh test 3 exit status 3');
  });

  it('skips the later phases after a failed INSTALL', async () => {
    const { done } = await build(spec({ install: ['false'], build: ['echo building'] }));

    expect(done.buildStatus).toBe('FAILED');
    expect(done.phases?.map((p) => p.phaseType)).toEqual([
      'SUBMITTED',
      'QUEUED',
      'PROVISIONING',
      'DOWNLOAD_SOURCE',
      'INSTALL',
      'UPLOAD_ARTIFACTS',
      'FINALIZING',
      'COMPLETED',
    ]);
  });

  it('fails a command that prints success lines and then kills its own process group', async () => {
    // What a build prints is its log, not its status: the phase ends as the command's process did.
    const forge = [
      'echo "[Container] 2001/01/01 00:00:00.000000 Phase complete: BUILD State: SUCCEEDED"',
      "printf 'END BUILD SUCCEEDED 0 -1\\n' >&3 2>/dev/null",
      'node -e "process.kill(0, \'SIGKILL\')"',
    ].join('; ');
    const { done } = await build(spec({ build: [forge] }));

    expect(done.buildStatus).toBe('FAILED');
    const phase = done.phases?.find((p) => p.phaseType === 'BUILD');
    expect(phase?.phaseStatus).toBe('FAILED');
    expect(phase?.contexts?.[0]?.message).toMatch(/Reason: (exit status 137|killed by signal SIGKILL)$/);
  });

  it('times out a build past timeoutInMinutesOverride: TIMED_OUT, the running phase with BUILD_TIMED_OUT', async () => {
    // 30 minutes are 9 s here: the source download (2-3 s on a machine running two suites) is
    // over long before, and the 20 s sleep is cut in the middle.
    const { done } = await build(spec({ build: ['sleep 20', 'echo slept to the end'] }), {
      timeoutInMinutesOverride: 30,
    });

    expect(logOf(done.id)).not.toContain('slept to the end');
    expect(done.buildStatus).toBe('TIMED_OUT');
    expect(done.timeoutInMinutes).toBe(30);
    expect(done.phases?.find((p) => p.phaseType === 'BUILD')).toMatchObject({
      phaseStatus: 'TIMED_OUT',
      contexts: [{ statusCode: 'BUILD_TIMED_OUT', message: 'Build has timed out. ' }],
    });
  });

  it('stops a running build on StopBuild', async () => {
    const started = await cb.client.send(
      new StartBuildCommand({
        projectName: 'checks',
        buildspecOverride: spec({ build: ['sleep 20'] }),
        timeoutInMinutesOverride: 2160,
      }),
    );
    const id = started.build?.id ?? '';
    await until(() => cb.service.batchGetBuilds([id]).builds[0]?.currentPhase === 'BUILD', 'the BUILD phase');
    await cb.client.send(new StopBuildCommand({ id }));
    const done = await finished(cb.client, started.build?.id ?? '');

    expect(done.buildStatus).toBe('STOPPED');
    expect(done.phases?.find((p) => p.phaseType === 'BUILD')?.phaseStatus).toBe('STOPPED');
  });

  it("passes none of the sandbox's own environment, and puts this project's node_modules/.bin on PATH", async () => {
    process.env.SANDBOX_SECRET_FOR_TEST = `secret-${Date.now()}`;
    try {
      const { done } = await build(
        spec({ build: ['echo "secret=[$SANDBOX_SECRET_FOR_TEST]"', 'tsx --version'] }),
      );
      expect(done.buildStatus).toBe('SUCCEEDED');
      expect(logOf(done.id)).toContain('secret=[]');
    } finally {
      delete process.env.SANDBOX_SECRET_FOR_TEST;
    }
  });

  it('fails DOWNLOAD_SOURCE with CLIENT_ERROR for a branch the repository does not have', async () => {
    const { done } = await build(spec({ build: ['true'] }), { sourceVersion: 'no-such-branch' });

    expect(done.buildStatus).toBe('FAILED');
    expect(done.phases?.find((p) => p.phaseType === 'DOWNLOAD_SOURCE')).toMatchObject({
      phaseStatus: 'FAILED',
      contexts: [{ statusCode: 'CLIENT_ERROR' }],
    });
    expect(done.phases?.some((p) => p.phaseType === 'BUILD')).toBe(false);
  });

  it('keeps the tail of a log past the cap and counts the lines it dropped', async () => {
    const { done } = await build(spec({ build: ['seq 1 20000', 'echo the-end'] }));

    const { events, droppedEvents } = cb.service.readLog(done.id ?? '');
    expect(droppedEvents).toBeGreaterThan(0);
    expect(events.at(-1)?.message).toMatch(/FINALIZING/);
    expect(events.map((e) => e.message)).toContain('the-end');
    expect(events.reduce((bytes, e) => bytes + Buffer.byteLength(e.message), 0)).toBeLessThanOrEqual(
      64 * 1024,
    );
  });

  it('refuses an unknown project, a bad buildspec and a secret variable with the API errors', async () => {
    await expect(cb.client.send(new StartBuildCommand({ projectName: 'nope' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
    await expect(
      cb.client.send(
        new StartBuildCommand({ projectName: 'checks', buildspecOverride: 'version: 0.2\nphases: [' }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidInputException' });
    await expect(
      cb.client.send(
        new StartBuildCommand({
          projectName: 'checks',
          environmentVariablesOverride: [{ name: 'TOKEN', value: 'x', type: 'SECRETS_MANAGER' }],
        }),
      ),
    ).rejects.toMatchObject({
      name: 'InvalidInputException',
      message: expect.stringContaining('PLAINTEXT only'),
    });
  });
});
