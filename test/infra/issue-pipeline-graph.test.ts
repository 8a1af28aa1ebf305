import { describe, expect, it } from 'vitest';
import { ISSUE_PIPELINE_PROFILES } from '../../lambdas/workflows/issue-pipeline/profiles/index.ts';
import { agentStates, ISSUE_PIPELINE_STATES as S } from '../../statemachines/issue-pipeline/states.ts';
import {
  type AslState,
  definitions,
  registrationsText,
  renderIntrinsics,
  resourcesOfType,
  templateOf,
} from './template.ts';

/**
 * The issue pipeline's graph as deployed: the design's agents as states, the hub's
 * routes, the attempts guard, the bounded waits and their timeouts, the builds, the work
 * branch every agent is given, and its triggers. The generic checks (a timeout, a Retry for
 * transient errors and a Catch on every Task) run on it in state-machines.test.ts.
 */
const template = templateOf({
  config: {
    issuePipeline: { repository: 'demo/webshop', maxAttempts: 2, humanWaitSeconds: 3_600 },
  },
});
const graph = definitions(template).get('issue_pipeline');
if (graph === undefined) throw new Error('no issue_pipeline');
const state = (name: string): AslState => {
  const found = graph.States[name];
  if (found === undefined) throw new Error(`no state "${name}"`);
  return found;
};
type Choice = { StringEquals?: string; Next: string; Variable?: string; NumericLessThanEquals?: number };
const choices = (name: string) => state(name).Choices as Choice[];
const catches = (name: string) => state(name).Catch as { ErrorEquals: string[]; Next: string }[];

