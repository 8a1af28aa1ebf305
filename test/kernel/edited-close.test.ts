import { describe, expect, it } from 'vitest';
import { drain } from '../../lambdas/kernel/drain.ts';
import { registerWait } from '../../lambdas/kernel/register-wait.ts';
import { routeEnvelope } from '../../lambdas/kernel/route.ts';
import type { RouteOutcome } from '../../lambdas/kernel/route-types.ts';
import { BUG_REGISTRATION } from '../support/conversations.ts';
import { slackMessage } from '../support/inbox-message.ts';
import { routerFixture } from '../support/router-fixture.ts';

/**
 * An edit never closes or wakes, inside the Router too. The Slack ingress ignores edits, but
 * the Router's close path takes a message it has stored already (so that a redelivery after a
 * crash completes the close): without its own guard, an edit that reached it under the stored
 * message's ts ("it fails on Safari too" edited into "never mind") would close the conversation.
 */

const f = routerFixture([BUG_REGISTRATION]);

const message = slackMessage;

/** A bug conversation whose reporter wrote `reply` (delivered), now waiting for the reporter. */
async function waitingAfterReply(reply: string) {
  const rootTs = `17100${String(f.seq).padStart(5, '0')}.000100`;
  const started = await routeEnvelope(message({ ts: rootTs }), f.deps());
  if (started.type !== 'started') throw new Error(`expected a start, got ${JSON.stringify(started)}`);
  const { conversationId } = started;
  await drain({ conversationId, turn: 1 }, { store: f.store });
  const replyTs = `${rootTs}1`;
  const stored = await routeEnvelope(message({ ts: replyTs, threadTs: rootTs, text: reply }), f.deps());
  expect(stored).toMatchObject({ type: 'stored', messageType: reply === 'never mind' ? 'close' : 'message' });
  await drain({ conversationId, turn: 2 }, { store: f.store });
  await registerWait(
    { conversationId, taskToken: `token-${f.seq}`, accepts: ['reporter'], phase: 'awaiting_reporter' },
    { store: f.store, executions: f.executions, clock: f.deps().clock },
  );
  return { conversationId, rootTs, replyTs };
}

async function expectOpen(conversationId: string, outcome: RouteOutcome) {
  expect(outcome.type).toBe('ignored');
  if (outcome.type === 'ignored') expect(outcome.reason).toMatch(/^edited_message: /);
  expect((await f.store.getConversation(conversationId, { consistent: true }))?.closeRequested).toBe(false);
  expect(f.executions.wakes).toEqual([]);
}

describe('an edit reaching the Router', () => {
  it('closes and wakes nothing when the envelope says it is an edit', async () => {
    const { conversationId, rootTs } = await waitingAfterReply('it fails on Safari too');
    const outcome = await routeEnvelope(
      message({ ts: `${rootTs}2`, threadTs: rootTs, text: 'never mind', edited: true }),
      f.deps(),
    );
    await expectOpen(conversationId, outcome);
    const texts = (await f.store.listMessages(conversationId)).map((m) => m.text);
    expect(texts).not.toContain('never mind');
  });

  it("closes and wakes nothing when a stored message's ts comes again as a close (an edit the envelope did not mark)", async () => {
    const { conversationId, rootTs, replyTs } = await waitingAfterReply('it fails on Safari too');
    const outcome = await routeEnvelope(
      message({ ts: replyTs, threadTs: rootTs, text: 'never mind', eventId: 'EvEdited' }),
      f.deps(),
    );
    await expectOpen(conversationId, outcome);
    const stored = (await f.store.listMessages(conversationId)).find((m) => m.ts === replyTs);
    expect(stored).toMatchObject({ messageType: 'message', text: 'it fails on Safari too' });
  });

  it('closes and wakes nothing when a stored close comes again with other text', async () => {
    const rootTs = `17200${String(f.seq).padStart(5, '0')}.000100`;
    const started = await routeEnvelope(message({ ts: rootTs }), f.deps());
    if (started.type !== 'started') throw new Error('expected a start');
    // The close was stored, but the conversation was never asked to close (a crash between).
    await f.store.putMessage({
      conversationId: started.conversationId,
      ts: `${rootTs}1`,
      channel: 'C_BUGS',
      threadTs: rootTs,
      senderType: 'reporter',
      senderId: 'U_REPORTER',
      messageType: 'close',
      text: 'never mind',
      receivedAt: '2015-11-21T12:00:00Z',
    });
    const outcome = await routeEnvelope(
      message({ ts: `${rootTs}1`, threadTs: rootTs, text: 'close this' }),
      f.deps(),
    );
    await expectOpen(started.conversationId, outcome);
  });

  it('still completes a close redelivered with its own text after a crash', async () => {
    const rootTs = `17300${String(f.seq).padStart(5, '0')}.000100`;
    const started = await routeEnvelope(message({ ts: rootTs }), f.deps());
    if (started.type !== 'started') throw new Error('expected a start');
    const close = message({ ts: `${rootTs}1`, threadTs: rootTs, text: 'never mind' });
    await f.store.putMessage({
      conversationId: started.conversationId,
      ts: close.ts,
      channel: 'C_BUGS',
      threadTs: rootTs,
      senderType: 'reporter',
      senderId: 'U_REPORTER',
      messageType: 'close',
      text: close.text,
      receivedAt: close.receivedAt,
    });
    const outcome = await routeEnvelope(close, f.deps());
    expect(outcome).toMatchObject({ type: 'stored', messageType: 'close', stored: 'duplicate' });
    const conversation = await f.store.getConversation(started.conversationId, { consistent: true });
    expect(conversation?.closeRequested).toBe(true);
  });
});
