import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { drain } from '../../lambdas/kernel/drain.ts';
import type { InboxMessage } from '../../lambdas/kernel/inbox.ts';
import { type SenderType, type WaitAccepts, waitAccepts } from '../../lambdas/kernel/model.ts';
import type { ConversationStore, Executions, WakeResult } from '../../lambdas/kernel/ports.ts';
import { registerWait } from '../../lambdas/kernel/register-wait.ts';
import { routeEnvelope } from '../../lambdas/kernel/route.ts';
import type { DrainOutput, WakeOutput } from '../../lambdas/kernel/tasks.ts';
import type { WorkflowRegistration } from '../../lambdas/kernel/workflows.ts';
import { startDynalite } from '../support/dynalite.ts';
import { routerDeps } from '../support/router-deps.ts';

// @vitest-isolate: not for process-wide state, for its place in the run. The suite's longest
// CPU-bound file (1,000 interleavings) would otherwise start after the sandbox files and end the
// run alone; the isolated files start first (vitest.config.ts).

/**
 * The wait / wake / drain protocol against dynalite, over random interleavings
 * of the Router (one actor per Slack thread, FIFO within it), the execution (Drain ->
 * RegisterWait -> wait, looping), SQS redeliveries, Slack retries and timeouts. fast-check's
 * scheduler decides the order in which every DynamoDB and Step Functions call starts, so the
 * write-then-read ordering is exercised at the granularity where it matters. A reference
 * model, kept by the test from what each actor observed, checks I1 to I5.
 */

const USERS = { reporter: 'U_REPORTER', developer: 'U_DEV', third: 'U_THIRD', bot: 'U_BOT' } as const;
type Who = keyof typeof USERS;
type Thread = 'origin' | 'dev';

interface ScenarioMessage {
  who: Who;
  thread: Thread;
  close: boolean;
  redeliveries: number[];
}
interface Scenario {
  messages: ScenarioMessage[];
  waits: WaitAccepts[];
  timeouts: number;
}

const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  messages: fc.array(
    fc.record({
      who: fc.constantFrom<Who>('reporter', 'reporter', 'developer', 'developer', 'third', 'bot'),
      thread: fc.constantFrom<Thread>('origin', 'dev'),
      close: fc.nat({ max: 6 }).map((n) => n === 0),
      redeliveries: fc.array(fc.nat({ max: 6 }), { maxLength: 2 }),
    }),
    { minLength: 1, maxLength: 7 },
  ),
  waits: fc.array(fc.constantFrom<WaitAccepts>('any', ['reporter'], ['developer']), {
    minLength: 1,
    maxLength: 3,
  }),
  timeouts: fc.nat({ max: 2 }),
});

/** Who the conversation hears in which thread, as the registration and the dev anchor say. */
function expectedSenderType(who: Who, thread: Thread): SenderType | null {
  if (who === 'bot') return null;
  if (thread === 'origin') return who === 'reporter' ? 'reporter' : null;
  return 'developer';
}

/** 1,000 by default (the acceptance); PROTOCOL_RUNS raises it for a longer hunt. */
const RUNS = Math.max(Number(process.env.PROTOCOL_MIN ?? 1_000), Number(process.env.PROTOCOL_RUNS ?? 0));

/** The one clock of the test's world: the Router's and the store's. */
const WORLD_CLOCK = { now: () => new Date('2015-11-21T12:00:00Z') };

let db: Awaited<ReturnType<typeof startDynalite>>;
let realStore: DynamoConversationStore;
let run = 0;

beforeAll(async () => {
  db = await startDynalite('Conversations', { inProcess: true });
  // The store reads the world's clock, the Router's: every actor of an interleaving sees one
  // fixed time. Its timestamps are then the same strings in every interleaving, so the redaction
  // layer's memo of clean short texts (lambdas/redaction/secret-rules.ts) answers for them.
  realStore = new DynamoConversationStore({ client: db.client, tableName: db.tableName, clock: WORLD_CLOCK });
});
afterAll(async () => {
  await db.close();
});

