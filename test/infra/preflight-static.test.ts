import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CfnResource, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { limitProblems } from '../../infra/limits.ts';
import { cloudFormationFindings } from '../../infra/preflight/cloudformation-findings.ts';
import { runPreflight } from '../../infra/preflight/command.ts';
import { staticPreflight } from '../../infra/preflight/static-checks.ts';
import { buildStack, synthesizeTemplate } from '../../infra/synth.ts';
import { KERNEL_PROBE, KERNEL_PROBE_MODULE } from '../../statemachines/probe.ts';
import { LARGE_CONFIG } from '../support/large-config.ts';

const EXAMPLES = new URL('../../docs/examples/', import.meta.url);
const ROOT = new URL('../..', import.meta.url).pathname;
const examples = readdirSync(EXAMPLES).filter((file) => file.endsWith('.json'));
const SCRATCH_FOLDER = join(tmpdir(), `slack-agents-${process.pid}`);

/**
 * An example as `npm run preflight -c docs/examples/<file>` runs it, in this process: its exit
 * status and the lines it prints, once per file (the checks of the output share its synthesis).
 */
const preflights = new Map<string, Promise<{ code: number; lines: string[] }>>();
function preflightOf(file: string) {
  let run = preflights.get(file);
  if (run === undefined) {
    const lines: string[] = [];
    run = runPreflight(['-c', `docs/examples/${file}`], (line) => lines.push(line)).then((code) => ({
      code,
      lines,
    }));
    preflights.set(file, run);
  }
  return run;
}

describe('the static preflight', () => {
  it('covers an example configuration for every workflow', () => {
    expect(examples).toEqual(
      expect.arrayContaining([
        'bug-investigation.json',
        'incident-investigation.json',
        'issue-pipeline.json',
        'requirements-interview.json',
        'all-workflows.json',
      ]),
    );
  });

  it.each(examples)(
    'passes %s: it validates, synthesizes under cdk-nag and fits the limits AWS enforces',
    async (file) => {
      const { code, lines } = await preflightOf(file);
      expect(lines.filter((line) => line.includes('FIX '))).toEqual([]);
      expect(code).toBe(0);
      expect(lines).toContain('  ok');
      expect(lines.filter((line) => / of 4096 bytes$/.test(line)).length).toBeGreaterThan(5);
    },
  );

  it('stops at the configuration, one line per problem, without synthesizing', () => {
    const report = staticPreflight('{"channels":{"bugReport":"C0123"},"sandbox":false}');
    expect(report.template).toBeUndefined();
    expect(report.problems).toContain(
      'slackAgents.channels.bugReport: unknown key; did you mean channels.bugReports?',
    );
  });

  it('prints the checks, the figures, and the deploy steps that remain', async () => {
    const stdout = (await preflightOf('issue-pipeline.json')).lines.join('\n');
    expect(stdout).toMatch(/synthesized SlackAgentsPipeline in \d+\.\d s/);
    expect(stdout).toMatch(/Router: \d+ of 4096 bytes/);
    expect(stdout).toContain('npx cdk deploy SlackAgentsPipeline');
    expect(stdout).toContain('aws codebuild import-source-credentials');
  });

  it('runs as npm run preflight, exiting 1 with a line naming each fix', async () => {
    // `npm run preflight` is `tsx scripts/preflight.ts`: Node with tsx's loader, without npm's and
    // npx's own processes. A configuration that does not validate stops before synthesis, so the
    // entry point is proved without a second synthesis in a cold process (the output of one that
    // passes is checked above, in this process).
    const failed = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'scripts/preflight.ts', '-c', '{"reporterWaitSecs":1}'],
      { cwd: ROOT },
    ).catch((error: { code: number; stdout: string }) => error);
    expect(failed).toMatchObject({ code: 1 });
    expect((failed as { stdout: string }).stdout).toContain(
      'FIX slackAgents.reporterWaitSecs: unknown key; did you mean reporterWaitSeconds?',
    );
  });
});

