import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { ASSISTANT_PROMPTS, startAssistantThread } from '../../lambdas/home/assistant.ts';
import type { InboxMessage } from '../../lambdas/kernel/inbox.ts';
import type { Executions, StartResult } from '../../lambdas/kernel/ports.ts';
import { routeEnvelope, unownedMessages } from '../../lambdas/kernel/route.ts';
import type { WorkflowRegistration } from '../../lambdas/kernel/workflows.ts';
import { startDynalite } from '../support/dynalite.ts';
import { routerDeps } from '../support/router-deps.ts';

/**
 * The app's assistant thread: prompts offered when it starts, and a message in it routed as a
 * top-level mention would be in a channel: an interview keyword starts the interview in the
 * thread, anything else goes to channel-style answers.
 */

const PRD: WorkflowRegistration = {
  workflow: 'requirements_interview',
  stateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:RequirementsInterview',
  triggers: [
    { type: 'slash_command', command: '/prd' },
    { type: 'mention', keywords: ['prd', 'idea'] },
  ],
  ownerRole: 'requester',
  othersRole: 'participant',
  closeOnIntent: true,
};

let db: Awaited<ReturnType<typeof startDynalite>>;
let store: DynamoConversationStore;
beforeAll(async () => {
  db = await startDynalite();
  store = new DynamoConversationStore({ client: db.client, tableName: db.tableName });
});
afterAll(async () => db.close());

function router() {
  const starts: { name: string; input: unknown }[] = [];
  const unowned: InboxMessage[] = [];
  const executions: Executions = {
    start: async (arn, name, input): Promise<StartResult> => {
      starts.push({ name, input });
      return { status: 'started', executionArn: `${arn}:${name}` };
    },
    wake: async () => 'woken',
  };
  const deps = routerDeps({
    store,
    executions,
    clock: { now: () => new Date('2015-11-27T02:00:00Z') },
    workflows: [PRD],
    botUserId: 'U_BOT',
  });
  // Channel conversations' addition, recording what it is handed.
  const channel = unownedMessages(async (m: InboxMessage) => {
    unowned.push(m);
    return { type: 'ignored' as const, reason: 'recorded by the test' };
  });
  return { starts, unowned, route: (message: InboxMessage) => routeEnvelope(message, deps, [channel]) };
}

const dm = (ts: string, text: string): InboxMessage => ({
  kind: 'message',
  eventId: `Ev${ts}`,
  channel: 'D0ASSIST',
  user: 'U_DEV',
  text,
  ts,
  threadTs: '1795745900.000100',
  mentionsBot: true,
  receivedAt: '2015-11-27T02:00:00Z',
});

describe('the assistant thread', () => {
  it('offers the prompts when it starts, the first of them an interview keyword', async () => {
    const set: unknown[] = [];
    const outcome = await startAssistantThread(
      {
        kind: 'surface',
        surface: 'assistant_thread_started',
        eventId: 'Ev1',
        user: 'U_DEV',
        channel: 'D0ASSIST',
        threadTs: '1795745900.000100',
        receivedAt: '',
        ts: '1795745900.000200',
      },
      { suggestPrompts: async (args) => void set.push(args) },
    );
    expect(outcome.outcome).toBe('prompts_set');
    expect(set).toEqual([
      expect.objectContaining({
        channel: 'D0ASSIST',
        threadTs: '1795745900.000100',
        prompts: ASSISTANT_PROMPTS,
      }),
    ]);
    expect(ASSISTANT_PROMPTS[0]?.message).toMatch(/^prd:/);
  });

  it('starts an interview in the thread for a message that asks for a PRD, and its reply joins it', async () => {
    const { route, starts, unowned } = router();
    const outcome = await route(dm('1795745901.000100', 'prd: a loyalty program for returning buyers'));
    expect(outcome).toMatchObject({ type: 'started', workflow: 'requirements_interview' });
    expect(starts).toHaveLength(1);
    expect(starts[0]?.input).toMatchObject({ channel: 'D0ASSIST', threadTs: '1795745900.000100' });
    expect(unowned).toEqual([]);

    const reply = await route(dm('1795745902.000100', 'for the web shop only'));
    expect(reply).toMatchObject({ type: 'stored', senderType: 'requester' });
  });

  it('hands any other message to the channel-style answers', async () => {
    const { route, starts, unowned } = router();
    const thread = { ...dm('1795745911.000100', 'What can the agents do?'), threadTs: '1795745910.000100' };
    expect(await route(thread)).toMatchObject({ type: 'channel' });
    expect(starts).toEqual([]);
    expect(unowned).toHaveLength(1);
  });
});
