import { describe, expect, it } from 'vitest';
import {
  APPROVAL_ACTION_ID,
  type ApprovalNotices,
  type ApprovalStore,
  approvalBlock,
  approvalButtonValue,
  type DecisionRecord,
  isApprovalAction,
  judgePress,
  type OpenApproval,
  parseApprovalButton,
} from '../../lambdas/kernel/approvals.ts';
import type { Conversation } from '../../lambdas/kernel/model.ts';
import { People, PeopleDirectory } from '../../lambdas/kernel/people.ts';
import type { ConversationStore, ThreadLink } from '../../lambdas/kernel/ports.ts';
import { routeApprovalPress } from '../../lambdas/kernel/route-approval.ts';
import { routerDeps } from '../support/router-deps.ts';

const clock = { now: () => new Date('2015-11-23T10:00:00.000Z') };
const people = new PeopleDirectory(
  People.parse({ on_call: { groups: ['S_ONCALL'] }, developer: { users: ['U_DEV'] } }),
  { members: async (group) => (group === 'S_ONCALL' ? ['U_ONCALL'] : []) },
  clock,
);
const rules = { acknowledge_escalation: ['on_call'] };
const NONCE = 'a1b2c3d4e5f60718';

const approval = (overrides: Partial<OpenApproval> = {}): OpenApproval => ({
  nonce: NONCE,
  kind: 'acknowledge_escalation',
  choices: ['acknowledge'],
  channel: 'C_DEVELOPERS',
  messageTs: '1700000000.000100',
  text: 'Bug escalation',
  openedAt: '2015-11-23T09:00:00.000Z',
  ...overrides,
});
const value = (nonce = NONCE) => ({ nonce, kind: 'acknowledge_escalation', decision: 'acknowledge' });
const deps = { approvals: rules, people, clock };

describe('approval buttons', () => {
  it('carry the nonce, kind and decision in their value, and read back only what they wrote', () => {
    const written = approvalButtonValue(value());

    expect(parseApprovalButton(written)).toEqual(value());
    expect(parseApprovalButton('yes')).toBeUndefined();
    expect(parseApprovalButton('{"nonce":"short","kind":"x","decision":"y"}')).toBeUndefined();
    expect(parseApprovalButton(undefined)).toBeUndefined();
  });

  it('render one button per decision with action ids the Router knows', () => {
    const block = approvalBlock(
      {
        kind: 'approve_fix',
        buttons: [
          { decision: 'approve', label: 'Approve', style: 'primary' },
          { decision: 'reject', label: 'Reject' },
        ],
      },
      NONCE,
    ) as { elements: { action_id: string; value: string }[] };

    expect(block.elements.map((e) => e.action_id)).toEqual([APPROVAL_ACTION_ID, `${APPROVAL_ACTION_ID}:1`]);
    expect(block.elements.every((e) => isApprovalAction(e.action_id))).toBe(true);
    expect(parseApprovalButton(block.elements[1]?.value)?.decision).toBe('reject');
    expect(isApprovalAction('confirm')).toBe(false);
  });
});

describe('judging a press', () => {
  it('decides for a holder of an allowed role (through a user group) pressing the open approval', async () => {
    const verdict = await judgePress(
      { user: 'U_ONCALL', ts: '1700000100.000001', messageTs: '1700000000.000100', value: value() },
      { acknowledge_escalation: approval() },
      deps,
    );

    expect(verdict).toEqual({
      type: 'decide',
      approval: approval(),
      record: {
        kind: 'acknowledge_escalation',
        decision: 'acknowledge',
        by: 'U_ONCALL',
        at: '2015-11-23T10:00:00.000Z',
        nonce: NONCE,
        pressTs: '1700000100.000001',
        messageTs: '1700000000.000100',
      },
    });
  });

  it('refuses someone without the role, naming who may decide', async () => {
    for (const user of ['U_THIRD', 'U_DEV']) {
      const verdict = await judgePress(
        { user, ts: '1.1', messageTs: '1700000000.000100', value: value() },
        { acknowledge_escalation: approval() },
        deps,
      );
      expect(verdict).toMatchObject({ type: 'refuse', reason: 'unauthorized' });
      expect(verdict.type === 'refuse' && verdict.explanation).toContain('on_call');
    }
  });

  it('refuses a button of an earlier approval, and one with no approval open', async () => {
    const earlier = await judgePress(
      { user: 'U_ONCALL', ts: '1.1', messageTs: '1700000000.000100', value: value('0000000000000000') },
      { acknowledge_escalation: approval() },
      deps,
    );
    const none = await judgePress(
      { user: 'U_ONCALL', ts: '1.1', messageTs: '1.0', value: value() },
      {},
      deps,
    );

    expect(earlier).toMatchObject({ type: 'refuse', reason: 'stale' });
    expect(none).toMatchObject({ type: 'refuse', reason: 'stale' });
  });

  it('refuses a press after the decision, saying who decided and when', async () => {
    const decided: DecisionRecord = {
      kind: 'acknowledge_escalation',
      decision: 'acknowledge',
      by: 'U_ONCALL',
      at: '2015-11-23T09:30:00.000Z',
      nonce: NONCE,
      pressTs: '1.1',
      messageTs: '1700000000.000100',
    };
    const verdict = await judgePress(
      { user: 'U_ONCALL', ts: '1.2', messageTs: '1700000000.000100', value: value() },
      { acknowledge_escalation: approval({ decided }) },
      deps,
    );

    expect(verdict).toMatchObject({ type: 'refuse', reason: 'already_decided' });
    expect(verdict.type === 'refuse' && verdict.explanation).toBe(
      'This was already decided: Acknowledged by <@U_ONCALL> at <!date^1448271000^{date_short_pretty} {time}|2015-11-23 09:30 UTC>.',
    );
  });
});

