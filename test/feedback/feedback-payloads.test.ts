import { describe, expect, it } from 'vitest';
import { homeApprovalBlockId } from '../../lambdas/home/approval-block-id.ts';
import { parseSlackRequest } from '../../lambdas/ingress/parse-slack-request.ts';
import { APPROVAL_ACTION_ID, approvalButtonValue } from '../../lambdas/kernel/approvals.ts';
import { InboxEnvelope } from '../../lambdas/kernel/inbox.ts';
import { withFeedback } from '../../lambdas/slack/templates/feedback.ts';
import {
  BOT_USER_ID,
  blockActionsPayload,
  FORM_TYPE,
  interactivity,
  JSON_TYPE,
  NOW_SECONDS,
} from '../ingress/slack-requests.ts';

/**
 * The ingress's reading of the app surfaces' payloads: a feedback press becomes one inbox
 * record with the vote and the answer's kind; a press that is not one of ours in shape (an
 * unknown vote, a block that is no feedback block) is refused with the reason; a Home press
 * of an approval button becomes a press on the approval's message.
 */

function parse(body: string, contentType = FORM_TYPE) {
  return parseSlackRequest({
    body,
    contentType,
    requestTimestamp: String(NOW_SECONDS),
    receivedAt: '2025-01-01T00:00:00.000Z',
    botUserId: BOT_USER_ID,
  });
}

