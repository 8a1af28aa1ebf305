import { BatchGetBuildsCommand, CodeBuildClient, StartBuildCommand } from '@aws-sdk/client-codebuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectsFromTemplate } from '../../local/codebuild/template-projects.ts';
import type { Sandbox } from '../../local/sandbox-options.ts';
import type { CloudFormationTemplate } from '../../local/template.ts';
import { workerSandbox } from '../support/sandbox.ts';
import { createProject, finished, makeRepository } from './codebuild.harness.ts';

/** CodeBuild on the sandbox's one port: the SDK client finds it through AWS_ENDPOINT_URL_CODEBUILD alone. */

let sandbox: Sandbox;
let repo: ReturnType<typeof makeRepository>;

beforeAll(async () => {
  repo = makeRepository({ 'package.json': '{"name":"demo"}\n', 'sum.ts': 'console.log(1 + 2);\n' });
  sandbox = await workerSandbox({ logLevel: 'SILENT' });
});

afterAll(async () => {
  await sandbox?.stop();
  repo?.remove();
});

describe('CodeBuild in the sandbox', () => {
  it('serves @aws-sdk/client-codebuild through AWS_ENDPOINT_URL_CODEBUILD and runs the build with tsx from this project', async () => {
    expect(process.env.AWS_ENDPOINT_URL_CODEBUILD).toBe(sandbox.url);
    const client = new CodeBuildClient({ maxAttempts: 1 });
    await createProject(
      client,
      'demo-checks',
      repo.path,
      'version: 0.2\nphases:\n  build:\n    commands:\n      - tsx sum.ts\n',
    );

    const { build } = await client.send(
      new StartBuildCommand({ projectName: 'demo-checks', sourceVersion: 'main' }),
    );
    const done = await finished(client, build?.id ?? '');

    expect(done.buildStatus).toBe('SUCCEEDED');
    expect(sandbox.codebuild.readLog(done.id ?? '').events.map((e) => e.message)).toContain('3');
    const { buildsNotFound } = await client.send(new BatchGetBuildsCommand({ ids: ['demo-checks:missing'] }));
    expect(buildsNotFound).toEqual(['demo-checks:missing']);
    client.destroy();
  });
});

describe('CodeBuild projects of a template', () => {
  it('become CreateProject requests named by Name or logical id, with their buildspec and variables', () => {
    const template: CloudFormationTemplate = {
      Resources: {
        ChecksProject: {
          Type: 'AWS::CodeBuild::Project',
          Properties: {
            Source: { Type: 'NO_SOURCE', BuildSpec: 'version: 0.2\nphases: {}\n' },
            Environment: {
              Type: 'LINUX_CONTAINER',
              Image: 'aws/codebuild/standard:7.0',
              ComputeType: 'BUILD_GENERAL1_SMALL',
              EnvironmentVariables: [{ Name: 'CI', Value: 'true', Type: 'PLAINTEXT' }],
            },
            Artifacts: { Type: 'NO_ARTIFACTS' },
            ServiceRole: 'arn:aws:iam::000000000000:role/checks',
            TimeoutInMinutes: 15,
          },
        },
      },
    };
    expect(projectsFromTemplate(template, { baseUrl: 'http://127.0.0.1:1' })).toEqual([
      {
        name: 'ChecksProject',
        source: { type: 'NO_SOURCE', buildspec: 'version: 0.2\nphases: {}\n' },
        artifacts: { type: 'NO_ARTIFACTS' },
        environment: {
          type: 'LINUX_CONTAINER',
          image: 'aws/codebuild/standard:7.0',
          computeType: 'BUILD_GENERAL1_SMALL',
          environmentVariables: [{ name: 'CI', value: 'true', type: 'PLAINTEXT' }],
        },
        serviceRole: 'arn:aws:iam::000000000000:role/checks',
        timeoutInMinutes: 15,
      },
    ]);
  });
});
