import { describe, expect, it } from 'vitest';
import { drain } from '../../lambdas/kernel/drain.ts';
import type { StoredMessage } from '../../lambdas/kernel/model.ts';
import type { ConversationStore } from '../../lambdas/kernel/ports.ts';
import { settledPending } from '../../lambdas/kernel/settle.ts';

const message = (i: number): StoredMessage => ({
  conversationId: 'c1',
  ts: `1700000000.${String(i).padStart(6, '0')}`,
  channel: 'C1',
  senderType: 'reporter',
  senderId: 'U1',
  messageType: 'message',
  text: `line ${i}`,
  receivedAt: '2015-11-21T12:00:00Z',
});

/** A pending set that grows by `growth[k]` messages before the k-th read after the first. */
function growingInbox(initial: number, growth: number[]) {
  let count = initial;
  let reads = 0;
  let clock = 0;
  const slept: number[] = [];
  return {
    read: async () => {
      if (reads > 0) count += growth[reads - 1] ?? 0;
      reads += 1;
      return Array.from({ length: count }, (_, i) => message(i + 1));
    },
    sleep: async (ms: number) => {
      slept.push(ms);
      clock += ms;
    },
    now: () => clock,
    reads: () => reads,
    slept,
  };
}

describe('settling a burst before Drain takes it', () => {
  it('takes a lone message at once, with no pause', async () => {
    const inbox = growingInbox(1, [5]);
    const pending = await settledPending(inbox.read, { quietMs: 100, maxMs: 1_000, ...inbox });
    expect(pending).toHaveLength(1);
    expect(inbox.slept).toEqual([]);
  });

  it('waits while the burst grows and takes all of it once a quiet spell brings nothing', async () => {
    const inbox = growingInbox(2, [10, 30, 0]);
    const pending = await settledPending(inbox.read, { quietMs: 100, maxMs: 1_000, ...inbox });
    expect(pending).toHaveLength(42);
    expect(inbox.slept).toEqual([100, 100, 100]);
  });

  it('stops waiting at the bound even while messages keep coming, taking what was stored by then', async () => {
    const inbox = growingInbox(
      2,
      Array.from({ length: 50 }, () => 1),
    );
    const pending = await settledPending(inbox.read, { quietMs: 300, maxMs: 1_000, ...inbox });
    expect(inbox.slept).toEqual([300, 300, 300, 100]);
    expect(pending).toHaveLength(6);
  });
});

/** Drains `count` pending messages of `length` characters each, from a store holding just them. */
async function drainOf(count: number, length: number) {
  const pending = Array.from({ length: count }, (_, i) => ({ ...message(i), text: 'x'.repeat(length) }));
  const store = {
    pendingMessages: async () => pending,
    markDelivered: async () => 'marked' as const,
    endWait: async () => ({ closeRequested: false }),
  } as unknown as ConversationStore;
  return drain({ conversationId: 'c1', turn: 1 }, { store });
}

describe('what a drained payload carries', () => {
  // drain.ts's caps, stated here: a message's cut (2_000 characters), the messages carried
  // (200), and the text they share (32_000 characters), which keep the state payload small.
  it('keeps the full cut for a few messages and shares the text budget among many', async () => {
    const one = await drainOf(1, 5_000);
    expect(one.messages.map((m) => [m.text.length, m.truncated])).toEqual([[2_000, true]]);

    const many = await drainOf(201, 5_000);
    expect(many.count).toBe(201);
    expect(many.messages).toHaveLength(200);
    expect(new Set(many.messages.map((m) => m.text.length))).toEqual(new Set([32_000 / 200]));
    expect(many.messages.reduce((sum, m) => sum + m.text.length, 0)).toBeLessThanOrEqual(32_000);
  });
});