/** The feedback block a findings post ends with, as the templates append it. */
const block = withFeedback({ text: '', blocks: [] }, 'findings').at(-1) as {
  block_id: string;
  elements: { action_id: string }[];
};
const feedbackAction = (overrides: Record<string, unknown> = {}) => ({
  type: 'feedback_buttons',
  action_id: block.elements[0]?.action_id,
  block_id: block.block_id,
  value: 'down',
  action_ts: '1735689710.123456',
  ...overrides,
});
const press = (action: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  interactivity(
    blockActionsPayload({
      actions: [action],
      message: {
        type: 'message',
        ts: '1735689700.000200',
        thread_ts: '1735689600.000100',
        text: 'Bug findings: fallback',
        blocks: [
          { type: 'section', text: { type: 'mrkdwn', text: '*Summary*\nThe cart rounds twice.' } },
          block,
        ],
      },
      ...extra,
    }),
  );

describe('a feedback press at the ingress', () => {
  it('becomes one inbox record: who, which answer (its ts, kind and text), the vote and the trigger', () => {
    const parsed = parse(press(feedbackAction()));

    expect(parsed).toMatchObject({
      type: 'enqueue',
      envelope: {
        kind: 'surface',
        surface: 'feedback_press',
        user: 'U0002',
        channel: 'C0001',
        messageTs: '1735689700.000200',
        threadTs: '1735689600.000100',
        vote: 'down',
        answerKind: 'findings',
        answerText: '*Summary*\nThe cart rounds twice.',
        triggerId: '12466734323.1395872398.e0d23b5b4b4e1c3f2b38a05ab2e5f0a1',
        ts: '1735689710.123456',
      },
    });
    if (parsed.type === 'enqueue') expect(InboxEnvelope.safeParse(parsed.envelope).success).toBe(true);
  });

  it('refuses a vote that is neither up nor down', () => {
    expect(parse(press(feedbackAction({ value: 'sideways' })))).toEqual({
      type: 'invalid',
      reason: 'feedback press: value "sideways" is neither up nor down',
    });
  });

  it('refuses a feedback action in a block that is not a feedback block, or names no well-formed answer kind', () => {
    expect(parse(press(feedbackAction({ block_id: 'approval' })))).toMatchObject({ type: 'invalid' });
    expect(parse(press(feedbackAction({ block_id: 'feedback:Not a kind' })))).toMatchObject({
      type: 'invalid',
      reason: expect.stringContaining('not a feedback block'),
    });
  });

  it("passes a well-formed kind on: which kinds the deployed workflows declare is the Router's to check", () => {
    expect(parse(press(feedbackAction({ block_id: 'feedback:horoscope' })))).toMatchObject({
      type: 'enqueue',
      envelope: { surface: 'feedback_press', answerKind: 'horoscope' },
    });
  });

  it('refuses a feedback press that is on no message', () => {
    const parsed = parse(press(feedbackAction(), { container: { type: 'message' }, channel: null }));
    expect(parsed).toMatchObject({ type: 'invalid', reason: expect.stringContaining('not on a message') });
  });

  it("passes any other action by as before (an unknown action id is the Router's to ignore)", () => {
    const parsed = parse(interactivity(blockActionsPayload()));
    expect(parsed).toMatchObject({ type: 'enqueue', envelope: { kind: 'action', actionId: 'approve' } });
  });
});

describe('an approval button pressed in the App Home', () => {
  const value = approvalButtonValue({
    nonce: 'nonce-12345678',
    kind: 'acknowledge_escalation',
    decision: 'acknowledge',
  });
  const homePress = (blockId: string) =>
    interactivity(
      blockActionsPayload({
        container: { type: 'view', view_id: 'V0001' },
        channel: undefined,
        message: undefined,
        actions: [
          {
            type: 'button',
            action_id: APPROVAL_ACTION_ID,
            block_id: blockId,
            value,
            action_ts: '1735689720.000001',
          },
        ],
      }),
    );

  it('becomes a press on the approval message the block names, for the approval path', () => {
    const blockId = homeApprovalBlockId({
      channel: 'C0DEV',
      messageTs: '1735689700.000300',
      threadTs: '1735689600.000100',
    });
    expect(parse(homePress(blockId))).toMatchObject({
      type: 'enqueue',
      envelope: {
        kind: 'action',
        channel: 'C0DEV',
        messageTs: '1735689700.000300',
        threadTs: '1735689600.000100',
        actionId: APPROVAL_ACTION_ID,
        value,
        user: 'U0002',
        fromHome: true,
      },
    });
  });

  it('is ignored, as any Home button, when its block names no approval message', () => {
    expect(parse(homePress('home_approval:C0DEV:not-a-ts'))).toMatchObject({ type: 'ignore' });
    expect(parse(homePress('something_else'))).toMatchObject({ type: 'ignore' });
  });
});

describe('the reason form, the Home and the assistant thread at the ingress', () => {
  const submission = (callbackId: string, values: Record<string, unknown>) =>
    interactivity({
      type: 'view_submission',
      team: { id: 'T0001', domain: 'acme' },
      user: { id: 'U0002' },
      trigger_id: '1.2.abc',
      view: {
        id: 'V0009',
        hash: '1735689730.abc',
        type: 'modal',
        callback_id: callbackId,
        private_metadata: '{"conversationId":"c1","channel":"C0001","messageTs":"1735689700.000200"}',
        state: { values },
      },
    });

  it('reads the reason from the feedback form', () => {
    const parsed = parse(
      submission('feedback_reason', {
        reason: { reason_text: { type: 'plain_text_input', value: ' Wrong file. ' } },
      }),
    );
    expect(parsed).toMatchObject({
      type: 'enqueue',
      envelope: { kind: 'surface', surface: 'feedback_reason', user: 'U0002', reason: 'Wrong file.' },
    });
  });

  it("ignores another modal's submission, and refuses a feedback form without its field", () => {
    expect(parse(submission('other_form', {}))).toMatchObject({ type: 'ignore' });
    expect(parse(submission('feedback_reason', {}))).toMatchObject({
      type: 'invalid',
      reason: expect.stringContaining('no reason field'),
    });
  });

  const event = (body: Record<string, unknown>) =>
    JSON.stringify({ type: 'event_callback', event_id: 'Ev0001', team_id: 'T0001', event: body });

  it('takes app_home_opened on the Home tab, and ignores the Messages tab', () => {
    expect(
      parse(
        event({
          type: 'app_home_opened',
          user: 'U0002',
          channel: 'D0001',
          tab: 'home',
          event_ts: '1735689740.000100',
        }),
        JSON_TYPE,
      ),
    ).toMatchObject({
      type: 'enqueue',
      envelope: { kind: 'surface', surface: 'home_opened', user: 'U0002' },
    });
    expect(
      parse(
        event({
          type: 'app_home_opened',
          user: 'U0002',
          channel: 'D0001',
          tab: 'messages',
          event_ts: '1735689740.000100',
        }),
        JSON_TYPE,
      ),
    ).toMatchObject({ type: 'ignore' });
  });

  it('takes assistant_thread_started with its thread, and counts a direct message as addressed to the bot', () => {
    expect(
      parse(
        event({
          type: 'assistant_thread_started',
          assistant_thread: {
            user_id: 'U0002',
            channel_id: 'D0001',
            thread_ts: '1735689750.000100',
            context: {},
          },
          event_ts: '1735689750.000200',
        }),
        JSON_TYPE,
      ),
    ).toMatchObject({
      type: 'enqueue',
      envelope: { surface: 'assistant_thread_started', channel: 'D0001', threadTs: '1735689750.000100' },
    });
    expect(
      parse(
        event({
          type: 'message',
          channel_type: 'im',
          channel: 'D0001',
          user: 'U0002',
          text: 'prd: dark mode',
          ts: '1735689760.000100',
          thread_ts: '1735689750.000100',
        }),
        JSON_TYPE,
      ),
    ).toMatchObject({
      type: 'enqueue',
      envelope: { kind: 'message', mentionsBot: true, threadTs: '1735689750.000100' },
    });
  });
});
