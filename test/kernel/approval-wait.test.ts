import { TaskTimedOut } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoApprovalStore } from '../../lambdas/adapters/dynamo-approvals.ts';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { SfnExecutions } from '../../lambdas/adapters/sfn-executions.ts';
import {
  type ApprovalWaitResult,
  expireApprovalWait,
  parkApprovalWait,
  type TaskCompleter,
} from '../../lambdas/kernel/approval-wait.ts';
import {
  APPROVAL_ACTION_ID,
  type ApprovalNotices,
  approvalButtonValue,
  type DecisionRecord,
  type OpenApproval,
  type PlacedApproval,
} from '../../lambdas/kernel/approvals.ts';
import { ApprovalNotOpenError } from '../../lambdas/kernel/errors.ts';
import { People, PeopleDirectory } from '../../lambdas/kernel/people.ts';
import type { ThreadLink } from '../../lambdas/kernel/ports.ts';
import { routeApprovalPress } from '../../lambdas/kernel/route-approval.ts';
import { SlackApiError } from '../../lambdas/slack/errors.ts';
import { bugConversation } from '../support/conversations.ts';
import { startDynalite } from '../support/dynalite.ts';
import { routerDeps } from '../support/router-deps.ts';

/**
 * The approval wait's protocol (statemachines/approval-wait.ts) on the real approval store
 * (dynalite): the Router completing a parked wait on an authorized press, the park step
 * completing a decision that came first, and the expiry.
 */

let db: Awaited<ReturnType<typeof startDynalite>>;
let conversations: DynamoConversationStore;
let approvals: DynamoApprovalStore;
let count = 0;
const now = { value: new Date('2015-11-23T10:00:00.000Z') };
const clock = { now: () => now.value };
const KIND = 'approve_fix';
const CHANNEL = 'C_DEVELOPERS';
const MESSAGE_TS = '1700000000.000100';
const people = new PeopleDirectory(
  People.parse({ developer: { users: ['U_DEV', 'U_DEV2'] } }),
  { members: async () => [] },
  clock,
);

beforeAll(async () => {
  db = await startDynalite();
  conversations = new DynamoConversationStore({ client: db.client, tableName: db.tableName });
  approvals = new DynamoApprovalStore({ client: db.client, tableName: db.tableName, clock });
});
afterAll(async () => db?.close());

/** A conversation with an approval of KIND open (as SlackPost leaves it), and the world around it. */
async function world(options: { placed?: boolean } = {}) {
  count += 1;
  const id = `conv-approval-${count}`;
  const nonce = `nonce-${String(count).padStart(10, '0')}`;
  await conversations.createConversation(bugConversation(id));
  await approvals.openApproval(id, {
    nonce,
    kind: KIND,
    choices: ['approve', 'reject'],
    text: 'Open a pull request with this fix?',
    openedAt: clock.now().toISOString(),
  });
  if (options.placed ?? true)
    await approvals.placeApproval(
      id,
      { kind: KIND, nonce },
      { channel: CHANNEL, messageTs: MESSAGE_TS, threadTs: MESSAGE_TS },
    );

  const completed: { token: string; output: unknown }[] = [];
  const tasks: TaskCompleter & { failNext: boolean; ended: boolean } = {
    failNext: false,
    ended: false,
    async complete(token, output) {
      if (this.failNext) {
        this.failNext = false;
        throw new Error('Step Functions unreachable');
      }
      completed.push({ token, output });
      return this.ended ? 'already_ended' : 'completed';
    },
  };
  const seen = {
    decided: [] as { record: DecisionRecord; ts: string }[],
    refused: [] as { user: string; text: string }[],
    expired: [] as { approval: PlacedApproval; at: string }[],
  };
  const notices: ApprovalNotices & { refuseUpdates: boolean } = {
    refuseUpdates: false,
    async decided(_conversationId, approval, record) {
      seen.decided.push({ record, ts: approval.messageTs });
    },
    async refused(_channel, user, text) {
      seen.refused.push({ user, text });
    },
    async expired(approval, at) {
      if (this.refuseUpdates) throw new SlackApiError('chat.update', 'message_not_found');
      seen.expired.push({ approval, at });
    },
  };
  const warnings: string[] = [];
  const warn = (message: string) => {
    warnings.push(message);
  };
  const link: ThreadLink = {
    conversationId: id,
    ownerId: 'U_REPORTER',
    anchor: {
      name: 'summary',
      channel: CHANNEL,
      threadTs: MESSAGE_TS,
      ownerRole: null,
      othersRole: 'developer',
    },
  };
  const press = (user: string, ts: string, decision = 'approve', pressNonce = nonce) =>
    routeApprovalPress(
      {
        kind: 'action',
        eventId: `action-${ts}`,
        channel: CHANNEL,
        user,
        receivedAt: clock.now().toISOString(),
        actionId: APPROVAL_ACTION_ID,
        value: approvalButtonValue({ nonce: pressNonce, kind: KIND, decision }),
        messageTs: MESSAGE_TS,
        ts,
      },
      link,
      routerDeps({
        store: conversations,
        executions: {
          start: async () => ({ status: 'started' as const, executionArn: 'x' }),
          wake: async () => 'woken' as const,
        },
        clock,
        workflows: [],
        botUserId: 'U_BOT',
        people,
        approvals: async () => ({ rules: { [KIND]: ['developer'] }, store: approvals, notices, tasks }),
      }),
    );
  const park = (token: string) =>
    parkApprovalWait(
      { step: 'park', conversationId: id, kind: KIND, nonce, taskToken: token },
      { store: approvals, tasks, warn },
    );
  const expire = () =>
    expireApprovalWait(
      { step: 'expire', conversationId: id, kind: KIND, nonce },
      { store: approvals, notices, clock, warn },
    );
  const stored = async (): Promise<OpenApproval | undefined> =>
    (await conversations.getConversation(id, { consistent: true }))?.approvals?.[KIND];
  const decisions = async () =>
    (await conversations.getConversation(id, { consistent: true }))?.decisions ?? [];
  return { id, nonce, tasks, completed, seen, notices, warnings, press, park, expire, stored, decisions };
}

