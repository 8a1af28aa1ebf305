import { describe, expect, it } from 'vitest';
import type { InboxEnvelope, InboxMessage } from '../../lambdas/kernel/inbox.ts';
import type { ConversationStore, Executions } from '../../lambdas/kernel/ports.ts';
import { type RouterAddition, routeEnvelope } from '../../lambdas/kernel/route.ts';
import type { RouterDeps } from '../../lambdas/kernel/route-types.ts';
import { routerDeps } from '../support/router-deps.ts';

/**
 * What the Router leaves unrouted goes to the additions of the envelope's kind, in their order;
 * one that answers undefined passes it on, and none taking it is an ignore with the route's reason.
 * Neither envelope here reads the store: a surface has no route of the kernel's, and a top-level
 * message names no thread.
 */

const deps: RouterDeps = routerDeps({
  store: {} as ConversationStore,
  executions: {} as Executions,
  clock: { now: () => new Date('2015-11-22T12:00:00Z') },
  workflows: [],
  botUserId: 'U_BOT',
});

const homeOpened: InboxEnvelope = {
  kind: 'surface',
  surface: 'home_opened',
  eventId: 'Ev1',
  user: 'U_ALICE',
  receivedAt: '2015-11-22T12:00:00Z',
  ts: '1800000000.000100',
};

const topLevel: InboxMessage = {
  kind: 'message',
  eventId: 'Ev2',
  channel: 'C_GENERAL',
  user: 'U_ALICE',
  text: 'hello',
  ts: '1800000000.000200',
  mentionsBot: false,
  receivedAt: '2015-11-22T12:00:00Z',
};

function recording(takes: 'surface' | 'message', answer: 'take' | 'pass', offered: string[]): RouterAddition {
  const route = async (envelope: InboxEnvelope) => {
    offered.push(`${takes}:${envelope.eventId}`);
    return answer === 'take'
      ? { type: 'ignored' as const, reason: `taken by the ${takes} addition` }
      : undefined;
  };
  // One object per kind: TypeScript pairs `takes` with its route's envelope only this way.
  return takes === 'surface' ? { takes, route } : { takes, route };
}

describe("the Router's additions", () => {
  it('ignores what no addition takes, with the reason of the route that left it', async () => {
    expect(await routeEnvelope(homeOpened, deps)).toEqual({
      type: 'ignored',
      reason: 'home_opened, but no surfaces entry is wired here',
    });
    expect(await routeEnvelope(topLevel, deps)).toEqual({
      type: 'ignored',
      reason: 'top-level message that starts no workflow here',
    });
  });

  it('offers an envelope to the additions of its kind only, in order, until one takes it', async () => {
    const offered: string[] = [];
    const additions = [
      recording('message', 'take', offered),
      recording('surface', 'pass', offered),
      recording('surface', 'take', offered),
      recording('surface', 'take', offered),
    ];
    expect(await routeEnvelope(homeOpened, deps, additions)).toEqual({
      type: 'ignored',
      reason: 'taken by the surface addition',
    });
    expect(offered).toEqual(['surface:Ev1', 'surface:Ev1']);
  });

  it("never offers the bot's own envelope", async () => {
    const offered: string[] = [];
    const own = { ...topLevel, user: 'U_BOT' };
    expect(await routeEnvelope(own, deps, [recording('message', 'take', offered)])).toEqual({
      type: 'ignored',
      reason: "the bot's own message",
    });
    expect(offered).toEqual([]);
  });
});
