import { describe, expect, it } from 'vitest';
import { entityNamedBy } from '../../lambdas/kernel/command-entities.ts';
import type { InboxAlert, InboxSlashCommand } from '../../lambdas/kernel/inbox.ts';
import { People, PeopleDirectory } from '../../lambdas/kernel/people.ts';
import { routeEnvelope } from '../../lambdas/kernel/route.ts';
import type { WorkflowRegistration } from '../../lambdas/kernel/workflows.ts';
import { routerFixture } from '../support/router-fixture.ts';

/** `/investigate <incident>`: one execution per incident, whether a command or an alert began it. */

const INCIDENTS: WorkflowRegistration = {
  workflow: 'incident_investigation',
  stateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:Incidents',
  triggers: [
    {
      type: 'slash_command',
      command: '/investigate',
      names: {
        names: [
          { anchor: 'alarm_name', names: ['checkout-5xx'], prefixes: ['prod-'] },
          { anchor: 'alert', source: 'pagerduty' },
        ],
        anchored: false,
        once: false,
      },
    },
    { type: 'alert', source: 'cloudwatch', names: ['checkout-5xx'], namePrefixes: ['prod-'] },
    { type: 'alert', source: 'pagerduty', names: ['PF9KMXH'] },
  ],
  ownerRole: 'reporter',
  othersRole: 'participant',
  closeOnIntent: false,
};

const FIXES: WorkflowRegistration = {
  workflow: 'fixes',
  stateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:Fixes',
  triggers: [
    {
      type: 'slash_command',
      command: '/fix',
      names: {
        names: [{ anchor: 'github_issue', repository: 'acme/webshop' }],
        refusal: 'names no issue of acme/webshop',
        help: 'The issue is one of acme/webshop: its number (`42`, `#42`) or its URL.',
        anchored: true,
        once: true,
      },
    },
    { type: 'github_issue_labeled', repository: 'acme/webshop', label: 'agent' },
  ],
  ownerRole: 'requester',
  othersRole: 'participant',
  closeOnIntent: false,
};

const f = routerFixture([INCIDENTS, FIXES]);

let commands = 0;
function investigate(text: string): InboxSlashCommand {
  commands += 1;
  return {
    kind: 'slash_command',
    eventId: `trigger-${f.seq}-${commands}`,
    channel: 'C_OPS',
    user: 'U_RESPONDER',
    command: '/investigate',
    text,
    ts: `1763726400.${String(commands).padStart(6, '0')}`,
    receivedAt: '2015-11-21T12:00:00Z',
  };
}

function alarm(name: string): InboxAlert {
  return {
    kind: 'alert',
    eventId: `alert-${f.seq}`,
    receivedAt: '2015-11-21T12:00:00Z',
    source: 'cloudwatch',
    name,
    incidentKey: `arn:aws:cloudwatch:us-east-1:1:alarm:${name}@${f.seq}`,
    state: 'ALARM',
    opens: true,
    user: 'cloudwatch',
    title: `${name} is ALARM`,
    text: 'Threshold crossed',
    ts: `1763726300.${String(f.seq).padStart(6, '0')}`,
  };
}

/** The incident thread the workflow posts in, linked as its SlackPost would. */
async function postThread(conversationId: string, threadTs: string): Promise<void> {
  await f.store.linkThread({
    conversationId,
    ownerId: 'U_RESPONDER',
    anchor: {
      name: 'incident-thread',
      channel: 'C_INCIDENTS',
      threadTs,
      ownerRole: 'reporter',
      othersRole: 'participant',
    },
  });
}

describe('a start by command when the configuration defines the owner role', () => {
  it("is that role's members' alone: anyone else is told privately and nothing starts", async () => {
    const refused: { channel: string; user: string; text: string }[] = [];
    const deps = {
      ...f.deps(),
      people: new PeopleDirectory(
        People.parse({ reporter: { users: ['U_RESPONDER'] } }),
        { members: async () => [] },
        { now: () => new Date('2015-11-21T12:00:00Z') },
      ),
      stops: {
        said: async () => {},
        refused: async (channel: string, user: string, text: string) => {
          refused.push({ channel, user, text });
        },
      },
    };

    const outsider = await routeEnvelope({ ...investigate(`PO${f.seq}UT1`), user: 'U_OUTSIDER' }, deps);

    expect(outsider).toEqual({
      type: 'ignored',
      reason: '/investigate: U_OUTSIDER does not hold the reporter role',
    });
    expect(f.executions.starts).toEqual([]);
    expect(refused).toEqual([
      {
        channel: 'C_OPS',
        user: 'U_OUTSIDER',
        text: 'Only people with the reporter role can start this with /investigate, and you are not one of them, so nothing was started.',
      },
    ]);
    expect(await routeEnvelope(investigate(`PO${f.seq}UT1`), deps)).toMatchObject({ type: 'started' });
  });
});