const decided = (by: string, decision = 'approve'): ApprovalWaitResult => ({
  outcome: 'decided',
  kind: KIND,
  decision,
  by,
  at: clock.now().toISOString(),
});

describe('the Router completing an approval wait', () => {
  it('completes the parked wait once with the decision; a redelivered press sends nothing more', async () => {
    const w = await world();
    expect(await w.park('token-1')).toEqual({ type: 'parked' });

    const first = await w.press('U_DEV', '1700000200.000001');
    const again = await w.press('U_DEV', '1700000200.000001');

    expect(first).toMatchObject({ outcome: 'decided', wait: 'completed' });
    expect(again).toMatchObject({ outcome: 'decided', detail: 'redelivered press', wait: 'none' });
    expect(w.completed).toEqual([{ token: 'token-1', output: decided('U_DEV') }]);
    expect(await w.decisions()).toHaveLength(1);
    // Told twice: the notices are idempotent (the thread line goes through the post ledger).
    expect(w.seen.decided.map((d) => d.record)).toEqual([
      w.seen.decided[0]?.record,
      w.seen.decided[0]?.record,
    ]);
  });

  it('completes the wait on the redelivery when the first delivery failed before completing it', async () => {
    const w = await world();
    await w.park('token-1');
    w.tasks.failNext = true;

    await expect(w.press('U_DEV', '1700000200.000001', 'reject')).rejects.toThrow('unreachable');
    const redelivered = await w.press('U_DEV', '1700000200.000001', 'reject');

    expect(redelivered).toMatchObject({ outcome: 'decided', wait: 'completed' });
    expect(w.completed).toEqual([{ token: 'token-1', output: decided('U_DEV', 'reject') }]);
    expect(await w.decisions()).toHaveLength(1);
  });

  it('takes a wait already over as a logged ignore: the decision stays recorded', async () => {
    const w = await world();
    await w.park('token-1');
    w.tasks.ended = true;

    expect(await w.press('U_DEV', '1700000200.000001')).toMatchObject({
      outcome: 'decided',
      wait: 'already_ended',
    });
    expect((await w.stored())?.decided?.by).toBe('U_DEV');
    expect((await w.stored())?.woken).toBe(true);
  });

  it('changes nothing for unauthorized, stale and second presses, and tells each presser', async () => {
    const w = await world();
    await w.park('token-1');

    expect(await w.press('U_THIRD', '1.1')).toMatchObject({ outcome: 'refused', detail: 'unauthorized' });
    expect(await w.press('U_DEV', '1.2', 'approve', 'nonce-of-an-earlier-one')).toMatchObject({
      outcome: 'refused',
      detail: 'stale',
    });
    expect(w.completed).toEqual([]);
    expect(await w.decisions()).toEqual([]);

    await w.press('U_DEV', '1.3');
    expect(await w.press('U_DEV2', '1.4', 'reject')).toMatchObject({
      outcome: 'refused',
      detail: 'already_decided',
    });

    expect(w.completed).toHaveLength(1);
    expect(await w.decisions()).toHaveLength(1);
    expect(w.seen.refused.map((r) => r.user)).toEqual(['U_THIRD', 'U_DEV', 'U_DEV2']);
    expect(w.seen.refused[2]?.text).toContain('already decided: Approved by <@U_DEV> at <!date^');
  });

  it('takes a press right after the post, before its message is noted, for the approval open now', async () => {
    const w = await world({ placed: false });

    expect(await w.press('U_DEV', '1.1')).toMatchObject({ outcome: 'decided', wait: 'none' });

    expect(w.seen.decided[0]?.ts).toBe(MESSAGE_TS);
    expect((await w.decisions())[0]?.messageTs).toBe(MESSAGE_TS);
  });
});