/** The Router's side, with an in-memory conversation whose approvals the store decides once. */
function routerWorld() {
  const conversation: Conversation = {
    id: 'conv-1',
    workflow: 'bug_investigation',
    status: 'pending_verification',
    phase: 'awaiting_dev',
    ownerId: 'U_REPORTER',
    participants: {},
    anchors: {},
    closeOnIntent: true,
    closeRequested: false,
    approvals: { acknowledge_escalation: approval() },
    createdAt: 'x',
    updatedAt: 'x',
  };
  const notices: { decided: DecisionRecord[]; refused: { user: string; text: string }[] } = {
    decided: [],
    refused: [],
  };
  const unused = async (): Promise<never> => {
    throw new Error('not used by presses of an approval nobody waits on');
  };
  const approvalStore: ApprovalStore = {
    openApproval: unused,
    placeApproval: unused,
    parkWait: unused,
    markWoken: unused,
    expire: unused,
    async decide(_id, record) {
      const open = conversation.approvals?.[record.kind];
      if (open?.nonce !== record.nonce || open.decided !== undefined) return { type: 'lost' };
      open.decided = record;
      conversation.decisions = [...(conversation.decisions ?? []), record];
      return { type: 'decided', approval: structuredClone(open) };
    },
  };
  const slack: ApprovalNotices = {
    async decided(_conversationId, _approval, record) {
      notices.decided.push(record);
    },
    async refused(_channel, user, text) {
      notices.refused.push({ user, text });
    },
    expired: unused,
  };
  const store = {
    getConversation: async () => structuredClone(conversation),
  } as unknown as ConversationStore;
  const link: ThreadLink = {
    conversationId: 'conv-1',
    ownerId: 'U_REPORTER',
    anchor: {
      name: 'escalation',
      channel: 'C_DEVELOPERS',
      threadTs: '1700000000.000100',
      ownerRole: null,
      othersRole: 'developer',
    },
  };
  const deps = routerDeps({
    store,
    executions: {
      start: async () => ({ status: 'started' as const, executionArn: 'x' }),
      wake: async () => 'woken' as const,
    },
    clock,
    workflows: [],
    botUserId: 'U_BOT',
    people,
    approvals: async () => ({
      rules,
      store: approvalStore,
      notices: slack,
      tasks: { complete: unused },
    }),
  });
  const press = (user: string, ts: string, nonce = NONCE) =>
    routeApprovalPress(
      {
        kind: 'action',
        eventId: `trigger-${ts}`,
        channel: 'C_DEVELOPERS',
        user,
        receivedAt: 'x',
        actionId: APPROVAL_ACTION_ID,
        value: approvalButtonValue(value(nonce)),
        messageTs: '1700000000.000100',
        ts,
      },
      link,
      deps,
    );
  return { conversation, notices, press };
}

describe('the Router taking a press', () => {
  it('stores one decision, and tells Slack again (idempotently) when the press is redelivered', async () => {
    const world = routerWorld();

    expect(await world.press('U_ONCALL', '1700000200.000001')).toMatchObject({
      type: 'approval',
      outcome: 'decided',
    });
    expect(await world.press('U_ONCALL', '1700000200.000001')).toMatchObject({
      type: 'approval',
      outcome: 'decided',
    });

    expect(world.conversation.decisions).toHaveLength(1);
    expect(world.notices.decided).toHaveLength(2);
    expect(world.notices.decided[1]).toEqual(world.notices.decided[0]);
    expect(world.notices.refused).toEqual([]);
  });

  it('changes nothing for an unauthorized, a second or a stale press, and tells each presser', async () => {
    const world = routerWorld();

    expect(await world.press('U_THIRD', '1.1')).toMatchObject({ outcome: 'refused', detail: 'unauthorized' });
    expect(world.conversation.decisions).toBeUndefined();
    await world.press('U_ONCALL', '1.2');
    expect(await world.press('U_ONCALL', '1.3')).toMatchObject({
      outcome: 'refused',
      detail: 'already_decided',
    });
    expect(await world.press('U_ONCALL', '1.4', 'ffffffffffffffff')).toMatchObject({
      outcome: 'refused',
      detail: 'stale',
    });

    expect(world.conversation.decisions).toHaveLength(1);
    expect(world.notices.refused.map((r) => r.user)).toEqual(['U_THIRD', 'U_ONCALL', 'U_ONCALL']);
    expect(world.notices.refused[0]?.text).toContain('Only on_call may decide acknowledge_escalation');
  });
});