describe('/investigate naming an incident', () => {
  it('answers a repeated /investigate <PagerDuty id> with the running thread and starts nothing more', async () => {
    const id = `PX${f.seq}Q7K`;
    const first = await routeEnvelope(investigate(id), f.deps());
    if (first.type !== 'started') throw new Error(`not started: ${JSON.stringify(first)}`);
    await postThread(first.conversationId, '1763726500.000100');

    const second = await routeEnvelope(investigate(`https://acme.pagerduty.com/incidents/${id}`), f.deps());

    expect(second).toMatchObject({ type: 'ignored', conversationId: first.conversationId });
    expect(f.executions.starts).toHaveLength(1);
    expect(f.notices).toEqual([
      {
        conversationId: first.conversationId,
        channel: 'C_OPS',
        ts: expect.any(String),
        text: `${id} is already running: https://slack.com/archives/C_INCIDENTS/p1763726500000100; it is not started twice.`,
      },
    ]);
  });

  it('answers /investigate <alarm name> while the investigation its alarm started runs', async () => {
    const started = await routeEnvelope(alarm(`prod-latency-${f.seq}`), f.deps());
    if (started.type !== 'started') throw new Error('the alarm started nothing');

    const command = await routeEnvelope(investigate(`prod-latency-${f.seq}`), f.deps());

    expect(command).toMatchObject({ type: 'ignored', conversationId: started.conversationId });
    expect(f.executions.starts).toHaveLength(1);
    expect(f.notices[0]?.text).toBe(`prod-latency-${f.seq} is already running; it is not started twice.`);
  });

  it('delivers the PagerDuty webhook of an incident /investigate started to that investigation', async () => {
    const id = `PD${f.seq}ZZ9`;
    const first = await routeEnvelope(investigate(id), f.deps());
    if (first.type !== 'started') throw new Error('not started');

    const paged = await routeEnvelope(
      {
        ...alarm('x'),
        source: 'pagerduty',
        name: 'Checkout API',
        serviceId: 'PF9KMXH',
        incidentKey: id,
        state: 'incident.triggered',
      },
      f.deps(),
    );

    expect(paged).toMatchObject({ type: 'stored', conversationId: first.conversationId });
    expect(f.executions.starts).toHaveLength(1);
  });

  it('starts a new investigation once the previous one for that incident has finished', async () => {
    const first = await routeEnvelope(investigate(`prod-db-${f.seq}`), f.deps());
    if (first.type !== 'started') throw new Error('not started');
    await f.setStatus(first.conversationId, 'resolved');

    const again = await routeEnvelope(investigate(`prod-db-${f.seq}`), f.deps());

    expect(again).toMatchObject({ type: 'started' });
    expect(f.executions.starts).toHaveLength(2);
    expect(f.notices).toEqual([]);
  });

  it('starts every free description, even twice: only a named incident is deduplicated', async () => {
    await routeEnvelope(investigate('checkout latency'), f.deps());
    await routeEnvelope(investigate('checkout latency'), f.deps());

    expect(f.executions.starts).toHaveLength(2);
  });

  it('tells an incident name from a description', () => {
    const command = INCIDENTS.triggers[0];
    const entity = command?.type === 'slash_command' ? command.names : undefined;
    if (entity === undefined) throw new Error('the incident command names incidents');
    const anchor = (text: string) => entityNamedBy(entity, text)?.anchor;
    expect(anchor('checkout-5xx')).toEqual({ kind: 'alarm_name', name: 'checkout-5xx' });
    expect(anchor('prod-db-cpu')).toEqual({ kind: 'alarm_name', name: 'prod-db-cpu' });
    expect(anchor(' PF9KMXH ')).toEqual({ kind: 'alert', source: 'pagerduty', incidentKey: 'PF9KMXH' });
    expect(anchor('https://acme.pagerduty.com/incidents/PF9KMXH')).toEqual({
      kind: 'alert',
      source: 'pagerduty',
      incidentKey: 'PF9KMXH',
    });
    expect(anchor('checkout')).toBeUndefined();
    expect(anchor('CHECKOUT')).toBeUndefined();
    expect(anchor('prod- is slow')).toBeUndefined();
  });
});

describe('/fix naming an issue', () => {
  const fix = (text: string): InboxSlashCommand => ({ ...investigate(text), command: '/fix' });
  const issue = () => 4000 + f.seq;

  it('starts the conversation on the issue itself, with the issue as its origin', async () => {
    const started = await routeEnvelope(
      fix(`https://github.example/acme/webshop/issues/${issue()}`),
      f.deps(),
    );

    expect(started).toMatchObject({ type: 'started', workflow: 'fixes' });
    expect(f.executions.starts[0]?.input).toMatchObject({
      channel: 'github:acme/webshop',
      threadTs: String(issue()),
      origin: { kind: 'github', repository: 'acme/webshop', number: issue() },
    });
  });

  it('answers a repeat while the issue runs, and after its run, and starts nothing more', async () => {
    const first = await routeEnvelope(fix(`#${issue()}`), f.deps());
    if (first.type !== 'started') throw new Error('not started');

    const again = await routeEnvelope(fix(String(issue())), f.deps());
    await f.setStatus(first.conversationId, 'resolved');
    const after = await routeEnvelope(fix(String(issue())), f.deps());

    expect([again, after]).toMatchObject([
      { type: 'ignored', conversationId: first.conversationId },
      { type: 'ignored', conversationId: first.conversationId },
    ]);
    expect(f.notices.map((n) => n.text)).toEqual([
      `acme/webshop#${issue()} is already running; it is not started twice.`,
      `acme/webshop#${issue()} already had its run (resolved); it is not started again.`,
    ]);
    expect(f.executions.starts).toHaveLength(1);
  });

  it('refuses a text that names no issue of its repository, and starts nothing', async () => {
    const outcome = await routeEnvelope(fix('https://github.example/other/repo/issues/7'), f.deps());

    expect(outcome).toMatchObject({
      type: 'ignored',
      reason: expect.stringContaining('unnamed'),
    });
    expect(f.executions.starts).toEqual([]);
  });
});