describe('wait, wake and drain protocol', () => {
  it('keeps I1 to I5 over 1,000 random interleavings', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), scenarioArb, async (s, scenario) => {
        run += 1;
        await runScenario(s, scenario, run);
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  });
});

async function runScenario(s: fc.Scheduler, scenario: Scenario, runId: number): Promise<void> {
  const channel = `C${runId}`;
  const devChannel = `CDEV${runId}`;
  const originTs = '1700000000.000000';
  const devTs = '1700000000.500000';

  // Every store call starts when the scheduler says so, and runs alone (DynamoDB's atomicity is per item).
  const inFlight = new Set<Promise<unknown>>();
  const scheduled = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(obj, prop, receiver) {
        const value = Reflect.get(obj, prop, receiver);
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          await s.schedule(Promise.resolve(), String(prop));
          const call = (value as (...a: unknown[]) => Promise<unknown>).apply(obj, args);
          inFlight.add(call);
          try {
            return await call;
          } finally {
            inFlight.delete(call);
          }
        };
      },
    });

  // The reference model.
  const model = {
    stored: new Map<string, SenderType>(),
    delivered: new Map<string, number>(),
    closeRequested: false,
    violations: [] as string[],
  };
  const tokens = new Map<
    string,
    { open: boolean; accepts: WaitAccepts; settle: (o: WakeOutput | 'timeout') => void }
  >();
  let currentToken: string | undefined;

  const modelStore: ConversationStore = {
    ...bindAll(realStore),
    async putMessage(message) {
      const result = await realStore.putMessage(message);
      if (message.senderType !== 'bot') {
        if (result === 'stored' && model.stored.has(message.ts))
          model.violations.push(`I1: ${message.ts} stored twice`);
        model.stored.set(message.ts, message.senderType);
      }
      return result;
    },
    async requestClose(conversationId) {
      await realStore.requestClose(conversationId);
      model.closeRequested = true;
    },
  };
  const store = scheduled(modelStore);

  const executions: Executions = scheduled({
    async start(_arn: string, _name: string) {
      return { status: 'started' as const, executionArn: `arn:exec:${runId}` };
    },
    async wake(token: string, output: WakeOutput): Promise<WakeResult> {
      const wait = tokens.get(token);
      if (!wait?.open) return 'already_woken';
      // I4 (only if): no Drain runs while a wait is open, so the model's pending set is exact here.
      const pending = [...model.stored].filter(([ts]) => !model.delivered.has(ts));
      const due = model.closeRequested || pending.some(([, type]) => waitAccepts(wait.accepts, type));
      if (!due) model.violations.push(`I4: ${token} woken (${output.woken}) with nothing it accepts pending`);
      wait.open = false;
      wait.settle(output);
      return 'woken';
    },
  });

  const registration: WorkflowRegistration = {
    workflow: 'probe',
    stateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:Probe',
    triggers: [{ type: 'channel_message', channel }],
    ownerRole: 'reporter',
    othersRole: null,
    closeOnIntent: true,
  };
  const deps = routerDeps({
    store,
    executions,
    clock: WORLD_CLOCK,
    workflows: [registration],
    botUserId: USERS.bot,
  });
  const envelope = (who: Who, text: string, ts: string, thread: Thread, eventId: string): InboxMessage => ({
    kind: 'message',
    eventId,
    channel: thread === 'origin' ? channel : devChannel,
    user: USERS[who],
    text,
    ts,
    threadTs: thread === 'origin' ? originTs : devTs,
    mentionsBot: false,
    receivedAt: '2015-11-21T12:00:00Z',
  });

  // Arrange: the reporter's report starts the conversation; the bot's summary thread is linked for developers.
  const started = await routeEnvelope(
    {
      kind: 'message',
      eventId: 'Ev0',
      channel,
      user: USERS.reporter,
      text: 'checkout is broken',
      ts: originTs,
      mentionsBot: false,
      receivedAt: '2015-11-21T12:00:00Z',
    },
    {
      ...deps,
      store: modelStore,
      executions: { ...executions, start: async () => ({ status: 'started', executionArn: 'x' }) },
    },
  );
  if (started.type !== 'started') throw new Error(`start failed: ${JSON.stringify(started)}`);
  const conversationId = started.conversationId;
  await realStore.linkThread({
    conversationId,
    ownerId: USERS.reporter,
    anchor: {
      name: 'summary',
      channel: devChannel,
      threadTs: devTs,
      ownerRole: null,
      othersRole: 'developer',
    },
  });

  // The messages people send, in Slack order (ts increasing), each with its redeliveries.
  const sent = scenario.messages.map((m, i) => ({
    ...m,
    ts: `1700000001.${String(i + 1).padStart(6, '0')}`,
    text: m.close ? 'never mind' : `message ${i + 1}`,
  }));
  const deliveries: Record<Thread, { index: number; eventId: string }[]> = { origin: [], dev: [] };
  sent.forEach((m, i) => {
    deliveries[m.thread].push({ index: i, eventId: `Ev${i + 1}` });
  });
  for (const [i, m] of sent.entries()) {
    for (const later of m.redeliveries) {
      const queue = deliveries[m.thread];
      const own = queue.findIndex((d) => d.index === i);
      const at = Math.min(queue.length, own + 1 + later);
      queue.splice(at, 0, { index: i, eventId: `Ev${i + 1}` });
    }
  }

  // Actors: one Router per thread (an SQS message group), the timeouts, and the execution.
  const routers = (['origin', 'dev'] as const).map(async (thread) => {
    for (const d of deliveries[thread]) {
      const m = sent[d.index];
      if (!m) throw new Error('delivery of an unknown message');
      await routeEnvelope(envelope(m.who, m.text, m.ts, thread, d.eventId), deps);
    }
  });
  const timeouts = Array.from({ length: scenario.timeouts }, async (_, i) => {
    await s.schedule(Promise.resolve(), `timeout ${i}`);
    const wait = currentToken ? tokens.get(currentToken) : undefined;
    if (wait?.open) {
      wait.open = false;
      wait.settle('timeout');
    }
  });

  const drains: DrainOutput[] = [];
  let finishing = false;
  let ended = false;
  let parkedOn: string | undefined;
  // Every other run, Drain settles like the deployed one (lambdas/kernel/settle.ts): its pauses
  // are scheduled too, so messages are stored and waits woken in between its reads.
  let ticks = 0;
  const settle =
    runId % 2 === 0
      ? {
          quietMs: 1,
          maxMs: 3,
          now: () => ticks,
          sleep: async () => {
            ticks += 1;
            await s.schedule(Promise.resolve(), 'settle pause');
          },
        }
      : undefined;
  const execution = (async () => {
    for (let turn = 1; ; turn++) {
      const out = await drain({ conversationId, turn }, { store }, settle ? { settle } : {});
      drains.push(out);
      for (const m of out.messages) {
        if (model.delivered.has(m.ts))
          model.violations.push(`I3: ${m.ts} handed to turns ${model.delivered.get(m.ts)} and ${turn}`);
        model.delivered.set(m.ts, turn);
      }
      if (out.closeRequested || finishing) {
        ended = true;
        return;
      }
      const accepts = scenario.waits[(turn - 1) % scenario.waits.length] ?? 'any';
      const token = `token-${runId}-${turn}`;
      const woken = new Promise<WakeOutput | 'timeout'>((settle) =>
        tokens.set(token, { open: true, accepts, settle }),
      );
      currentToken = token;
      await registerWait(
        { conversationId, taskToken: token, accepts, phase: 'awaiting' },
        { store, executions, clock: deps.clock, newId: () => `wait-${turn}` },
      );
      parkedOn = token;
      await woken;
      parkedOn = undefined;
    }
  })();

  const quiesce = async () => {
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      if (inFlight.size > 0) {
        await Promise.allSettled([...inFlight]);
        continue;
      }
      if (s.count() === 0) return;
      await s.waitNext(1);
    }
  };

  // Act: everything runs to quiescence in the scheduler's order.
  await quiesce();
  await Promise.all([...routers, ...timeouts]);

  // I4 (if): an execution still waiting has nothing it accepts pending and no close requested.
  if (!ended) {
    expect(parkedOn, 'the execution is parked on its wait').toBe(currentToken);
    const wait = currentToken ? tokens.get(currentToken) : undefined;
    expect(wait?.open).toBe(true);
    const pending = [...model.stored].filter(([ts]) => !model.delivered.has(ts));
    const due = model.closeRequested || pending.some(([, type]) => waitAccepts(wait?.accepts ?? 'any', type));
    expect(
      due,
      `lost wake-up: ${JSON.stringify({ pending, close: model.closeRequested, accepts: wait?.accepts })}`,
    ).toBe(false);
    // Finish the conversation: the wait times out and the closing Drain records what is left.
    finishing = true;
    if (wait) {
      wait.open = false;
      wait.settle('timeout');
    }
    await quiesce();
  } else {
    // Closed: what arrived after the close's Drain is recorded with the close.
    await drain({ conversationId, turn: drains.length + 1 }, { store: modelStore }).then((out) => {
      drains.push(out);
      for (const m of out.messages) {
        if (model.delivered.has(m.ts)) model.violations.push(`I3: ${m.ts} handed twice`);
        model.delivered.set(m.ts, drains.length);
      }
    });
  }
  await execution;
  expect(model.violations).toEqual([]);

  // Assert I1, I2, I5: exactly the heard messages are stored, once each, in Slack order.
  const expected = sent.filter((m) => expectedSenderType(m.who, m.thread) !== null);
  const all = await realStore.listMessages(conversationId);
  const stored = all.filter((m) => m.ts !== originTs);
  expect(stored.map((m) => m.ts)).toEqual(expected.map((m) => m.ts));
  expect(stored.map((m) => m.senderType)).toEqual(expected.map((m) => expectedSenderType(m.who, m.thread)));
  // I3: every stored incoming message was handed to exactly one turn, the one recorded on it.
  for (const message of all) {
    expect(model.delivered.get(message.ts), `message ${message.ts} delivered`).toBe(message.deliveredInTurn);
  }
  const handed = drains.flatMap((d) => d.messages.map((m) => m.ts));
  expect(new Set(handed).size).toBe(handed.length);
  // Closes: requested exactly when the reporter wrote one in their own thread.
  expect(model.closeRequested).toBe(
    sent.some((m) => m.close && m.who === 'reporter' && m.thread === 'origin'),
  );
}

function bindAll(store: DynamoConversationStore): ConversationStore {
  return {
    getConversation: store.getConversation.bind(store),
    createConversation: store.createConversation.bind(store),
    findThread: store.findThread.bind(store),
    linkThread: store.linkThread.bind(store),
    putMessage: store.putMessage.bind(store),
    pendingMessages: store.pendingMessages.bind(store),
    listMessages: store.listMessages.bind(store),
    markDelivered: store.markDelivered.bind(store),
    requestClose: store.requestClose.bind(store),
    requestStop: store.requestStop.bind(store),
    addParticipant: store.addParticipant.bind(store),
    setExecution: store.setExecution.bind(store),
    openWait: store.openWait.bind(store),
    clearWait: store.clearWait.bind(store),
    addToLedger: store.addToLedger.bind(store),
    readAfterStore: store.readAfterStore.bind(store),
    withdrawMessage: store.withdrawMessage.bind(store),
    endWait: store.endWait.bind(store),
  };
}