describe('the limits AWS enforces that synth does not', () => {
  const fn = (variables: Record<string, unknown>) => ({
    Type: 'AWS::Lambda::Function',
    Properties: { Environment: { Variables: variables } },
    Metadata: { 'slack-agents:function': 'Router' },
  });

  it("counts a function's environment at its longest, deploy-time values included", () => {
    const arns = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`ARN_${i}`, { Ref: 'Queue' }]));
    const template = { Resources: { Queue: { Type: 'AWS::SQS::Queue' }, Fn: fn(arns) } };
    // 25 queue URLs at 160 characters and their names: over 4 KB, though the template holds 600 bytes.
    expect(limitProblems(template, 'SlackAgents')).toEqual([
      {
        resource: 'Router',
        message: expect.stringMatching(/^environment up to 4\d{3} bytes; Lambda takes 4096 in all/),
      },
    ]);
    expect(limitProblems({ Resources: { Fn: fn({ SMALL: 'x'.repeat(100) }) } }, 'SlackAgents')).toEqual([]);
  });

  it('refuses a state machine definition over 1 MB, a name over its limit, a FIFO queue name without .fifo', () => {
    const template = {
      Resources: {
        Machine: {
          Type: 'AWS::StepFunctions::StateMachine',
          Properties: { DefinitionString: 'x'.repeat(1_048_577) },
        },
        Rule: { Type: 'AWS::Events::Rule', Properties: { Name: 'r'.repeat(65) } },
        Queue: { Type: 'AWS::SQS::Queue', Properties: { FifoQueue: true, QueueName: 'inbox' } },
      },
    };
    expect(limitProblems(template, 'SlackAgents').map((p) => p.resource)).toEqual([
      'SlackAgents',
      'Machine',
      'Rule',
      'Queue',
    ]);
    expect(limitProblems({ Resources: {} }, '1-not-a-stack-name')).toHaveLength(1);
  });
});

/**
 * The stack passes aws-cdk-lib's built-in CloudFormation validation (the schema and rule checks
 * `cdk synth` and `cdk deploy` run, whose findings they only print as warnings): the sandbox and
 * the other tests synthesize without it, and the preflight reports every finding as a problem.
 * In this file with the preflight's other checks: the validation's WebAssembly engine costs about
 * 4 s of CPU to warm up in a process, and a second file would pay it again in another worker.
 */

function findings(add: (stack: Stack) => void): string[] {
  const { app, stack } = buildStack({
    config: LARGE_CONFIG as never,
    sandbox: false,
    cloudFormationValidation: true,
  });
  add(stack);
  return cloudFormationFindings(app.synth().directory);
}

const brokenQueue = (stack: Stack) =>
  new CfnResource(stack, 'Broken', { type: 'AWS::SQS::Queue', properties: { VisibilityTimeout: 'soon' } });

describe("aws-cdk-lib's built-in CloudFormation validation", () => {
  // One synthesis of the stack with every workflow configured, plus a resource with a wrong
  // property: that resource's finding is the only one, so the stack itself has none.
  it('reports a resource with a wrong property, naming the rule and the construct, and nothing else in the stack', () => {
    expect(findings(brokenQueue)).toEqual([
      expect.stringMatching(
        /^CloudFormation F\d+ at SlackAgents\/Broken: VisibilityTimeout: 'soon' is not of type 'integer'/,
      ),
    ]);
  });

  it('is a problem the preflight reports, not a warning it drops', () => {
    const probe = {
      ...KERNEL_PROBE_MODULE,
      channels: { probe: 'C0PROBE0001' },
      workflows: [
        {
          ...KERNEL_PROBE,
          build: (...args: Parameters<typeof KERNEL_PROBE.build>) => {
            brokenQueue(Stack.of(args[0]));
            return KERNEL_PROBE.build(...args);
          },
        },
      ],
    };
    const report = staticPreflight({}, [probe]);
    expect(report.problems).toEqual([
      expect.stringMatching(/^CloudFormation F\d+ at SlackAgents\/Broken: VisibilityTimeout/),
    ]);
  });

  it('is skipped by default where the sandbox and the tests synthesize', () => {
    // The probe's stack: the default is the app's, whatever the stack holds.
    const { app } = buildStack({
      modules: [KERNEL_PROBE_MODULE],
      config: { channels: { probe: 'C_PROBE' } },
    });
    expect(app._builtinCloudFormationValidation).toBe(false);
  });

  it('leaves no cloud assembly behind once the template is read', () => {
    // infra/scratch.ts: a process's scratch directories are in one folder, `slack-agents-<pid>` in
    // the temporary directory (made on first use).
    const scratchDirectoryCount = () => (existsSync(SCRATCH_FOLDER) ? readdirSync(SCRATCH_FOLDER).length : 0);
    const before = scratchDirectoryCount();
    synthesizeTemplate({ modules: [KERNEL_PROBE_MODULE], config: { channels: { probe: 'C_PROBE' } } });
    expect(scratchDirectoryCount()).toBe(before);
  });
});
