import { describe, expect, it } from 'vitest';
import type { Conversation } from '../../lambdas/kernel/model.ts';
import type { ConversationStore, Executions, ThreadLink } from '../../lambdas/kernel/ports.ts';
import type { RouterDeps } from '../../lambdas/kernel/route-types.ts';
import { isStopText, routeStop, type StopNotices } from '../../lambdas/kernel/stop.ts';

const NOW = '2015-11-27T02:00:00.000Z';

function conversation(over: Partial<Conversation> = {}): Conversation {
  return {
    id: 'c1',
    workflow: 'bug_investigation',
    status: 'active',
    phase: 'investigating',
    ownerId: 'U_OWNER',
    participants: { U_OWNER: 'reporter', U_HELPER: 'reporter' },
    anchors: {},
    closeOnIntent: true,
    closeRequested: false,
    // A turn runs until a minute after now.
    runningTurns: ['4@2015-11-27T02:01:00.000Z'],
    createdAt: NOW,
    updatedAt: NOW,
    ...over,
  };
}

const link: ThreadLink = {
  conversationId: 'c1',
  ownerId: 'U_OWNER',
  anchor: { name: 'origin', channel: 'C1', threadTs: '1.000001', ownerRole: 'reporter', othersRole: null },
};

function setup(record: Conversation, developers: string[] = []) {
  const closes: string[] = [];
  const stops: string[] = [];
  const said: string[] = [];
  const refused: { user: string; text: string }[] = [];
  const store = {
    getConversation: async () => record,
    requestClose: async (id: string) => {
      closes.push(id);
      record.closeRequested = true;
    },
    requestStop: async (id: string) => {
      stops.push(id);
    },
    pendingMessages: async () => [],
  } as unknown as ConversationStore;
  const executions = { wake: async () => 'woken' } as unknown as Executions;
  const notices: StopNotices = {
    said: async (notice) => {
      said.push(notice.text);
    },
    refused: async (_channel, user, text) => {
      refused.push({ user, text });
    },
  };
  const people = {
    configures: (role: string) => role === 'developer',
    holds: async (user: string, role: string) => role === 'developer' && developers.includes(user),
  };
  const deps = {
    store,
    executions,
    clock: { now: () => new Date(NOW) },
    workflows: [],
    botUserId: 'U_BOT',
    stops: notices,
    people,
  } as unknown as RouterDeps;
  return { deps, closes, stops, said, refused };
}

describe('stop', () => {
  it('is `stop` alone, in any case, and nothing longer', () => {
    expect(isStopText('stop')).toBe(true);
    expect(isStopText('  STOP \n')).toBe(true);
    expect(isStopText('please stop the build')).toBe(false);
    expect(isStopText('stopped')).toBe(false);
  });

  it('from someone in the conversation while a turn runs: stops the turn, closes nothing, says who stopped it', async () => {
    const { deps, closes, stops, said, refused } = setup(conversation());
    const outcome = await routeStop(link, { user: 'U_HELPER', channel: 'C1', ts: '2.000001' }, deps);
    expect(stops).toEqual(['c1']);
    expect(closes).toEqual([]);
    expect(said).toEqual([
      ':octagonal_sign: Stopped by <@U_HELPER>: the work running now ends without an answer.',
    ]);
    expect(refused).toEqual([]);
    expect(outcome).toMatchObject({
      conversationId: 'c1',
      reason: expect.stringContaining('stopped by U_HELPER'),
    });
  });

  it('on an old timeline while nothing runs (the conversation waits): says so privately, changes nothing', async () => {
    const waiting = conversation({
      status: 'pending_verification',
      phase: 'awaiting_dev',
      wait: { waitId: 'w1', taskToken: 'token', accepts: 'any', since: NOW },
    });
    const { deps, closes, stops, said, refused } = setup(waiting);
    await routeStop(link, { user: 'U_OWNER', channel: 'C1', ts: '2.000007', value: 'c1' }, deps);
    expect(stops).toEqual([]);
    expect(closes).toEqual([]);
    expect(said).toEqual([]);
    expect(waiting.status).toBe('pending_verification');
    expect(refused).toEqual([
      {
        user: 'U_OWNER',
        text: 'Nothing is running in this conversation now, so there is nothing to stop. It goes on when someone writes in the thread.',
      },
    ]);
  });

  it('from a configured developer who has not written yet: taken', async () => {
    const { deps, stops } = setup(conversation(), ['U_DEV']);
    await routeStop(link, { user: 'U_DEV', channel: 'C1', ts: '2.000002' }, deps);
    expect(stops).toEqual(['c1']);
  });

  it('from someone outside the conversation: refused privately, nothing changed', async () => {
    const { deps, closes, stops, said, refused } = setup(conversation());
    await routeStop(link, { user: 'U_STRANGER', channel: 'C1', ts: '2.000003' }, deps);
    expect(closes).toEqual([]);
    expect(stops).toEqual([]);
    expect(said).toEqual([]);
    expect(refused).toEqual([
      {
        user: 'U_STRANGER',
        text: 'Only the people in this conversation (who started it, who took part, or a developer) can stop it.',
      },
    ]);
  });

  it('on a button naming another conversation: ignored, nothing changed', async () => {
    const { deps, closes, said } = setup(conversation());
    const outcome = await routeStop(
      link,
      { user: 'U_OWNER', channel: 'C1', ts: '2.000004', value: 'c2' },
      deps,
    );
    expect(closes).toEqual([]);
    expect(said).toEqual([]);
    expect(outcome.type).toBe('ignored');
  });

  it('after the end: refused privately, nothing changed', async () => {
    const { deps, closes, refused } = setup(conversation({ status: 'resolved' }));
    await routeStop(link, { user: 'U_OWNER', channel: 'C1', ts: '2.000005', value: 'c1' }, deps);
    expect(closes).toEqual([]);
    expect(refused[0]?.text).toContain('already ended (resolved)');
  });

  it('of a workflow that does not close on request (the issue pipeline), while its turn runs: stops the turn, closes nothing', async () => {
    const { deps, closes, stops, said } = setup(conversation({ closeOnIntent: false }));
    await routeStop(link, { user: 'U_OWNER', channel: 'C1', ts: '2.000006' }, deps);
    expect(stops).toEqual(['c1']);
    expect(closes).toEqual([]);
    expect(said[0]).toContain('Stopped by <@U_OWNER>');
  });

  it('between two turns (no wait open, no turn running): says so privately, never "Stopped by"', async () => {
    const between = conversation({ runningTurns: [] });
    const { deps, stops, said, refused } = setup(between);
    await routeStop(link, { user: 'U_OWNER', channel: 'C1', ts: '2.000008', value: 'c1' }, deps);
    expect(stops).toEqual([]);
    expect(said).toEqual([]);
    expect(refused).toEqual([
      {
        user: 'U_OWNER',
        text: 'No agent is working in this conversation right now, so there is nothing to stop.',
      },
    ]);
  });

  it('after a turn whose function died (its entry past its deadline): nothing runs, so nothing is stopped', async () => {
    const { deps, stops, refused } = setup(conversation({ runningTurns: ['3@2015-11-27T01:59:59.000Z'] }));
    await routeStop(link, { user: 'U_OWNER', channel: 'C1', ts: '2.000009' }, deps);
    expect(stops).toEqual([]);
    expect(refused).toHaveLength(1);
  });
});
