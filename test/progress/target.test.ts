import { describe, expect, it } from 'vitest';
import type { DrainedMessage } from '../../lambdas/kernel/drained-message.ts';
import type { ThreadAnchor } from '../../lambdas/kernel/model.ts';
import { progressTarget } from '../../lambdas/progress/target.ts';

const anchor = (channel: string, threadTs: string, name = 'thread'): ThreadAnchor => ({
  name,
  channel,
  threadTs,
  ownerRole: 'reporter',
  othersRole: null,
});

const message = (channel: string, ts: string, senderId: string, senderType = 'reporter'): DrainedMessage => ({
  ts,
  channel,
  senderType,
  senderId,
  messageType: 'message',
  text: 'hi',
  truncated: false,
});

const conversation = (anchors: ThreadAnchor[], ownerId = 'U_OWNER') => ({
  id: 'c-1',
  ownerId,
  anchors: Object.fromEntries(anchors.map((a) => [`${a.channel}#${a.threadTs}`, a])),
});

describe('where a turn shows its progress', () => {
  it('is the thread of the newest message, addressed to its sender', () => {
    const target = progressTarget(
      conversation([anchor('C_BUGS', '100.000001'), anchor('C_DEVS', '200.000001')]),
      {
        turn: 2,
        messages: [
          message('C_BUGS', '150.000001', 'U_REPORTER'),
          message('C_DEVS', '250.000001', 'U_DEV', 'developer'),
        ],
      },
    );
    expect(target).toEqual({
      conversationId: 'c-1',
      turn: 2,
      channel: 'C_DEVS',
      threadTs: '200.000001',
      recipientUserId: 'U_DEV',
      assistantThread: false,
    });
  });

  it("is the newest thread for a turn without a new message, addressed to the conversation's owner", () => {
    const target = progressTarget(
      conversation([anchor('C_BUGS', '100.000001'), anchor('C_BUGS', '300.000001')]),
      {
        turn: 3,
        messages: [],
      },
    );
    expect(target).toMatchObject({ threadTs: '300.000001', recipientUserId: 'U_OWNER' });
  });

  it('treats a DM with the app as an assistant thread', () => {
    const target = progressTarget(conversation([anchor('D_RITA', '100.000001')]), {
      turn: 1,
      messages: [message('D_RITA', '100.000001', 'U_RITA')],
    });
    expect(target?.assistantThread).toBe(true);
  });

  it('addresses nobody in a GitHub-started conversation, and never a GitHub issue', () => {
    const target = progressTarget(
      conversation(
        [anchor('github:demo/webshop', '1', 'origin'), anchor('C_DEVS', '100.000001', 'pipeline')],
        'github:octocat',
      ),
      { turn: 1, messages: [message('github:demo/webshop', '1', 'github:octocat', 'requester')] },
    );
    expect(target).toMatchObject({ channel: 'C_DEVS', threadTs: '100.000001' });
    expect(target?.recipientUserId).toBeUndefined();
  });

  it('is nowhere for a conversation without a Slack thread', () => {
    expect(progressTarget(conversation([]), { turn: 1, messages: [] })).toBeUndefined();
  });
});
