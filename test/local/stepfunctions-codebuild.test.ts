import { GetExecutionHistoryCommand, StartExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodeBuildService } from '../../local/codebuild/service.ts';
import { eventually } from '../support/eventually.ts';
import { makeRepository } from './codebuild.harness.ts';
import { machineArn, settled, startStepFunctions } from './stepfunctions.harness.ts';

/**
 * The `codebuild:startBuild(.sync)` integration of the sandbox's Step Functions, running real
 * builds in the sandbox's CodeBuild: the `.sync` output is `{Build}` in PascalCase, a failed
 * build fails the Task with States.TaskFailed and the build as its Cause, and a Task that ends
 * first stops its build.
 */

let codebuild: CodeBuildService;
let repo: ReturnType<typeof makeRepository>;
let sfn: Awaited<ReturnType<typeof startStepFunctions>>;

beforeAll(async () => {
  repo = makeRepository({ 'README.md': 'hello\n' }, { 'agents/bug-7': { 'README.md': 'fixed\n' } });
  codebuild = new CodeBuildService({ minuteMs: 1000 });
  codebuild.createProject({
    name: 'checks',
    source: { type: 'GITHUB_ENTERPRISE', location: repo.path },
    artifacts: { type: 'NO_ARTIFACTS' },
    environment: {
      type: 'LINUX_CONTAINER',
      image: 'aws/codebuild/standard:7.0',
      computeType: 'BUILD_GENERAL1_SMALL',
    },
    serviceRole: 'arn:aws:iam::000000000000:role/sandbox-codebuild',
  });
  sfn = await startStepFunctions({
    invokeLambda: async () => null,
    codebuild,
  });
});

afterAll(async () => {
  await sfn?.close();
  await codebuild?.close();
  repo?.remove();
});

const buildspec = (commands: string[]) => JSON.stringify({ version: 0.2, phases: { build: { commands } } });

function machine(
  name: string,
  resource: string,
  parameters: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  sfn.runtime.registerStateMachine({
    arn: machineArn(name),
    name,
    definition: {
      StartAt: 'Build',
      States: {
        Build: {
          Type: 'Task',
          Resource: resource,
          Parameters: parameters,
          TimeoutSeconds: 600,
          ...extra,
          End: true,
        },
        ...(extra.Catch ? { Failed: { Type: 'Pass', End: true } } : {}),
      },
    },
  });
}

async function execute(name: string, input: unknown = {}) {
  const { executionArn } = await sfn.client.send(
    new StartExecutionCommand({ stateMachineArn: machineArn(name), input: JSON.stringify(input) }),
  );
  return { executionArn: executionArn ?? '', done: () => settled(sfn.client, executionArn ?? '', 30_000) };
}

