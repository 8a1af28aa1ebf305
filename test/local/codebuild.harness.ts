import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BatchGetBuildsCommand,
  type Build,
  CodeBuildClient,
  CreateProjectCommand,
} from '@aws-sdk/client-codebuild';
import { createCodeBuildApiHandler } from '../../local/codebuild/api.ts';
import { CodeBuildService } from '../../local/codebuild/service.ts';
import { readBody } from '../../local/read-body.ts';
import { eventually } from '../support/eventually.ts';

/** What the CodeBuild emulator is started with. */
type CodeBuildServiceOptions = NonNullable<ConstructorParameters<typeof CodeBuildService>[0]>;

/** The sandbox's CodeBuild behind a real HTTP server, and a real CodeBuild client pointed at it. */
export async function startCodeBuild(options: CodeBuildServiceOptions = {}) {
  const service = new CodeBuildService(options);
  const api = createCodeBuildApiHandler(service);
  const server = createServer((req, res) => void readBody(req).then((body) => api(req, res, body)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new CodeBuildClient({
    region: 'us-east-1',
    endpoint,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
  return {
    service,
    client,
    endpoint,
    close: async () => {
      await service.close();
      client.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A git repository on disk with a `main` branch (the files given) and optional further branches. */
export function makeRepository(
  files: Record<string, string>,
  branches: Record<string, Record<string, string>> = {},
): { path: string; sha(ref: string): string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'codebuild-repo-'));
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', path, ...args], {
      env: {
        PATH: process.env.PATH,
        HOME: path,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_AUTHOR_NAME: 'test',
        GIT_AUTHOR_EMAIL: 'test@example.com',
        GIT_COMMITTER_NAME: 'test',
        GIT_COMMITTER_EMAIL: 'test@example.com',
      },
      encoding: 'utf8',
    }).trim();
  const write = (content: Record<string, string>) => {
    for (const [name, text] of Object.entries(content)) writeFileSync(join(path, name), text);
    git('add', '-A');
    git('commit', '--quiet', '--allow-empty', '-m', 'files');
  };
  git('init', '--quiet', '--initial-branch=main');
  write(files);
  for (const [branch, content] of Object.entries(branches)) {
    git('checkout', '--quiet', '-b', branch, 'main');
    write(content);
  }
  git('checkout', '--quiet', 'main');
  return {
    path,
    sha: (ref) => git('rev-parse', ref),
    remove: () => rmSync(path, { recursive: true, force: true }),
  };
}

export async function createProject(
  client: CodeBuildClient,
  name: string,
  location: string,
  buildspec: string,
) {
  await client.send(
    new CreateProjectCommand({
      name,
      source: { type: 'GITHUB_ENTERPRISE', location, buildspec },
      artifacts: { type: 'NO_ARTIFACTS' },
      environment: {
        type: 'LINUX_CONTAINER',
        image: 'aws/codebuild/standard:7.0',
        computeType: 'BUILD_GENERAL1_SMALL',
        environmentVariables: [{ name: 'FROM_PROJECT', value: 'project', type: 'PLAINTEXT' }],
      },
      serviceRole: 'arn:aws:iam::000000000000:role/sandbox-codebuild',
    }),
  );
}

/** Polls BatchGetBuilds until the build is complete. */
export async function finished(client: CodeBuildClient, id: string, stallMs = 60_000): Promise<Build> {
  const build = await eventually(
    async () => (await client.send(new BatchGetBuildsCommand({ ids: [id] }))).builds?.[0],
    (found) => found?.buildComplete === true,
    `build ${id} to complete`,
    stallMs,
  );
  return build as Build;
}
