import { describe, expect, it } from 'vitest';
import {
  DRAINED_COUNT_LIMIT,
  DRAINED_TEXT_BUDGET,
  DRAINED_TEXT_LIMIT,
  drainedTextCap,
} from '../../lambdas/kernel/drain.ts';
import type { StoredMessage } from '../../lambdas/kernel/model.ts';
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

describe('what a drained payload carries', () => {
  it('keeps the full cut for a few messages and shares the text budget among many', () => {
    expect(drainedTextCap(1)).toBe(DRAINED_TEXT_LIMIT);
    expect(drainedTextCap(DRAINED_COUNT_LIMIT)).toBe(DRAINED_TEXT_BUDGET / DRAINED_COUNT_LIMIT);
    expect(drainedTextCap(DRAINED_COUNT_LIMIT) * DRAINED_COUNT_LIMIT).toBeLessThanOrEqual(
      DRAINED_TEXT_BUDGET,
    );
  });
});
