/**
 * Compares this CodeBuild emulator's answers with Python moto's `moto_server`, a second,
 * independent CodeBuild implementation, over the raw JSON protocol (moto sends timestamps as
 * ISO strings, which `@aws-sdk/client-codebuild` cannot read, so the SDK is not in the loop
 * here; the emulator is checked with the SDK in test/local/codebuild*.test.ts), and prints
 * what each answered.
 *
 *   npx tsx local/codebuild/check-against-moto.ts
 *
 * Exits 1 if a compared observation differs, 2 if moto_server cannot be started. Rows marked
 * "info" are printed, not compared: there moto is known to answer canned or differently typed
 * values (noted in the row).
 */
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMoto } from '../moto-server.ts';
import { readBody } from '../read-body.ts';
import { CODEBUILD_TARGET_PREFIX, createCodeBuildApiHandler } from './api.ts';
import { CodeBuildService } from './service.ts';

interface Observation {
  name: string;
  value: unknown;
  info?: string;
}

type Json = Record<string, unknown>;

async function call(
  endpoint: string,
  operation: string,
  body: unknown,
): Promise<{ status: number; json: Json }> {
  const response = await fetch(`${endpoint}/`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': `${CODEBUILD_TARGET_PREFIX}${operation}`,
      authorization:
        'AWS4-HMAC-SHA256 Credential=testing/20260101/us-east-1/codebuild/aws4_request, SignedHeaders=host, Signature=0',
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Json };
}

const typeOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

async function scenario(endpoint: string, location: string): Promise<Observation[]> {
  const observations: Observation[] = [];
  const observe = (name: string, value: unknown, info?: string) =>
    observations.push({ name, value, ...(info ? { info } : {}) });
  const project = {
    name: 'checks',
    source: {
      type: 'GITHUB_ENTERPRISE',
      location,
      buildspec: 'version: 0.2\nphases:\n  build:\n    commands:\n      - "true"\n',
    },
    artifacts: { type: 'NO_ARTIFACTS' },
    environment: {
      type: 'LINUX_CONTAINER',
      image: 'aws/codebuild/standard:7.0',
      computeType: 'BUILD_GENERAL1_SMALL',
    },
    serviceRole: 'arn:aws:iam::123456789012:role/checks',
  };
  const created = await call(endpoint, 'CreateProject', project);
  observe('CreateProject status', created.status);
  observe(
    'CreateProject project.arn',
    String((created.json.project as Json | undefined)?.arn).replace(/\d{12}/, '<account>'),
  );
  const again = await call(endpoint, 'CreateProject', project);
  observe('CreateProject of an existing name', [again.status, again.json.__type]);

  const started = await call(endpoint, 'StartBuild', { projectName: 'checks', sourceVersion: 'main' });
  const build = (started.json.build ?? {}) as Json;
  observe('StartBuild status', started.status);
  observe('StartBuild build.buildStatus', build.buildStatus);
  observe('StartBuild build.currentPhase', build.currentPhase);
  observe('StartBuild build.projectName', build.projectName);
  observe('StartBuild build.sourceVersion', build.sourceVersion);
  observe('StartBuild build.buildComplete', build.buildComplete);
  observe('StartBuild build.id is <project>:<uuid>', /^checks:[0-9a-f-]{36}$/.test(String(build.id)));
  observe(
    'StartBuild build.arn is the build ARN of the id',
    String(build.arn).replace(/\d{12}/, '<account>') ===
      `arn:aws:codebuild:us-east-1:<account>:build/${String(build.id)}`,
  );
  const phases = (build.phases ?? []) as Json[];
  observe(
    'StartBuild build.phases',
    phases.map((p) => [p.phaseType, p.phaseStatus ?? null]),
  );
  observe('StartBuild build.phases[0] fields', Object.keys(phases[0] ?? {}).sort());
  observe('StartBuild build.logs.cloudWatchLogs', (build.logs as Json | undefined)?.cloudWatchLogs);
  observe('StartBuild build.logs.s3Logs', (build.logs as Json | undefined)?.s3Logs);
  observe('StartBuild build.cache', build.cache);
  observe('StartBuild build.queuedTimeoutInMinutes', build.queuedTimeoutInMinutes);
  observe(
    'StartBuild build.environment.privilegedMode',
    (build.environment as Json | undefined)?.privilegedMode,
  );
  observe(
    'StartBuild build.environment.imagePullCredentialsType',
    (build.environment as Json | undefined)?.imagePullCredentialsType,
  );
  observe(
    'StartBuild build fields',
    Object.keys(build).sort(),
    'moto omits resolvedSourceVersion and adds none the SDK lacks; printed for reading',
  );
  observe(
    'StartBuild build field types',
    Object.fromEntries(Object.entries(build).map(([key, value]) => [key, typeOf(value)])),
    'moto sends startTime as an ISO string (the SDK rejects it: "Expected real number"); the JSON protocol, and this emulator, send epoch seconds',
  );
  observe(
    'StartBuild build.source',
    build.source,
    "moto answers a canned CODECOMMIT source, not the project's",
  );
  observe(
    'StartBuild build.timeoutInMinutes',
    build.timeoutInMinutes,
    "moto answers a canned 45; CodeBuild's default, 60",
  );

  const fetched = await call(endpoint, 'BatchGetBuilds', {
    ids: [build.id, 'checks:00000000-0000-0000-0000-000000000000'],
  });
  observe('BatchGetBuilds status', fetched.status);
  observe(
    'BatchGetBuilds buildsNotFound',
    fetched.json.buildsNotFound,
    "moto leaves buildsNotFound out; CodeBuild's API reference lists the ids it could not find there",
  );
  observe('BatchGetBuilds builds[0].id', (fetched.json.builds as Json[] | undefined)?.[0]?.id === build.id);

  const missing = await call(endpoint, 'StartBuild', { projectName: 'no-such-project' });
  observe('StartBuild of a missing project', [missing.status, missing.json.__type]);
  const stopped = await call(endpoint, 'StopBuild', { id: build.id });
  observe('StopBuild status', stopped.status);
  observe(
    'StopBuild build.buildStatus',
    (stopped.json.build as Json | undefined)?.buildStatus,
    'moto answers STOPPED at once; this emulator answers the build as it is when asked and reports STOPPED once the command is ended',
  );
  return observations;
}

