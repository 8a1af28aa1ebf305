import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { InvalidConfigError, parseConfig } from '../../infra/config.ts';
import { deployableConfig, SANDBOX_NOT_DEPLOYABLE } from '../../infra/deployable-config.ts';
import { configProblems } from './config-problems.ts';

/** A configuration that works in AWS: real-looking ids, every enabled workflow provided for. */
const WORKING = JSON.parse(
  readFileSync(new URL('../../docs/examples/bug-investigation.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

describe('configuration that refuses what cannot work', () => {
  it('accepts a complete configuration with real ids', () => {
    expect(configProblems(WORKING)).toEqual([]);
  });

  it('names a typo in channels with the channel it meant', () => {
    expect(
      configProblems({ ...WORKING, channels: { ...(WORKING.channels as object), bugReport: 'C0123' } }),
    ).toEqual(['slackAgents.channels.bugReport: unknown key; did you mean channels.bugReports?']);
  });

  it('names unknown keys at any depth, with the nearest known name when there is one', () => {
    const lines = configProblems({
      ...WORKING,
      reporterWaitSecs: 60,
      bugInvestigation: { build: { comands: {} } },
      incidentInvestigation: {
        skills: [
          { name: 'restart', description: 'd', target: { type: 'lambda', function: 'restart', role: 'x' } },
        ],
      },
      unrelated: true,
    });
    expect(lines).toEqual([
      'slackAgents.bugInvestigation.build.comands: unknown key; did you mean bugInvestigation.build.commands?',
      'slackAgents.incidentInvestigation.skills.0.target.role: unknown key',
      'slackAgents.reporterWaitSecs: unknown key; did you mean reporterWaitSeconds?',
      'slackAgents.unrelated: unknown key',
    ]);
  });

  it("refuses the sandbox's fake ids outside the sandbox, one line each, naming what to set", () => {
    const lines = configProblems({});
    expect(lines).toContain(
      "slackAgents.channels.bugReports: not set, so it is the default, C_BUG_REPORTS, a placeholder of the sandbox's fake workspace; bug_investigation posts there: set a channel id (C0123456789: the channel's details in Slack, at the bottom), or set bugInvestigation.enabled: false",
    );
    expect(lines).toContain(
      'slackAgents.people.on_call: not set, so it is the default, S_ONCALL, a placeholder of the sandbox\'s fake workspace; bug_investigation needs this role: give it groups (a user group id (S0123456789: docs/deploy.md, "User group ids")) or users',
    );
    expect(lines.some((line) => line.startsWith('slackAgents.channels.incidents: not set'))).toBe(true);
    // A placeholder the configuration itself names is called what it is.
    expect(
      configProblems({
        ...WORKING,
        channels: { ...(WORKING.channels as object), bugReports: 'C_BUG_REPORTS' },
        people: { ...(WORKING.people as object), on_call: { groups: ['S_ONCALL'] } },
      }),
    ).toEqual([
      expect.stringMatching(/^slackAgents\.channels\.bugReports: C_BUG_REPORTS is a placeholder/),
      expect.stringMatching(/^slackAgents\.people\.on_call\.groups\.0: S_ONCALL is a placeholder/),
    ]);
    expect(lines.every((line) => !line.includes('\n') && !line.includes('    at '))).toBe(true);
    expect(configProblems({ ...WORKING, botUserId: 'U_BOT' })).toEqual([
      expect.stringMatching(/^slackAgents\.botUserId: U_BOT is a placeholder/),
    ]);
    expect(configProblems({ ...WORKING, requirementsInterview: { mentionChannels: ['C_PRODUCT'] } })).toEqual(
      [
        expect.stringMatching(
          /^slackAgents\.requirementsInterview\.mentionChannels\.0: C_PRODUCT is a placeholder/,
        ),
      ],
    );
  });

  it('accepts the fake ids in the sandbox configuration only', () => {
    expect(configProblems({ sandbox: true })).toEqual([]);
    expect(parseConfig({ sandbox: true }).botUserId).toBe('U_BOT');
    expect(parseConfig(WORKING).botUserId).toBeUndefined();
  });

  it('asks for the incidents channel when the incident investigation is on, and not when it is off', () => {
    const on = { ...WORKING, incidentInvestigation: {} };
    expect(configProblems(on)).toEqual([
      expect.stringMatching(
        /^slackAgents\.channels\.incidents: not set, so it is the default, C_INCIDENTS, .*incident_investigation posts there.*or set incidentInvestigation\.enabled: false$/,
      ),
      // Nobody wrote people.incident_approver: the line says it is the sandbox's default.
      expect.stringMatching(
        /^slackAgents\.people\.incident_approver: not set, so it is the default, S_ONCALL, a placeholder of the sandbox's fake workspace; incident_investigation needs this role: give it groups/,
      ),
    ]);
    expect(
      configProblems({
        ...on,
        channels: { ...(WORKING.channels as object), incidents: 'C07INCIDENT' },
        people: { ...(WORKING.people as object), incident_approver: { groups: ['S07APPROVE'] } },
      }),
    ).toEqual([]);
  });

  it('asks for people in a role an enabled workflow needs, including the roles deciding its approvals', () => {
    expect(
      configProblems({ ...WORKING, people: { ...(WORKING.people as object), on_call: { groups: [] } } }),
    ).toEqual([
      'slackAgents.people.on_call: bug_investigation needs someone in this role: give it groups (a user group id (S0123456789: docs/deploy.md, "User group ids")) or users',
    ]);
    const pipeline = {
      ...WORKING,
      issuePipeline: { repository: 'acme/webshop' },
      channels: { ...(WORKING.channels as object), issuePipeline: 'C07PIPELINE' },
      approvals: { approve_sensitive_change: ['incident_approver'] },
    };
    expect(configProblems(pipeline)).toEqual([
      expect.stringMatching(
        /^slackAgents\.people\.incident_approver: not set, so it is the default, S_ONCALL/,
      ),
    ]);
  });

  it('refuses a skill that cannot run in AWS: the demo skill, a malformed function or document', () => {
    const withSkills = (skills: unknown[]) => ({
      ...WORKING,
      channels: { ...(WORKING.channels as object), incidents: 'C07INCIDENT' },
      people: { ...(WORKING.people as object), incident_approver: { groups: ['S07APPROVE'] } },
      incidentInvestigation: { skills },
    });
    expect(
      configProblems(withSkills([{ name: 'demo', description: 'd', target: { type: 'demo' } }])),
    ).toEqual([
      "slackAgents.incidentInvestigation.skills.0.target: demo runs the sandbox's demo skill, which changes nothing: give it a lambda or ssm_automation target",
    ]);
    expect(
      configProblems(
        withSkills([
          { name: 'restart', description: 'd', target: { type: 'lambda', function: 'has spaces' } },
        ]),
      ),
    ).toEqual([
      expect.stringMatching(
        /^slackAgents\.incidentInvestigation\.skills\.0\.target\.function: expected a Lambda function name or ARN/,
      ),
    ]);
    expect(
      configProblems(
        withSkills([
          { name: 'rollback', description: 'd', target: { type: 'ssm_automation', document: 'a' } },
        ]),
      ),
    ).toEqual([
      expect.stringMatching(
        /^slackAgents\.incidentInvestigation\.skills\.0\.target\.document: expected an SSM Automation document/,
      ),
    ]);
  });

  it('refuses, as `cdk synth` takes it, a configuration that does not validate and the sandbox configuration', () => {
    expect(() => deployableConfig({ ...WORKING, channels: { bugReport: 'C0123' } })).toThrow(
      'slackAgents.channels.bugReport: unknown key; did you mean channels.bugReports?',
    );
    expect(() => deployableConfig({ sandbox: true })).toThrow(InvalidConfigError);
    expect(() => deployableConfig({ sandbox: true })).toThrow(SANDBOX_NOT_DEPLOYABLE);
    expect(deployableConfig(WORKING).sandbox).toBe(false);
  });

  it('stops `cdk synth` with the problem lines and no stack trace', async () => {
    // Node with tsx's loader, as `npx cdk synth` runs the app (cdk.json), without npx's own
    // processes; the app refuses what deployableConfig refuses (above), printing its lines.
    const failed = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'infra/app.ts'], {
      cwd: new URL('../..', import.meta.url).pathname,
      env: {
        ...process.env,
        CDK_CONTEXT_JSON: JSON.stringify({ slackAgents: { sandbox: true }, 'aws:cdk:bundling-stacks': [] }),
        CDK_OUTDIR: '/tmp/slack-agents-config-check',
      },
    }).catch((error: { code: number; stderr: string }) => error);
    expect(failed).toMatchObject({ code: 1 });
    expect((failed as { stderr: string }).stderr.trim()).toBe(
      "invalid slackAgents configuration:\n  slackAgents.sandbox: the sandbox's configuration is never deployed; remove sandbox: true",
    );
  });
});
