import type { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { INCIDENT_STATES as S } from '../../statemachines/incident-investigation/states.ts';
import {
  type AslState,
  allKeys,
  allStates,
  definitions,
  functionResource,
  registrationsText,
  renderIntrinsics,
  resourcesOfType,
  templateOf,
} from './template.ts';

/**
 * The incident investigation's state machine as `cdk deploy` deploys it: the Map's bounded
 * concurrency, a timeout on every Task and every wait, a Retry and a Catch on every Task, the
 * JSONPath-only rule, its triggers, and the skill runner's exact permissions.
 */

const CONFIG = {
  alarms: { names: ['checkout-p99'] },
  incidentInvestigation: {
    mapConcurrency: 2,
    approvalWaitSeconds: 900,
    services: [{ name: 'checkout', alarmNames: ['checkout-p99'], pagerDutyServices: ['PCHECKOUT'] }],
    skills: [
      {
        name: 'restart',
        description: 'Restarts a service',
        target: { type: 'lambda' as const, function: 'ops-restart' },
      },
      {
        name: 'scale',
        description: 'Scales a service',
        target: { type: 'ssm_automation' as const, document: 'Ops-Scale' },
        mutating: true,
      },
    ],
  },
};
const template = templateOf({ config: CONFIG });
const incident = definitions(template).get('incident_investigation');
if (incident === undefined) throw new Error('no incident_investigation state machine');
const states = allStates(incident);
const state = (name: string): AslState => {
  const found = states.find(([n]) => n === name)?.[1];
  if (found === undefined) throw new Error(`no state "${name}"`);
  return found;
};
const tasks = states.filter(([, s]) => s.Type === 'Task');

describe('the incident_investigation state machine', () => {
  it('investigates the round hypotheses in a Map bounded by the configured concurrency', () => {
    const map = state(S.investigateAll);
    expect(map).toMatchObject({ Type: 'Map', MaxConcurrency: 2, ItemsPath: '$.roundPlan.items' });
    const processor = map.ItemProcessor as { States: Record<string, AslState> };
    const turns = Object.entries(processor.States).filter(
      ([, s]) => s.Type === 'Task' && JSON.stringify(s.Parameters).includes('incident_investigator'),
    );
    expect(turns.map(([name]) => name).sort()).toEqual([
      'Investigate hypothesis',
      'Investigate hypothesis further',
    ]);
    // Each iteration drains under its own turn and scopes its tools to its hypothesis and round.
    for (const [, turn] of turns) {
      expect(turn.Parameters).toMatchObject({
        'turn.$': '$.turn',
        toolContext: { 'scope.$': '$.item.scope' },
      });
    }
    expect(map.ItemSelector).toMatchObject({
      'turn.$': '$$.Map.Item.Value.turn',
      'item.$': '$$.Map.Item.Value',
    });
  });

  it('gives every Task a timeout, and the approval wait and the waits after a Stop the configured one', () => {
    expect(tasks.length).toBeGreaterThan(20);
    for (const [name, task] of tasks) {
      expect(
        typeof task.TimeoutSeconds === 'number' && task.TimeoutSeconds > 0,
        `${name} has a timeout`,
      ).toBe(true);
    }
    const waits = tasks.filter(([, task]) => String(task.Resource).endsWith('.waitForTaskToken'));
    expect(waits.map(([name, task]) => [name, task.TimeoutSeconds]).sort()).toEqual([
      ['Wait after conclusion stopped', 900],
      ['Wait after hypotheses stopped', 900],
      ['Wait after remediation stopped', 900],
      ['Wait after triage stopped', 900],
      ['Wait for step approval', 900],
    ]);
  });

  it('gives every Task a Retry limited to named errors and a Catch to a defined state', () => {
    for (const [name, task] of tasks) {
      const retry = (task.Retry as { ErrorEquals: string[] }[] | undefined) ?? [];
      expect(retry.length, `${name} has a Retry`).toBeGreaterThan(0);
      expect(
        retry.flatMap((r) => r.ErrorEquals),
        `${name} retries named errors only`,
      ).not.toContain('States.ALL');
      const catches = (task.Catch as { ErrorEquals: string[]; Next: string }[] | undefined) ?? [];
      expect(catches.length, `${name} has a Catch`).toBeGreaterThan(0);
      for (const c of catches)
        expect(
          states.some(([n]) => n === c.Next),
          `${name} catches into ${c.Next}`,
        ).toBe(true);
    }
  });

  it('uses JSONPath only: no Assign, no JSONata', () => {
    expect(incident.QueryLanguage ?? 'JSONPath').toBe('JSONPath');
    expect(allKeys(incident)).not.toContain('Assign');
    expect(JSON.stringify(incident)).not.toContain('JSONata');
  });

  it('ends the rounds into the conclusion, a stop into the close, and a round into the next plan', () => {
    const choice = state(S.moreRounds) as unknown as {
      Choices: { StringEquals: string; Next: string }[];
      Default: string;
    };
    expect(choice.Choices.map((c) => [c.StringEquals, c.Next])).toEqual([
      ['investigate', S.markInvestigating],
      ['closed', S.acknowledgeClose],
    ]);
    expect(choice.Default).toBe(S.showFinalTree);
    expect(state(S.showRound).Next).toBe(S.planRound);
    expect(state(S.advanceTurn).Next).toBe(S.mergeRound);
  });

  it('records a step run that failed after its retries as failed, then shows the plan, never silently', () => {
    const catches = state(S.runStep).Catch as { ErrorEquals: string[]; Next: string; ResultPath: string }[];
    expect(catches).toEqual([{ ErrorEquals: ['States.ALL'], Next: S.stepError, ResultPath: '$.failure' }]);
    const record = state(S.stepError) as unknown as {
      Type: string;
      Parameters: Record<string, string>;
      Next: string;
    };
    expect(record.Type).toBe('Task');
    // payloadResponseOnly: the Parameters are the Lambda's payload.
    expect(record.Parameters).toMatchObject({
      op: 'fail_step',
      'error.$': '$.failure.Error',
      'cause.$': '$.failure.Cause',
    });
    expect(state(record.Next).Parameters).toMatchObject({ phase: 'remediation' });
  });
});

function roleStatements(from: Template, roleArn: unknown) {
  const roleId = (roleArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  return Object.values(resourcesOfType(from, 'AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === roleId))
    .flatMap((policy) =>
      (
        policy.Properties.PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown }[] }
      ).Statement.flatMap((statement) =>
        [statement.Resource].flat().map((resource) => ({
          actions: [statement.Action].flat(),
          resource: renderIntrinsics(resource),
        })),
      ),
    );
}

describe('the incident investigation module', () => {
  it('registers /investigate and the configured services alarms and PagerDuty services', () => {
    const registrations = JSON.parse(registrationsText(template)) as {
      workflow: string;
      triggers: unknown[];
    }[];
    expect(registrations.find((r) => r.workflow === 'incident_investigation')?.triggers).toEqual([
      expect.objectContaining({ type: 'slash_command', command: '/investigate' }),
      { type: 'alert', source: 'cloudwatch', names: ['checkout-p99'] },
      { type: 'alert', source: 'pagerduty', names: ['PCHECKOUT'] },
    ]);
  });

  it('fails the synth when a service names an alarm the alarm rule does not route', () => {
    expect(() =>
      templateOf({
        config: { incidentInvestigation: { services: [{ name: 'checkout', alarmPrefixes: ['checkout-'] }] } },
      }),
    ).toThrow(
      /slackAgents\.incidentInvestigation\.services\.0: checkout's alarms checkout-\* never reach the ingress: add them to alarms\.names or alarms\.namePrefixes/,
    );
  });

  it('lets the skill runner invoke exactly the configured Lambda skill and start the SSM document', () => {
    const [, remediation] = functionResource(template, 'IncidentRemediation');
    const statements = roleStatements(template, remediation.Properties.Role);
    expect(statements).toEqual(
      expect.arrayContaining([
        {
          actions: ['lambda:InvokeFunction'],
          resource: expect.stringMatching(/:lambda:.*:function:ops-restart$/),
        },
        {
          actions: ['ssm:StartAutomationExecution'],
          resource: expect.stringMatching(/:ssm:.*:automation-definition\/Ops-Scale:\*$/),
        },
        {
          actions: ['ssm:GetAutomationExecution'],
          resource: expect.stringMatching(/:automation-execution\/\*$/),
        },
      ]),
    );
    // Without a demo skill configured, the demo skill function is not deployed.
    expect(() => functionResource(template, 'IncidentDemoSkill')).toThrow();
  });
});
