import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoFeedbackStore } from '../../lambdas/feedback/adapters/dynamo-feedback-store.ts';
import type { FeedbackRecord } from '../../lambdas/feedback/model.ts';
import type { AnswerConversation, FeedbackDeps } from '../../lambdas/feedback/ports.ts';
import { recordFeedbackPress, recordFeedbackReason } from '../../lambdas/feedback/record-feedback.ts';
import type { FeedbackPress } from '../../lambdas/kernel/inbox-surface.ts';
import { startDynalite } from '../support/dynalite.ts';

/**
 * Feedback stored against the real DynamoDB protocol (dynalite): one per person and answer,
 * a later press replacing an earlier one and never the reverse, a reason kept only with the
 * presser's own thumbs down; and the press's handling around it.
 */

let db: Awaited<ReturnType<typeof startDynalite>>;
beforeAll(async () => {
  db = await startDynalite();
});
afterAll(async () => db?.close());

let n = 0;
const conversationId = () => `bug_investigation-C1-${++n}`;
const store = () => new DynamoFeedbackStore({ client: db.client, tableName: db.tableName });

const record = (id: string, overrides: Partial<FeedbackRecord> = {}): FeedbackRecord => ({
  conversationId: id,
  workflow: 'bug_investigation',
  answerKind: 'findings',
  channel: 'C_SUMMARIES',
  messageTs: '1735689700.000200',
  answerText: 'The cart rounds twice.',
  request: 'The total is a cent off',
  vote: 'up',
  by: 'U_DEV',
  at: '2025-01-01T00:00:00.000Z',
  pressTs: '1735689710.000001',
  ...overrides,
});

describe('the feedback store', () => {
  it("keeps one feedback per person and answer: a second press replaces the first, another person's is their own", async () => {
    const id = conversationId();
    expect(await store().put(record(id))).toBe('stored');
    expect(await store().put(record(id, { vote: 'down', pressTs: '1735689720.000001' }))).toBe('replaced');
    expect(await store().put(record(id, { by: 'U_OTHER' }))).toBe('stored');

    const list = await store().list(id);
    expect(list.map((r) => [r.by, r.vote])).toEqual([
      ['U_DEV', 'down'],
      ['U_OTHER', 'up'],
    ]);
  });

  it('leaves the later press standing when an earlier one is delivered again', async () => {
    const id = conversationId();
    await store().put(record(id, { vote: 'down', pressTs: '1735689720.000001' }));
    expect(await store().put(record(id, { vote: 'up', pressTs: '1735689710.000001' }))).toBe('stale');
    expect((await store().list(id))[0]?.vote).toBe('down');
    // The same press again (a redelivery) is harmless and reads as stored.
    expect(await store().put(record(id, { vote: 'down', pressTs: '1735689720.000001' }))).toBe('stored');
  });

  it("keeps a reason only with the presser's own thumbs down, and drops it when they vote again", async () => {
    const id = conversationId();
    const target = { conversationId: id, channel: 'C_SUMMARIES', messageTs: '1735689700.000200' };
    await store().put(record(id, { vote: 'down' }));
    expect(await store().setReason(target, 'U_OTHER', 'not theirs')).toBe('not_found');
    expect(await store().setReason(target, 'U_DEV', 'Wrong file.')).toBe('stored');
    expect((await store().list(id))[0]?.reason).toBe('Wrong file.');

    await store().put(record(id, { vote: 'up', pressTs: '1735689730.000001' }));
    expect((await store().list(id))[0]?.reason).toBeUndefined();
    expect(await store().setReason(target, 'U_DEV', 'late')).toBe('not_found');
  });

  it('scans every feedback since a time, across conversations', async () => {
    const a = conversationId();
    const b = conversationId();
    await store().put(record(a, { at: '2025-02-01T00:00:00.000Z' }));
    await store().put(record(b, { at: '2025-03-01T00:00:00.000Z' }));
    const since: string[] = [];
    for await (const r of store().scan('2025-02-15T00:00:00.000Z')) since.push(r.conversationId);
    expect(since).toContain(b);
    expect(since).not.toContain(a);
  });
});

