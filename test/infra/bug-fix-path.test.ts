import { describe, expect, it } from 'vitest';
import { FIX_PATH_STATES as F } from '../../statemachines/bug-investigation/fix-path.ts';
import { BUG_INVESTIGATION_STATES as S } from '../../statemachines/bug-investigation/states.ts';
import {
  type AslState,
  definitions,
  functionResource,
  onlyResource,
  resourcesOfType,
  templateOf,
  UNHANDLED_NOTICE_STATES,
  variablesOf,
} from './template.ts';

/** The guards' states of the fix path, by name (stated here, not imported: the names are what this test checks). */
const G = {
  defineChecks: 'Define checks',
  noteUndefinedChecks: 'Note checks not defined',
  checkProtected: 'Check protected changes',
  noteUncheckedPaths: 'Note protected paths not checked',
  protectedTouched: 'Protected paths touched?',
  protectedApproved: 'Protected change approved?',
  noteRefused: 'Note protected change refused',
  noteRejected: 'Note protected change rejected',
  noteExpired: 'Note protected change not approved in time',
  noteApprovalFailed: 'Note protected change approval failed',
} as const;

/** The approval a fix touching protected paths waits for, as its states name it (stated here, not imported: the value is what this test checks). */
const PROTECTED_FIX_APPROVAL_LABEL = 'protected change approval';

/**
 * The bug workflow's fix path as deployed with a repository: its states' names and
 * edges, the build Task, the CodeBuild project, and who may do what. The generic checks
 * (timeouts, retries, catches) run on it in state-machines.test.ts.
 */
const template = templateOf({
  config: {
    bugInvestigation: { repository: 'demo/webshop', build: { commands: { lint: 'npm run lint:ci' } } },
  },
});
const bug = definitions(template).get('bug_investigation');
if (bug === undefined) throw new Error('no bug_investigation');
const state = (name: string): AslState => {
  const found = bug.States[name];
  if (found === undefined) throw new Error(`no state "${name}"`);
  return found;
};
type Choice = Record<string, unknown> & { Next: string };
/** The one Task inside the checks builds' Map. */
const checkBuild = (): AslState => {
  const processor = state(F.buildFix).ItemProcessor as { States: Record<string, AslState> };
  const found = processor.States[`${F.buildFix}: one check`];
  if (found === undefined) throw new Error('no check build in the Map');
  return found;
};
const catchNext = (name: string) => (state(name).Catch as { Next: string }[]).map((c) => c.Next);