describe('the issue_pipeline definition', () => {
  it('names its stages after its agents', () => {
    for (const name of ['Triage', 'Analyst', 'Writer', 'Build', 'Reviewer', 'Committer']) {
      expect(Object.keys(graph.States)).toContain(name);
    }
  });

  it('tells a failure on the issue and in its thread, with the error, and the channel only when that fails', () => {
    const tellIssue = state(S.tellIssueFailure);
    expect(tellIssue.Parameters).toMatchObject({
      'failure.$': '$.failure',
    });
    expect(tellIssue.Next).toBe(S.markFailed);
    expect(catches(S.tellIssueFailure).at(-1)).toMatchObject({
      ErrorEquals: ['States.ALL'],
      Next: S.tellFailure,
    });
    expect(state(S.tellFailure).Next).toBe(S.markFailed);
    expect(catches(S.tellFailure).at(-1)).toMatchObject({ ErrorEquals: ['States.ALL'], Next: S.markFailed });
    expect(catches(S.start).at(-1)).toMatchObject({ Next: S.tellIssueFailure });
  });

  it('starts with the issue, then marks the stage, shows progress and routes from the hub', () => {
    expect(graph.StartAt).toBe(S.start);
    expect(state(S.start).Next).toBe(S.begin);
    expect(state(S.begin).Next).toBe(S.markStage);
    expect(state(S.markStage).Next).toBe(S.showProgress);
    expect(state(S.showProgress).Next).toBe(S.nextStage);
    const routes = Object.fromEntries(choices(S.nextStage).map((c) => [c.StringEquals, c.Next]));
    expect(routes).toMatchObject({
      triage: agentStates('triage').nextTurn,
      analyst: agentStates('analyst').nextTurn,
      writer: S.attemptsLeft,
      build: S.prepareBuild,
      build_base: S.prepareBaseBuild,
      reviewer: agentStates('reviewer').nextTurn,
      approval: 'Post sensitive change approval',
      committer: S.committer,
      ask_agent: S.whoIsAsked,
      ask_people: S.askPeople,
      stopped: S.markStopped,
      blocked: S.markBlocked,
    });
    expect(state(S.nextStage).Default).toBe(S.markEndFailed);
  });

  it('lets the writer run at most maxAttempts times, held by the state machine too', () => {
    const [guard] = choices(S.attemptsLeft);
    expect(guard).toMatchObject({
      Variable: '$.handOff.attempt',
      NumericLessThanEquals: 2,
      Next: agentStates('writer').nextTurn,
    });
    expect(state(S.attemptsLeft).Default).toBe(S.markEndFailed);
  });

  it('hands every agent turn to the hand-off, a failed turn as blocked, but fails on a model that cannot serve it', () => {
    for (const agent of ['triage', 'analyst', 'writer', 'reviewer'] as const) {
      const N = agentStates(agent);
      expect(state(N.turn).Next).toBe(N.modelRefused(false));
      expect(state(N.modelRefused(false))).toMatchObject({
        Choices: [{ Variable: '$.turnOutput.modelError', IsPresent: true, Next: N.noteModelRefused(false) }],
        Default: N.handOff,
      });
      expect(state(N.noteModelRefused(false))).toMatchObject({
        Parameters: { Error: 'ModelCallError', 'Cause.$': '$.turnOutput.modelError' },
        ResultPath: '$.failure',
        Next: S.tellIssueFailure,
      });
      expect(catches(N.turn)).toEqual([
        { ErrorEquals: ['ModelUnavailableError'], ResultPath: '$.failure', Next: S.tellIssueFailure },
        { ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: N.noteFailedTurn },
      ]);
      expect(state(N.answer).Next).toBe(N.modelRefused(true));
      expect(state(N.noteFailedTurn).Next).toBe(N.handOff);
      expect(state(N.handOff).Next).toBe(S.markStage);
    }
  });

  it("sets the conversation's phase to the stage each hand-off names, and a failed write does not stop it", () => {
    const mark = state(S.markStage);
    expect(String(mark.Resource)).toMatch(/:states:::dynamodb:updateItem$/);
    const parameters = mark.Parameters as {
      UpdateExpression: string;
      ExpressionAttributeNames: Record<string, string>;
      ExpressionAttributeValues: Record<string, unknown>;
    };
    expect(parameters.UpdateExpression).toBe(
      `SET #phase = :phase, #schemaVersion = if_not_exists(#schemaVersion, :schemaVersion)`,
    );
    expect(parameters.ExpressionAttributeNames).toEqual({
      '#phase': 'phase',
      '#schemaVersion': 'schemaVersion',
    });
    expect(parameters.ExpressionAttributeValues).toEqual({
      ':phase': { 'S.$': '$.handOff.next' },
      ':schemaVersion': { N: '1' },
    });
    expect(catches(S.markStage).at(-1)).toMatchObject({ ErrorEquals: ['States.ALL'], Next: S.showProgress });
    for (const judge of [S.judgeBuild, S.judgeBaseBuild]) expect(state(judge).Next).toBe(S.markStage);
  });

  it("gives every agent the pipeline's work branch, and each its own session", () => {
    for (const agent of ['triage', 'analyst', 'writer', 'reviewer'] as const) {
      // Payload response only: the state's Parameters are the Lambda's payload.
      const parameters = state(agentStates(agent).turn).Parameters as Record<string, unknown>;
      expect(parameters).toMatchObject({
        profile: `issue_${agent}`,
        'sessionId.$': `$.pipeline.sessions.${agent}`,
        toolContext: { 'workBranch.$': '$.pipeline.branch' },
      });
    }
  });

  it('bounds the wait for people by the configured time, and takes the silence to the hand-off', () => {
    expect(state(S.waitForPeople).TimeoutSeconds).toBe(3_600);
    expect(catches(S.waitForPeople)[0]).toMatchObject({
      ErrorEquals: ['States.Timeout'],
      Next: S.takeSilence,
    });
    expect(state('Wait for sensitive change approval').TimeoutSeconds).toBe(3_600);
  });

  it('builds the work branch, and the base commit only when the judge asks for it', () => {
    // The checks are defined for the branch's head (or the base commit), whose builds then run them.
    expect(state(S.defineChecks).Parameters).toMatchObject({ 'branch.$': '$.pipeline.branch' });
    expect(state(S.defineBaseChecks).Parameters).toMatchObject({ 'branch.$': '$.pipeline.baseSha' });
    for (const [build, judge] of [
      [S.build, S.judgeBuild],
      [S.buildBase, S.judgeBaseBuild],
    ] as const) {
      expect(state(build)).toMatchObject({ Type: 'Map', ItemsPath: '$.build.checks.builds', Next: judge });
      const one = (state(build).ItemProcessor as { States: Record<string, AslState> }).States[
        `${build}: one check`
      ];
      expect(one?.Parameters).toMatchObject({
        'SourceVersion.$': '$.sourceVersion',
        'BuildspecOverride.$': '$.buildspec',
      });
      // A failed build is an outcome the judge reads, kept in the Map's results.
      expect(one?.Catch).toEqual([
        { ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: `${build}: check build failed` },
      ]);
      // The judge is given the commit every build of the stage built ("Define checks"' head, each
      // build's SourceVersion), which the verdict keeps: no pull request opens with another head.
      expect(state(judge).Parameters).toMatchObject({
        'headSha.$': '$.build.checks.headSha',
        'checks.$': '$.build.checks.checks',
        'builds.$': '$.build.builds',
      });
    }
  });

  it('runs each answer to another agent with its read-only profile, on the same branch', () => {
    for (const agent of ['triage', 'analyst', 'writer', 'reviewer'] as const) {
      const parameters = state(agentStates(agent).answer).Parameters as Record<string, unknown>;
      expect(parameters).toMatchObject({
        profile: `issue_${agent}_answer`,
        toolContext: { 'workBranch.$': '$.pipeline.branch' },
      });
      const profile = ISSUE_PIPELINE_PROFILES[parameters.profile as keyof typeof ISSUE_PIPELINE_PROFILES];
      const tools = profile.tools.map((t) => t.name);
      expect(tools).not.toContain('write_file');
      expect(tools).not.toContain('delete_file');
    }
  });

  it("builds the base in a project of its own, whose test reports the branch's builds cannot write", () => {
    const projectOf = (build: string) => {
      const one = (state(build).ItemProcessor as { States: Record<string, AslState> }).States[
        `${build}: one check`
      ];
      return /^<(\w+)>$/.exec(
        String((one?.Parameters as { ProjectName?: unknown } | undefined)?.ProjectName),
      )?.[1];
    };
    const branch = projectOf(S.build);
    const base = projectOf(S.buildBase);
    const projects = resourcesOfType(template, 'AWS::CodeBuild::Project');
    expect(branch !== undefined && base !== undefined && branch !== base).toBe(true);
    const roleOf = (project: string) =>
      /^<(\w+)\.Arn>$/.exec(renderIntrinsics(projects[project]?.Properties.ServiceRole))?.[1];
    const branchRole = roleOf(branch ?? '');
    expect(branchRole).toBeDefined();
    expect(branchRole).not.toBe(roleOf(base ?? ''));
    // Every grant to the branch project's role names its own project, never the base's.
    const granted = Object.values(resourcesOfType(template, 'AWS::IAM::Policy'))
      .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`"${branchRole}"`))
      .map((policy) => JSON.stringify(policy.Properties.PolicyDocument));
    expect(granted.join('\n')).toContain(`"Ref":"${branch}"`);
    expect(granted.join('\n')).toContain('report-group/');
    expect(granted.join('\n')).not.toContain(`"Ref":"${base}"`);
  });

  it('starts on the configured label and on /fix, naming issues of the repository', () => {
    const registrations = registrationsText(template);
    expect(registrations).toContain(
      '"type":"github_issue_labeled","repository":"demo/webshop","label":"agent"',
    );
    expect(registrations).toContain('"command":"/fix"');
    expect(registrations).toContain('"names":[{"anchor":"github_issue","repository":"demo/webshop"}]');
  });
});