describe('a feedback press', () => {
  const press = (overrides: Partial<FeedbackPress> = {}): FeedbackPress => ({
    kind: 'surface',
    surface: 'feedback_press',
    eventId: 'trigger-1',
    user: 'U_DEV',
    receivedAt: '2025-01-01T00:00:00.000Z',
    ts: '1735689710.000001',
    channel: 'C_SUMMARIES',
    messageTs: '1735689700.000200',
    vote: 'up',
    answerKind: 'findings',
    answerText: 'The cart rounds twice.',
    triggerId: 'trigger-1',
    ...overrides,
  });

  function deps(conversation: AnswerConversation | undefined, openView: 'opened' | 'expired' = 'opened') {
    const said: { user: string; text: string; blocks?: unknown }[] = [];
    const views: unknown[] = [];
    const counted: string[] = [];
    const d: FeedbackDeps = {
      answerKinds: { findings: 'these findings' },
      store: store(),
      conversations: { find: async () => conversation },
      slack: {
        ephemeral: async (args) => void said.push(args),
        openView: async (_trigger, view) => {
          views.push(view);
          return openView;
        },
      },
      clock: { now: () => new Date('2025-01-01T00:00:05.000Z') },
      count: (metric) => void counted.push(metric),
      log: () => undefined,
    };
    return { d, said, views, counted };
  }

  it('stores and acknowledges an up-vote, and counts it', async () => {
    const id = conversationId();
    const { d, said, views, counted } = deps({
      conversationId: id,
      workflow: 'bug_investigation',
      request: 'r',
    });
    const outcome = await recordFeedbackPress(press(), d);
    expect(outcome).toMatchObject({ outcome: 'stored', conversationId: id });
    expect(said[0]?.text).toContain('thumbs up on these findings');
    expect(views).toEqual([]);
    expect(counted).toEqual(['FeedbackUp']);
  });

  it('opens the reason form for a down-vote, and offers "Add a reason" when the trigger expired', async () => {
    const id = conversationId();
    const opened = deps({ conversationId: id, workflow: 'bug_investigation', request: 'r' });
    await recordFeedbackPress(press({ vote: 'down' }), opened.d);
    expect(opened.views).toHaveLength(1);
    expect(JSON.stringify(opened.views[0])).toContain('"callback_id":"feedback_reason"');

    const expired = deps({ conversationId: id, workflow: 'bug_investigation', request: 'r' }, 'expired');
    await recordFeedbackPress(press({ vote: 'down', user: 'U_OTHER', ts: '1735689711.000001' }), expired.d);
    expect(expired.said[0]?.text).toContain('Press *Add a reason*');
    expect(JSON.stringify(expired.said[0]?.blocks)).toContain('feedback_reason_open');
    expect(expired.counted).toEqual(['FeedbackDown']);
  });

  it('stores nothing for an answer no conversation owns, and tells the presser', async () => {
    const { d, said, counted } = deps(undefined);
    expect(await recordFeedbackPress(press(), d)).toMatchObject({ outcome: 'ignored' });
    expect(said[0]?.text).toContain('could not be recorded');
    expect(counted).toEqual([]);
  });

  it('stores nothing for a kind of answer no deployed workflow declares', async () => {
    const { d, said, counted } = deps({ conversationId: 'c1', workflow: 'bug_investigation', request: 'r' });
    const outcome = await recordFeedbackPress(press({ answerKind: 'horoscope' }), d);
    expect(outcome).toMatchObject({ outcome: 'ignored', detail: 'answer kind horoscope is not declared' });
    expect(said).toEqual([]);
    expect(counted).toEqual([]);
  });

  it("refuses a reason whose form names no feedback, and one for someone else's vote", async () => {
    const { d } = deps(undefined);
    const reason = (target: string, user = 'U_DEV') =>
      recordFeedbackReason(
        {
          kind: 'surface',
          surface: 'feedback_reason',
          eventId: 'V1:h',
          user,
          receivedAt: '2025-01-01T00:00:00.000Z',
          ts: '1735689790.000001',
          target,
          reason: 'because',
        },
        d,
      );
    expect(await reason('{"forged":true}')).toMatchObject({ outcome: 'refused' });
    const id = conversationId();
    await store().put(record(id, { vote: 'down' }));
    const target = JSON.stringify({
      conversationId: id,
      channel: 'C_SUMMARIES',
      messageTs: '1735689700.000200',
    });
    expect(await reason(target, 'U_OTHER')).toMatchObject({ outcome: 'not_found' });
    expect(await reason(target)).toMatchObject({ outcome: 'stored' });
  });
});