function format(value: unknown): string {
  return value === undefined ? '(none)' : JSON.stringify(value);
}

async function main(): Promise<number> {
  let moto: { endpoint: string; process: ChildProcess };
  try {
    moto = await startMoto();
  } catch (error) {
    console.error(`moto comparison not run: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  const repo = mkdtempSync(join(tmpdir(), 'codebuild-moto-'));
  const service = new CodeBuildService({ account: '123456789012' });
  const api = createCodeBuildApiHandler(service);
  const server = createServer((req, res) => void readBody(req).then((body) => api(req, res, body)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', repo, ...args], {
        env: {
          PATH: process.env.PATH,
          HOME: repo,
          GIT_AUTHOR_NAME: 'c',
          GIT_AUTHOR_EMAIL: 'c@example.com',
          GIT_COMMITTER_NAME: 'c',
          GIT_COMMITTER_EMAIL: 'c@example.com',
        },
      });
    git('init', '--quiet', '--initial-branch=main');
    writeFileSync(join(repo, 'README.md'), 'check\n');
    git('add', '-A');
    git('commit', '--quiet', '-m', 'check');
    const ours = await scenario(endpoint, repo);
    const theirs = await scenario(moto.endpoint, 's3-bucket/source.zip');
    let mismatches = 0;
    console.log('CodeBuild scenario: this emulator vs moto_server\n');
    ours.forEach((observation, index) => {
      const other = theirs[index];
      const same = format(observation.value) === format(other?.value);
      const verdict = observation.info ? (same ? 'same' : 'info') : same ? 'same' : 'DIFFERENT';
      if (!observation.info && !same) mismatches += 1;
      console.log(`[${verdict}] ${observation.name}`);
      console.log(`    emulator: ${format(observation.value)}`);
      if (!same) console.log(`    moto:     ${format(other?.value)}`);
      if (observation.info && !same) console.log(`    note:     ${observation.info}`);
    });
    console.log(
      mismatches === 0
        ? `\nAll ${ours.filter((o) => !o.info).length} compared observations agree.`
        : `\n${mismatches} compared observation(s) differ.`,
    );
    return mismatches === 0 ? 0 : 1;
  } finally {
    await service.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(repo, { recursive: true, force: true });
    moto.process.kill();
  }
}

process.exitCode = await main();
