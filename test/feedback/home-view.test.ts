import { describe, expect, it } from 'vitest';
import { readableStatus } from '../../console/src/readable.ts';
import { parseHomeApprovalBlockId } from '../../lambdas/home/approval-block-id.ts';
import { buildHomeView, type HomeApproval, MAX_HOME_CONVERSATIONS } from '../../lambdas/home/home-view.ts';
import { publishHome } from '../../lambdas/home/publish-home.ts';
import { APPROVAL_ACTION_ID, parseApprovalButton } from '../../lambdas/kernel/approvals.ts';
import type { Conversation } from '../../lambdas/kernel/model.ts';
import { PeopleDirectory } from '../../lambdas/kernel/people.ts';

/** The App Home tab: what a person sees, and who sees what. */

type Block = {
  type: string;
  block_id?: string;
  text?: { text: string };
  elements?: Record<string, unknown>[];
};
const textOf = (blocks: readonly Block[]) => blocks.map((b) => b.text?.text ?? '').join('\n');

const approval: HomeApproval = {
  conversationId: 'bug_investigation-C1-1',
  workflow: 'bug_investigation',
  kind: 'acknowledge_escalation',
  text: '<!subteam^S_ONCALL> Escalation: invoices are emailed &lt;twice&gt;',
  choices: ['acknowledge'],
  nonce: 'nonce-12345678',
  channel: 'C_DEV',
  messageTs: '1735689700.000300',
  threadTs: '1735689700.000300',
  link: 'https://acme.slack.com/archives/C_DEV/p1735689700000300',
  openedAt: '2025-01-01T00:00:00.000Z',
};

describe('the Home view', () => {
  it("shows the approval with the approval message's buttons, placed so a press finds its message", () => {
    const view = buildHomeView({ user: 'U_DEV', conversations: [], approvals: [approval], commands: [] });
    expect(view.type).toBe('home');
    const blocks = view.blocks as Block[];
    const actions = blocks.find((b) => b.type === 'actions');
    expect(parseHomeApprovalBlockId(actions?.block_id)).toEqual({
      channel: 'C_DEV',
      messageTs: '1735689700.000300',
      threadTs: '1735689700.000300',
    });
    const button = actions?.elements?.[0] as { action_id: string; value: string; text: { text: string } };
    expect(button.action_id).toBe(APPROVAL_ACTION_ID);
    expect(parseApprovalButton(button.value)).toEqual({
      nonce: 'nonce-12345678',
      kind: 'acknowledge_escalation',
      decision: 'acknowledge',
    });
    expect(button.text.text).toBe('Acknowledge');
    // The approval message's own mrkdwn, as posted (its mention of on call renders as one).
    expect(textOf(blocks)).toContain('<!subteam^S_ONCALL> Escalation: invoices are emailed &lt;twice&gt;');
  });

  it('lists the open conversations with state and link, says when there are more, and gives help', () => {
    const conversations = Array.from({ length: MAX_HOME_CONVERSATIONS + 2 }, (_, i) => ({
      id: `c${i}`,
      workflow: 'requirements_interview',
      status: 'active',
      phase: 'awaiting_requester',
      subject: `prd: idea ${i}`,
      link: `https://acme.slack.com/archives/C1/p${i}`,
      updatedAt: '2025-01-01T00:00:00.000Z',
    }));
    const view = buildHomeView({
      user: 'U_DEV',
      conversations,
      approvals: [],
      commands: [{ command: '/prd', usageHint: '<idea>', description: 'Start a requirements interview' }],
    });
    const text = textOf(view.blocks as Block[]);
    expect(text).toContain(`*Your open conversations* (${MAX_HOME_CONVERSATIONS + 2})`);
    expect(text).toContain('<https://acme.slack.com/archives/C1/p0|Requirements interview>: prd: idea 0');
    expect(text).toContain('_Waiting for the requester_');
    expect(text).not.toContain(`idea ${MAX_HOME_CONVERSATIONS}`);
    expect(text).toContain('More are open than shown here.');
    expect(text).toContain('No approval is waiting for you.');
    expect(text).toContain('`/prd &lt;idea&gt;`: Start a requirements interview');
    expect(text).not.toContain('Model cost today');
  });

  it('labels each state as the console does, never with the raw status or phase names', () => {
    const states = [
      ['pending_verification', 'awaiting_dev'],
      ['active', 'investigating'],
      ['active', 'attentive'],
      ['resolved', 'awaiting_dev'],
      ['active', 'awaiting_security_team'],
    ] as const;
    const view = buildHomeView({
      user: 'U_DEV',
      conversations: states.map(([status, phase], i) => ({
        id: `c${i}`,
        workflow: 'bug_investigation',
        status,
        phase,
        updatedAt: '2001-01-01T00:00:00.000Z',
      })),
      approvals: [],
      commands: [],
    });
    const text = textOf(view.blocks as Block[]);
    for (const [status, phase] of states) expect(text).toContain(`_${readableStatus(status, phase)}_`);
    expect(text).toContain('_Waiting for the developers_');
    expect(text).not.toMatch(/pending verification|awaiting|_dev\b|attentive/);
  });

  it("shows today's cost against the ceiling only when it is given (for admins)", () => {
    const view = buildHomeView({
      user: 'U_ONCALL',
      conversations: [],
      approvals: [],
      cost: { spentUsd: 12.5, ceilingUsd: 50 },
      commands: [],
    });
    expect(textOf(view.blocks as Block[])).toContain('$12.50 of the $50.00 daily ceiling (25%)');
  });
});