describe('codebuild:startBuild in the sandbox Step Functions', () => {
  it('.sync waits for the build and returns it as Step Functions does: {Build} in PascalCase', async () => {
    machine(
      'SyncOk',
      'arn:aws:states:::codebuild:startBuild.sync',
      {
        ProjectName: 'checks',
        'SourceVersion.$': '$.branch',
        BuildspecOverride: buildspec(['cat README.md', 'test "$CHECK" = typecheck']),
        EnvironmentVariablesOverride: [{ Name: 'CHECK', Type: 'PLAINTEXT', 'Value.$': '$.check' }],
      },
      {
        ResultSelector: {
          'status.$': '$.Build.BuildStatus',
          'complete.$': '$.Build.BuildComplete',
          'phases.$': '$.Build.Phases[*].PhaseType',
          'source.$': '$.Build.ResolvedSourceVersion',
          'logStream.$': '$.Build.Logs.StreamName',
          'startTime.$': '$.Build.StartTime',
        },
      },
    );
    const { executionArn, done } = await execute('SyncOk', { branch: 'agents/bug-7', check: 'typecheck' });
    const execution = await done();

    expect(execution.status).toBe('SUCCEEDED');
    const output = JSON.parse(execution.output ?? '{}');
    expect(output).toMatchObject({ status: 'SUCCEEDED', complete: true, source: repo.sha('agents/bug-7') });
    expect(output.phases).toContain('BUILD');
    expect(output.phases.at(-1)).toBe('COMPLETED');
    expect(typeof output.startTime).toBe('number');
    expect(output.startTime).toBeGreaterThan(1_600_000_000_000);
    const { events } = await sfn.client.send(new GetExecutionHistoryCommand({ executionArn }));
    const types = (events ?? []).map((event) => event.type);
    expect(types.indexOf('TaskSubmitted')).toBeGreaterThan(types.indexOf('TaskStarted'));
    expect(types.indexOf('TaskSucceeded')).toBeGreaterThan(types.indexOf('TaskSubmitted'));
  });

  it('.sync fails the Task with States.TaskFailed and the failed build as the Cause', async () => {
    machine(
      'SyncFail',
      'arn:aws:states:::codebuild:startBuild.sync',
      { ProjectName: 'checks', BuildspecOverride: buildspec(['echo broken; exit 2']) },
      { Catch: [{ ErrorEquals: ['States.TaskFailed'], ResultPath: '$.error', Next: 'Failed' }] },
    );
    const execution = await (await execute('SyncFail')).done();

    expect(execution.status).toBe('SUCCEEDED');
    const { error } = JSON.parse(execution.output ?? '{}') as { error: { Error: string; Cause: string } };
    expect(error.Error).toBe('States.TaskFailed');
    const cause = JSON.parse(error.Cause) as {
      Build: {
        BuildStatus: string;
        Phases: { PhaseType: string; PhaseStatus?: string; Contexts?: { Message: string }[] }[];
      };
    };
    expect(cause.Build.BuildStatus).toBe('FAILED');
    expect(cause.Build.Phases.find((p) => p.PhaseType === 'BUILD')?.Contexts?.[0]?.Message).toBe(
      'Error while executing command: echo broken; exit 2. Reason: exit status 2',
    );
  });

  it('fails with CodeBuild.ResourceNotFoundException when the project does not exist', async () => {
    machine('NoProject', 'arn:aws:states:::codebuild:startBuild.sync', { ProjectName: 'missing' });
    const execution = await (await execute('NoProject')).done();

    expect(execution.status).toBe('FAILED');
    expect(execution.error).toBe('CodeBuild.ResourceNotFoundException');
  });

  it('without .sync returns the started build at once, still IN_PROGRESS', async () => {
    machine(
      'Fire',
      'arn:aws:states:::codebuild:startBuild',
      {
        ProjectName: 'checks',
        BuildspecOverride: buildspec(['sleep 1']),
      },
      { ResultSelector: { 'status.$': '$.Build.BuildStatus', 'id.$': '$.Build.Id' } },
    );
    const execution = await (await execute('Fire')).done();

    const output = JSON.parse(execution.output ?? '{}') as { status: string; id: string };
    expect(output.status).toBe('IN_PROGRESS');
    expect((await codebuild.waitForBuild(output.id)).buildStatus).toBe('SUCCEEDED');
  });

  it('stops the build when the execution is stopped while .sync waits', async () => {
    machine('Stopped', 'arn:aws:states:::codebuild:startBuild.sync', {
      ProjectName: 'checks',
      BuildspecOverride: buildspec(['sleep 30']),
    });
    const { executionArn, done } = await execute('Stopped');
    const submitted = await eventually(
      async () =>
        (await sfn.client.send(new GetExecutionHistoryCommand({ executionArn }))).events?.find(
          (event) => event.type === 'TaskSubmitted',
        ),
      (event) => event !== undefined,
      'the build to be submitted',
    );
    const buildId = (
      JSON.parse(submitted?.taskSubmittedEventDetails?.output ?? '{}') as { Build: { Id: string } }
    ).Build.Id;
    await sfn.client.send(new StopExecutionCommand({ executionArn }));

    expect((await done()).status).toBe('ABORTED');
    expect((await codebuild.waitForBuild(buildId)).buildStatus).toBe('STOPPED');
  });
});
