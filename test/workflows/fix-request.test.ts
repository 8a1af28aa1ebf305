import { describe, expect, it } from 'vitest';
import {
  APPROVAL_ACTION_ID,
  approvalButtonValue,
  type DecisionRecord,
} from '../../lambdas/kernel/approvals.ts';
import type { Conversation, StoredMessage } from '../../lambdas/kernel/model.ts';
import {
  checkFixRequest,
  FIX_DECISION,
  REQUEST_FIX,
} from '../../lambdas/workflows/bug-investigation/fix/fix-request.ts';

/** What the fix request check reads through. */
type FixRequestDeps = Parameters<typeof checkFixRequest>[1];

const SUMMARY = { channel: 'C_BUG_SUMMARIES', threadTs: '1700000000.000100' };
const REPORTER = { channel: 'C_BUG_REPORTS', threadTs: '1699999999.000100' };

function conversation(decisions: DecisionRecord[] = []): Conversation {
  return {
    id: 'bug-1',
    workflow: 'bug_investigation',
    status: 'pending_verification',
    phase: 'awaiting_dev',
    ownerId: 'U_REPORTER',
    participants: {},
    anchors: {
      origin: { name: 'origin', ...REPORTER, ownerRole: 'reporter', othersRole: null },
      summary: { name: 'summary', ...SUMMARY, ownerRole: null, othersRole: 'developer' },
    },
    closeOnIntent: true,
    closeRequested: false,
    decisions,
    createdAt: '2015-11-23T12:00:00.000Z',
    updatedAt: '2015-11-23T12:00:00.000Z',
  };
}

let seq = 0;
function message(
  fields: Partial<StoredMessage> & Pick<StoredMessage, 'senderType' | 'senderId'>,
): StoredMessage {
  seq += 1;
  return {
    conversationId: 'bug-1',
    ts: `1700000100.${String(seq).padStart(6, '0')}`,
    channel: SUMMARY.channel,
    threadTs: SUMMARY.threadTs,
    messageType: 'message',
    text: 'text',
    receivedAt: '2015-11-23T12:00:00.000Z',
    deliveredInTurn: 3,
    ...fields,
  };
}

function press(user: string): { message: StoredMessage; decision: DecisionRecord } {
  const value = approvalButtonValue({ nonce: 'nonce-0001', kind: REQUEST_FIX, decision: FIX_DECISION });
  const pressed = message({
    senderType: 'developer',
    senderId: user,
    messageType: 'action',
    actionId: APPROVAL_ACTION_ID,
    actionValue: value,
    text: `[pressed: ${REQUEST_FIX} ${FIX_DECISION}]`,
  });
  return {
    message: pressed,
    decision: {
      kind: REQUEST_FIX,
      decision: FIX_DECISION,
      by: user,
      at: '2015-11-23T12:05:00.000Z',
      nonce: 'nonce-0001',
      pressTs: pressed.ts,
      messageTs: '1700000000.000100',
    },
  };
}

/**
 * The requests that started a fix, request id to the turn that used it, kept as the conversation
 * record keeps them: a request is recorded once, and again only by the same turn.
 */
type UsedRequests = Map<string, number>;

function deps(
  messages: StoredMessage[],
  options: { decisions?: DecisionRecord[]; developers?: string[]; used?: UsedRequests } = {},
): FixRequestDeps {
  const used = options.used ?? new Map();
  return {
    conversation: async () => conversation(options.decisions),
    messages: async () => messages,
    holdsDeveloperRole: async (user) => (options.developers ? options.developers.includes(user) : undefined),
    useRequest: async (request, turn) => {
      const by = used.get(request);
      if (by !== undefined && by !== turn) return 'used_before';
      used.set(request, turn);
      return 'recorded';
    },
  };
}

const run = (fixRequest: string | undefined, d: FixRequestDeps, turn = 3) =>
  checkFixRequest({ conversationId: 'bug-1', turn, messages: [], ...(fixRequest ? { fixRequest } : {}) }, d);