describe('parking the wait', () => {
  it('completes the wait itself when a press decided between the post and the park', async () => {
    const w = await world();
    await w.press('U_DEV', '1.1');

    expect(await w.park('token-late')).toEqual({ type: 'decided_before', completed: true });
    expect(w.completed).toEqual([{ token: 'token-late', output: decided('U_DEV') }]);
    // Noted: a redelivery of that press completes nothing again.
    expect(await w.press('U_DEV', '1.1')).toMatchObject({ wait: 'none' });
    expect(w.completed).toHaveLength(1);
  });

  it("a retried park's token replaces the first one, and the press completes the retry's", async () => {
    const w = await world();
    await w.park('token-attempt-1');
    await w.park('token-attempt-2');

    await w.press('U_DEV', '1.1');

    expect(w.completed.map((c) => c.token)).toEqual(['token-attempt-2']);
  });

  it('fails clearly when a later approval of its kind replaced the one it waits on', async () => {
    const w = await world();
    await approvals.openApproval(w.id, {
      nonce: 'nonce-a-later-approval',
      kind: KIND,
      choices: ['approve'],
      text: 'later',
      openedAt: clock.now().toISOString(),
    });

    await expect(w.park('token-1')).rejects.toBeInstanceOf(ApprovalNotOpenError);
  });
});

describe('the wait running out', () => {
  it('marks the approval expired, says so in its message, and refuses later presses', async () => {
    const w = await world();
    await w.park('token-1');

    const result = await w.expire();
    now.value = new Date(now.value.getTime() + 60_000);
    const retried = await w.expire();
    const late = await w.press('U_DEV', '1.9');

    expect(result).toEqual({ outcome: 'expired', kind: KIND, at: '2015-11-23T10:00:00.000Z' });
    expect(retried).toEqual(result);
    expect(w.seen.expired.map((e) => [e.approval.messageTs, e.at])).toEqual([
      [MESSAGE_TS, result.at],
      [MESSAGE_TS, result.at],
    ]);
    expect(late).toMatchObject({ outcome: 'refused', detail: 'expired' });
    expect(w.seen.refused[0]?.text).toContain('expired');
    expect(await w.decisions()).toEqual([]);
    expect(w.completed).toEqual([]);
  });

  it('returns the decision of a press that came just before the timeout, and leaves its message', async () => {
    const w = await world();
    await w.park('token-1');
    w.tasks.ended = true;
    await w.press('U_DEV', '1.1', 'reject');

    expect(await w.expire()).toEqual({ ...decided('U_DEV', 'reject'), at: (await w.decisions())[0]?.at });
    expect(w.seen.expired).toEqual([]);
  });

  it('still expires when Slack refuses to update the message, with a warning', async () => {
    const w = await world();
    await w.park('token-1');
    w.notices.refuseUpdates = true;

    expect(await w.expire()).toMatchObject({ outcome: 'expired' });
    expect(w.warnings).toEqual(['could not mark the expired approval in its message']);
    expect((await w.stored())?.expiredAt).toBeDefined();
  });
});

describe('completing a task through Step Functions', () => {
  it('reads a task that already timed out as already ended', async () => {
    const client = {
      send: async () => {
        throw new TaskTimedOut({ message: 'Task Timed Out', $metadata: {} });
      },
    };
    const executions = new SfnExecutions(client as never);

    expect(await executions.complete('token', { outcome: 'expired' })).toBe('already_ended');
  });
});
