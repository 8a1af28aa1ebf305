import { describe, expect, it } from 'vitest';
import type { Conversation, StoredMessage } from '../../lambdas/kernel/model.ts';
import type { ConversationStore } from '../../lambdas/kernel/ports.ts';
import type { SlackPostOutput } from '../../lambdas/kernel/tasks.ts';
import { type PostLedger, postToSlack } from '../../lambdas/slack/post-to-slack.ts';
import type { PostMessageArgs } from '../../lambdas/slack/web-client.ts';

const conversation: Conversation = {
  id: 'c-1',
  workflow: 'bug_investigation',
  status: 'active',
  phase: 'investigating',
  ownerId: 'U0REPORTER',
  participants: {},
  anchors: {},
  closeOnIntent: true,
  closeRequested: false,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

/** The three store calls postToSlack makes, kept in memory. */
function fakes() {
  const sent: PostMessageArgs[] = [];
  const stored: StoredMessage[] = [];
  const store = {
    getConversation: async () => conversation,
    linkThread: async () => {},
    putMessage: async (message: StoredMessage) => {
      stored.push(message);
      return 'stored' as const;
    },
  } as Partial<ConversationStore> as ConversationStore;
  const posts: PostLedger = { find: async () => undefined, record: async () => {} };
  const slack = {
    postMessage: async (args: PostMessageArgs): Promise<SlackPostOutput & { channel: string }> => {
      sent.push(args);
      return { channel: args.channel, ts: '1700000001.000100', threadTs: '1700000001.000100' };
    },
  };
  const deps = { store, posts, slack, clock: { now: () => new Date(0) }, botUserId: 'U0BOT' };
  return { deps, sent, stored };
}

describe('postToSlack with a template', () => {
  it('posts the rendered text and blocks, and records the rendered text in the history', async () => {
    const { deps, sent, stored } = fakes();

    await postToSlack(
      {
        conversationId: 'c-1',
        channel: 'C0SUMMARIES',
        template: {
          name: 'bug_findings',
          data: {
            result: { summary: 'The export route is gone', confidence: 90, severity: 'low' },
            executionArn: 'arn:aws:states:eu-west-1:123456789012:execution:BugInvestigation:c-1',
          },
        },
      },
      deps,
    );

    expect(sent[0]?.text).toBe('Bug findings (low severity, 90% confidence): The export route is gone');
    expect(sent[0]?.blocks?.[0]).toMatchObject({ type: 'header' });
    expect(stored.map((message) => message.text)).toEqual([sent[0]?.text]);
  });

  it('posts a plain text as before', async () => {
    const { deps, sent } = fakes();

    await postToSlack({ conversationId: 'c-1', channel: 'C0REPORTS', threadTs: '1.0', text: 'hello' }, deps);

    expect(sent).toEqual([{ channel: 'C0REPORTS', threadTs: '1.0', text: 'hello' }]);
  });
});