describe('publishing the Home', () => {
  const conversation = (overrides: Partial<Conversation>): Conversation => ({
    id: 'bug_investigation-C1-1',
    workflow: 'bug_investigation',
    status: 'awaiting_dev',
    phase: 'awaiting_dev',
    ownerId: 'U_REPORTER',
    participants: { U_REPORTER: 'reporter' },
    anchors: {},
    closeOnIntent: true,
    closeRequested: false,
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
    ...overrides,
  });

  async function publishFor(user: string, conversations: Conversation[]) {
    const published: { user: string; view: Record<string, unknown> }[] = [];
    const people = new PeopleDirectory(
      { developer: { users: ['U_DEV'], groups: [] }, on_call: { users: ['U_ONCALL'], groups: [] } },
      { members: async () => [] },
      { now: () => new Date('2025-01-01T12:00:00.000Z') },
    );
    await publishHome(
      { kind: 'surface', surface: 'home_opened', eventId: 'Ev1', user, receivedAt: '', ts: '1.2' },
      {
        source: {
          unfinished: async () => ({ conversations, truncated: false }),
          subject: async () => 'Invoices are emailed twice',
          spentOn: async (day) => (day === '2025-01-01' ? 3_000_000 : 0),
        },
        slack: {
          publish: async (u, view) => void published.push({ user: u, view }),
          permalink: async (channel, ts) =>
            `https://acme.slack.com/archives/${channel}/p${ts.replace('.', '')}`,
          suggestPrompts: async () => undefined,
        },
        approvals: { acknowledge_escalation: ['on_call'] },
        people,
        ceilingUsd: 10,
        commands: [],
        clock: { now: () => new Date('2025-01-01T12:00:00.000Z') },
      },
    );
    return { user: published[0]?.user, text: JSON.stringify(published[0]?.view) };
  }

  const waiting = conversation({
    approvals: {
      acknowledge_escalation: {
        nonce: 'nonce-12345678',
        kind: 'acknowledge_escalation',
        choices: ['acknowledge'],
        channel: 'C_DEV',
        messageTs: '1735689700.000300',
        text: 'Escalation: invoices',
        openedAt: '2025-01-01T00:00:00.000Z',
      },
    },
  });

  it('gives the approval to whoever may decide it, with the cost for on call, and not to others', async () => {
    const oncall = await publishFor('U_ONCALL', [waiting]);
    expect(oncall.user).toBe('U_ONCALL');
    expect(oncall.text).toContain('home_approval:C_DEV:1735689700.000300');
    expect(oncall.text).toContain('$3.00 of the $10.00 daily ceiling');

    const developer = await publishFor('U_DEV', [waiting]);
    expect(developer.text).not.toContain('home_approval:');
    expect(developer.text).not.toContain('Model cost today');
  });

  it("lists a person's own conversations, not others', and no decided approval", async () => {
    const mine = conversation({ id: 'mine', participants: { U_DEV: 'developer' } });
    const decided = conversation({
      id: 'decided',
      approvals: {
        acknowledge_escalation: {
          ...(waiting.approvals?.acknowledge_escalation as NonNullable<Conversation['approvals']>[string]),
          decided: {
            kind: 'acknowledge_escalation',
            decision: 'acknowledge',
            by: 'U_ONCALL',
            at: '2025-01-01T00:00:01.000Z',
            nonce: 'nonce-12345678',
            pressTs: '1.1',
            messageTs: '1735689700.000300',
          },
        },
      },
    });
    const developer = await publishFor('U_DEV', [mine, decided]);
    expect(developer.text).toContain('Your open conversations* (1)');
    const oncall = await publishFor('U_ONCALL', [decided]);
    expect(oncall.text).toContain('No approval is waiting for you.');
  });
});