type Statement = { Action: string | string[]; Resource: unknown };
function statementsOf(roleRef: unknown): Statement[] {
  const roleId =
    (roleRef as { Ref?: string; 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt']?.[0] ??
    (roleRef as { Ref: string }).Ref;
  return Object.values(resourcesOfType(template, 'AWS::IAM::Policy'))
    .filter((p) => JSON.stringify(p.Properties.Roles).includes(roleId))
    .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}
const actions = (statements: Statement[]) => statements.flatMap((s) => [s.Action].flat()).sort();

describe('the fix path of bug_investigation', () => {
  it('has every fix path state, by its readable name, beside the investigation states', () => {
    const approval = ['Post', 'Wait for', 'Expire'].map((verb) => `${verb} ${PROTECTED_FIX_APPROVAL_LABEL}`);
    expect(Object.keys(bug.States).sort()).toEqual(
      [
        ...Object.values(S),
        ...Object.values(UNHANDLED_NOTICE_STATES),
        // A hand-over is taken in only in a shape this release reads.
        'Hand-over version accepted?',
        'Hand-over version not accepted',
        ...Object.values(F),
        ...Object.values(G),
        ...approval,
        `${PROTECTED_FIX_APPROVAL_LABEL} expired`,
      ].sort(),
    );
  });

  it('goes to the fix path on fix_requested, lets only a request the check allows through, and says why otherwise', () => {
    const route = state(S.routeOnAction).Choices as Choice[];
    expect(route).toContainEqual({
      Variable: '$.result.action',
      StringEquals: 'fix_requested',
      Next: F.checkFixRequest,
    });
    expect(state(F.checkFixRequest).Next).toBe(F.developerAsked);
    expect(catchNext(F.checkFixRequest)).toEqual([S.summaryThreadOpen]);
    expect(state(F.developerAsked)).toMatchObject({
      Choices: [{ Variable: '$.fixRequest.allowed', BooleanEquals: true, Next: F.startFix }],
      Default: F.canTellWhyNoFix,
    });
    // The check reads the cited request from the result and the turn that asked.
    expect(state(F.checkFixRequest).Parameters).toMatchObject({ 'turn.$': '$.turn', 'result.$': '$.result' });
    // A refusal is told where the request was made, then the findings go on as before.
    expect(state(F.canTellWhyNoFix)).toMatchObject({
      Choices: [{ Variable: '$.fixRequest.notice', IsPresent: true, Next: F.tellWhyNoFix }],
      Default: S.summaryThreadOpen,
    });
    expect(state(F.tellWhyNoFix).Next).toBe(S.summaryThreadOpen);
    expect(catchNext(F.tellWhyNoFix)).toEqual([S.summaryThreadOpen]);
  });

  it('writes, builds, reads the results, and loops at most three times before saying why', () => {
    expect(state(F.startFix).Next).toBe(F.writeFix);
    expect(state(F.writeFix).Next).toBe(F.fixWritten);
    expect(state(F.rewriteFix).Next).toBe(F.fixWritten);
    expect(state(F.fixWritten)).toMatchObject({
      Choices: [
        { Variable: '$.fix.turn.modelError', IsPresent: true, Next: F.noteModelRefused },
        { Variable: '$.fix.turn.action', StringEquals: 'fix_written', Next: F.prepareBuild },
      ],
      Default: F.explainToDevelopers,
    });
    // The checks are defined (configuration or base commit) before each build, and the build runs them.
    expect(state(F.prepareBuild).Next).toBe(G.defineChecks);
    expect(state(G.defineChecks).Next).toBe(F.buildFix);
    expect(catchNext(G.defineChecks)).toEqual([G.noteUndefinedChecks]);
    expect(state(G.noteUndefinedChecks).Next).toBe(F.explainToDevelopers);
    // One build per defined check, side by side; each failed or timed-out build is an outcome to read.
    expect(state(F.buildFix)).toMatchObject({
      Type: 'Map',
      ItemsPath: '$.fix.checks.builds',
      ResultPath: '$.fix.builds',
    });
    expect(state(F.buildFix).Next).toBe(F.readBuildResults);
    expect(checkBuild().Catch).toEqual([
      { ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: `${F.buildFix}: check build failed` },
    ]);
    expect(state(F.readBuildResults).Parameters).toMatchObject({
      'checks.$': '$.fix.checks.checks',
      'builds.$': '$.fix.builds',
    });
    expect(state(F.buildPassed)).toMatchObject({
      Choices: [
        { Variable: '$.fix.build.passed', BooleanEquals: true, Next: G.checkProtected },
        { Variable: '$.fix.attempt', NumericLessThan: 3, Next: F.feedBackBuild },
      ],
      Default: F.explainToDevelopers,
    });
    expect(state(F.feedBackBuild)).toMatchObject({
      InputPath: '$.fix.build.feedback',
      ResultPath: '$.fix.notes',
      Next: F.rewriteFix,
    });
  });

  it('ends the conversation when the model cannot serve a fixer turn: the developers told, then the reporter, then failed', () => {
    for (const turn of [F.writeFix, F.rewriteFix]) {
      expect(state(turn).Catch).toEqual([
        { ErrorEquals: ['ModelUnavailableError'], ResultPath: '$.failure', Next: F.tellDevelopersModelStop },
        { ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: F.noteFailedFix },
      ]);
    }
    expect(state(F.noteModelRefused)).toMatchObject({
      Type: 'Pass',
      Parameters: { Error: 'ModelCallError', 'Cause.$': '$.fix.turn.modelError' },
      ResultPath: '$.failure',
      Next: F.tellDevelopersModelStop,
    });
    expect(state(F.tellDevelopersModelStop)).toMatchObject({
      Parameters: {
        Payload: {
          'channel.$': '$.threads.summary.channel',
          'threadTs.$': '$.threads.summary.threadTs',
          template: {
            name: 'agent_stopped',
            data: { 'failure.$': '$.failure', work: 'fix', restart: 'Post the report again' },
          },
        },
      },
      ResultPath: '$.failureNotice',
      Next: S.tellModelStop,
    });
    // Told or not, the reporter hears it next, and the conversation ends failed with the model's error.
    expect(catchNext(F.tellDevelopersModelStop)).toEqual([S.tellModelStop]);
    expect(state(S.tellModelStop).Next).toBe(S.markFailed);
  });

  it("opens a pull request only when the branch's diff is clear of protected paths, or an approver approves", () => {
    expect(state(G.checkProtected).Next).toBe(G.protectedTouched);
    expect(catchNext(G.checkProtected)).toEqual([G.noteUncheckedPaths]);
    expect(state(G.protectedTouched)).toMatchObject({
      Choices: [
        { Variable: '$.fix.protected.verdict', StringEquals: 'clear', Next: F.openPullRequest },
        {
          Variable: '$.fix.protected.verdict',
          StringEquals: 'approval',
          Next: `Post ${PROTECTED_FIX_APPROVAL_LABEL}`,
        },
      ],
      Default: G.noteRefused,
    });
    expect(state(`Wait for ${PROTECTED_FIX_APPROVAL_LABEL}`).TimeoutSeconds).toBe(172_800);
    expect(state(G.protectedApproved)).toMatchObject({
      Choices: [
        { Variable: '$.fixApproval.decision', StringEquals: 'approve', Next: F.openPullRequest },
        { Variable: '$.fixApproval.outcome', StringEquals: 'decided', Next: G.noteRejected },
      ],
      Default: G.noteExpired,
    });
    for (const note of [G.noteRefused, G.noteRejected, G.noteExpired, G.noteUncheckedPaths]) {
      expect(state(note)).toMatchObject({ ResultPath: '$.fix.pullRequest', Next: F.explainToDevelopers });
    }
  });

  it('tells both threads the outcome, pull request or reason, then waits for developers', () => {
    expect(state(F.pullRequestOpened)).toMatchObject({
      Choices: [
        { Variable: '$.fix.pullRequest.opened', BooleanEquals: true, Next: F.postPullRequestToDevelopers },
      ],
      Default: F.explainToDevelopers,
    });
    expect(state(F.postPullRequestToDevelopers).Next).toBe(F.postPullRequestToReporter);
    expect(state(F.postPullRequestToReporter).Next).toBe(S.awaitingDevelopers);
    expect(state(F.explainToDevelopers).Next).toBe(F.explainToReporter);
    expect(state(F.explainToReporter).Next).toBe(S.awaitingDevelopers);
    // A failed task's last Catch (every error): a fixer turn's first takes the model's stop.
    for (const failing of [F.writeFix, F.rewriteFix, F.openPullRequest, F.readBuildResults]) {
      const next = catchNext(failing).at(-1) as string;
      expect(state(next).Next, failing).toBe(F.explainToDevelopers);
    }
  });

  it("hands the fixer's tools, the build and the pull request the one work branch the check named", () => {
    for (const turn of [F.writeFix, F.rewriteFix]) {
      // The plain Lambda integration: the Parameters are the payload.
      expect(state(turn).Parameters, turn).toMatchObject({
        toolContext: { 'workBranch.$': '$.fixRequest.workBranch' },
      });
    }
    expect(state(F.openPullRequest).Parameters).toMatchObject({
      'branch.$': '$.fixRequest.workBranch',
      'checkedHead.$': '$.fix.protected.headSha',
    });
  });

  it("builds the defined commit of the bug's work branch with startBuild.sync, bounded by the project's timeout", () => {
    const build = checkBuild();
    expect(build.Resource).toBe('arn:<AWS::Partition>:states:::codebuild:startBuild.sync');
    expect(build.Parameters).toMatchObject({
      'SourceVersion.$': '$.sourceVersion',
      'BuildspecOverride.$': '$.buildspec',
    });
    expect(build.TimeoutSeconds).toBe((20 + 10) * 60);
  });

  it('has a CodeBuild project on the repository that runs nothing of its own, and no secret', () => {
    const [, project] = onlyResource(template, 'AWS::CodeBuild::Project');
    const source = project.Properties.Source as { Type: string; Location: string; BuildSpec: string };
    expect(source.Type).toBe('GITHUB');
    expect(source.Location).toBe('https://github.com/demo/webshop.git');
    // Every start brings the buildspec Define checks wrote (with the configured commands).
    const commands = (JSON.parse(source.BuildSpec) as { phases: { build: { commands: string[] } } }).phases
      .build.commands;
    expect(commands).toHaveLength(1);
    expect(commands[0]).toMatch(/runs only the checks Define checks wrote.*; exit 1$/);
    expect(state(G.defineChecks).Parameters).toMatchObject({
      commands: { lint: 'npm run lint:ci' },
    });
    expect(project.Properties.TimeoutInMinutes).toBe(20);
    const environment = project.Properties.Environment as { EnvironmentVariables?: unknown[] };
    expect(environment.EnvironmentVariables ?? []).toEqual([]);
  });

  it('gives the code tools the GitHub secret and the ledger only, and names the secret in an output', () => {
    const [, fn] = functionResource(template, 'BugCodeTools');
    const variables = variablesOf(template, fn);
    expect(variables.CODE_REPOSITORY).toBe('demo/webshop');
    expect(variables.GITHUB_BASE_URL).toBe('https://api.github.com');
    expect(variables.GITHUB_SECRET_ARN).toBeDefined();
    const granted = actions(statementsOf(fn.Properties.Role));
    expect(granted.filter((a) => !/^(dynamodb|logs|xray):/.test(a))).toEqual([
      'secretsmanager:DescribeSecret',
      'secretsmanager:GetSecretValue',
    ]);
    const outputs = template.toJSON().Outputs as Record<string, unknown>;
    expect(Object.keys(outputs)).toContain('GitHubCredentialsSecretArn');
  });

  it('lets the build results Lambda read CodeBuild logs and test reports and nothing of GitHub', () => {
    const [, fn] = functionResource(template, 'ReadBuildResults');
    const statements = statementsOf(fn.Properties.Role);
    const granted = actions(statements);
    expect(granted).toContain('logs:GetLogEvents');
    expect(granted).toEqual(
      expect.arrayContaining(['codebuild:BatchGetReports', 'codebuild:DescribeTestCases']),
    );
    // Only on the report groups of the stack's own projects.
    const reports = statements.find((s) => JSON.stringify(s).includes('codebuild:DescribeTestCases'));
    expect(JSON.stringify(reports?.Resource)).toContain(':report-group/');
    expect(granted.some((a) => a.startsWith('secretsmanager:'))).toBe(false);
  });

  it('has no fix path, code tools variable or build project without a repository', () => {
    const plain = templateOf();
    const states = Object.keys(definitions(plain).get('bug_investigation')?.States ?? {});
    expect(states).not.toContain(F.writeFix);
    expect(Object.keys(resourcesOfType(plain, 'AWS::CodeBuild::Project'))).toEqual([]);
  });
});