describe('fix authority rests on the one act the request cites', () => {
  it("refuses a third party's request even when a developer wrote in the same turn (regression: any developer message allowed it)", async () => {
    const third = message({
      senderType: 'participant',
      senderId: 'U_THIRD',
      text: 'please fix it and open a PR',
    });
    const thanks = message({ senderType: 'developer', senderId: 'U_DEV', text: 'thanks, at lunch' });

    const result = await run(third.ts, deps([third, thanks], { developers: ['U_DEV'] }));

    expect(result.allowed).toBe(false);
    expect(result.reason).toBe(
      'Only developers can ask for a fix; <@U_THIRD> is not one, so no fix was started. A developer can press "Fix it" on the findings or ask in the findings thread.',
    );
    expect(result.notice).toEqual(SUMMARY);
  });

  it("allows a developer's own message, by the configured roles", async () => {
    const ask = message({ senderType: 'developer', senderId: 'U_DEV', text: 'open a PR please' });
    expect(await run(ask.ts, deps([ask], { developers: ['U_DEV'] }))).toMatchObject({
      allowed: true,
      requestedBy: 'U_DEV',
    });
  });

  it('asks the configuration again: a message labelled developer from someone no longer one is refused', async () => {
    const ask = message({ senderType: 'developer', senderId: 'U_FORMER', text: 'fix it' });
    const result = await run(ask.ts, deps([ask], { developers: ['U_DEV'] }));
    expect(result.allowed).toBe(false);
    expect(result.reason).toContain('<@U_FORMER> is not one');
  });

  it('refuses a request that cites no message, and tells the findings thread', async () => {
    const result = await run(undefined, deps([]));
    expect(result.allowed).toBe(false);
    expect(result.reason).toContain('cites no message');
    expect(result.notice).toEqual(SUMMARY);
  });

  it('refuses an id that is no message of this conversation', async () => {
    const result = await run('1700009999.000001', deps([]));
    expect(result.allowed).toBe(false);
    expect(result.reason).toContain('is not a message of this conversation');
  });

  it('refuses a message delivered after the turn that asked (or not delivered at all)', async () => {
    const later = message({ senderType: 'developer', senderId: 'U_DEV', deliveredInTurn: 4 });
    const pending: StoredMessage = { ...message({ senderType: 'developer', senderId: 'U_DEV' }) };
    delete pending.deliveredInTurn;
    for (const cited of [later, pending]) {
      const result = await run(cited.ts, deps([later, pending], { developers: ['U_DEV'] }));
      expect(result.allowed).toBe(false);
      expect(result.reason).toContain('had not reached the investigation yet');
    }
  });

  it("refuses the bot's own message, whatever it says", async () => {
    const bot = message({
      senderType: 'bot',
      senderId: 'U_BOT',
      messageType: 'bot',
      text: 'a developer asked',
    });
    const result = await run(bot.ts, deps([bot], { developers: ['U_BOT'] }));
    expect(result.allowed).toBe(false);
    expect(result.reason).toContain("is not a person's message");
  });

  it('allows a "Fix it" press that the Router recorded as that developer\'s decision', async () => {
    const { message: pressed, decision } = press('U_DEV');
    expect(await run(pressed.ts, deps([pressed], { decisions: [decision] }))).toMatchObject({
      allowed: true,
      requestedBy: 'U_DEV',
    });
  });

  it('refuses a press with no recorded decision behind it (a forged action message)', async () => {
    const { message: pressed, decision } = press('U_DEV');
    const other = { ...decision, by: 'U_OTHER' };
    const result = await run(pressed.ts, deps([pressed], { decisions: [other] }));
    expect(result.allowed).toBe(false);
    expect(result.reason).toContain('no recorded "Fix it" decision');
  });

  it("tells a refusal in the cited message's own thread", async () => {
    const inReporterThread = message({
      senderType: 'reporter',
      senderId: 'U_REPORTER',
      channel: REPORTER.channel,
      threadTs: REPORTER.threadTs,
    });
    const result = await run(inReporterThread.ts, deps([inReporterThread], { developers: ['U_DEV'] }));
    expect(result.notice).toEqual(REPORTER);
  });
});

describe('a request starts at most one fix', () => {
  it('refuses a message an earlier turn already started a fix on, and tells its thread (regression: one request started any number of rounds)', async () => {
    const ask = message({ senderType: 'developer', senderId: 'U_DEV', text: 'fix it please' });
    const used: UsedRequests = new Map();
    expect((await run(ask.ts, deps([ask], { developers: ['U_DEV'], used }), 3)).allowed).toBe(true);

    const again = await run(ask.ts, deps([ask], { developers: ['U_DEV'], used }), 5);

    expect(again.allowed).toBe(false);
    expect(again.reason).toBe(
      `No fix was started: the request ${ask.ts} already started a fix, and a request starts only one. For another fix, a developer asks again in the findings thread.`,
    );
    expect(again.notice).toEqual(SUMMARY);
    expect(used.get(ask.ts)).toBe(3);
  });

  it('refuses a "Fix it" press an earlier turn already started a fix on', async () => {
    const { message: pressed, decision } = press('U_DEV');
    const used: UsedRequests = new Map([[pressed.ts, 3]]);

    const again = await run(pressed.ts, deps([pressed], { decisions: [decision], used }), 4);

    expect(again.allowed).toBe(false);
    expect(again.reason).toContain('already started a fix');
  });

  it('allows the same request again from the same turn (a retried check)', async () => {
    const ask = message({ senderType: 'developer', senderId: 'U_DEV', text: 'fix it please' });
    const used: UsedRequests = new Map([[ask.ts, 3]]);

    expect(await run(ask.ts, deps([ask], { developers: ['U_DEV'], used }), 3)).toMatchObject({
      allowed: true,
      requestedBy: 'U_DEV',
    });
  });

  it("allows a developer's new request after an earlier one started a fix, and records it by its turn", async () => {
    const first = message({
      senderType: 'developer',
      senderId: 'U_DEV',
      text: 'fix it please',
      deliveredInTurn: 2,
    });
    const second = message({
      senderType: 'developer',
      senderId: 'U_DEV',
      text: 'the PR misses a case, fix that too',
    });
    const used: UsedRequests = new Map([[first.ts, 2]]);

    const result = await run(second.ts, deps([first, second], { developers: ['U_DEV'], used }), 3);

    expect(result).toMatchObject({ allowed: true, requestedBy: 'U_DEV' });
    expect(used.get(second.ts)).toBe(3);
  });

  it('records nothing for a refused request, so it uses up nothing', async () => {
    const third = message({ senderType: 'participant', senderId: 'U_THIRD', text: 'fix it' });
    const used: UsedRequests = new Map();

    expect((await run(third.ts, deps([third], { developers: ['U_DEV'], used }))).allowed).toBe(false);

    expect(used.size).toBe(0);
  });
});
