import { describe, expect, it } from 'vitest';
import type { Conversation, StoredMessage } from '../../lambdas/kernel/model.ts';
import type { ConversationStore } from '../../lambdas/kernel/ports.ts';
import type { SlackPostOutput } from '../../lambdas/kernel/slack-post-output.ts';
import { SlackApiError, SlackUnavailableError } from '../../lambdas/slack/errors.ts';
import { type PostLedger, postToSlack } from '../../lambdas/slack/post-to-slack.ts';
import type { PostMessageArgs, SlackClient } from '../../lambdas/slack/web-client.ts';
import { BUG_INVESTIGATION_TEMPLATES } from '../../lambdas/workflows/bug-investigation/templates/index.ts';
import { REQUIREMENTS_INTERVIEW_TEMPLATES } from '../../lambdas/workflows/requirements-interview/templates.ts';

/** What an upload of a file to Slack is given. */
type UploadFileArgs = Parameters<SlackClient['uploadFile']>[0];

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
  createdAt: '2015-01-01T00:00:00.000Z',
  updatedAt: '2015-01-01T00:00:00.000Z',
};

/** The three store calls postToSlack makes, kept in memory. */
function fakes() {
  const sent: PostMessageArgs[] = [];
  const uploaded: UploadFileArgs[] = [];
  const stored: StoredMessage[] = [];
  const store = {
    getConversation: async () => conversation,
    linkThread: async () => {},
    putMessage: async (message: StoredMessage) => {
      stored.push(message);
      return 'stored' as const;
    },
  } as Partial<ConversationStore> as ConversationStore;
  const ledger = new Map<string, SlackPostOutput>();
  const posts: PostLedger = {
    find: async (_conversationId, key) => ledger.get(key),
    record: async (_conversationId, key, output) => {
      ledger.set(key, output);
    },
  };
  const slack = {
    postMessage: async (args: PostMessageArgs): Promise<SlackPostOutput & { channel: string }> => {
      sent.push(args);
      return { channel: args.channel, ts: '1700000001.000100', threadTs: '1700000001.000100' };
    },
    findPost: async () => undefined,
    uploadFile: async (args: UploadFileArgs) => {
      uploaded.push(args);
      return { fileId: `F${uploaded.length}` };
    },
  };
  const deps = {
    store,
    posts,
    slack,
    clock: { now: () => new Date(0) },
    botUserId: 'U0BOT',
    // The templates of the two workflows these tests post for (each SlackPost has its own).
    templates: { ...BUG_INVESTIGATION_TEMPLATES, ...REQUIREMENTS_INTERVIEW_TEMPLATES },
  };
  return { deps, sent, stored, uploaded };
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

describe('postToSlack with a template that renders a file', () => {
  const prd = {
    conversationId: 'c-1',
    channel: 'C0PRODUCT',
    threadTs: '1700000000.000100',
    template: {
      name: 'requirements_prd',
      data: {
        result: {
          title: 'AI project manager',
          markdown: '# PRD: AI project manager\n\n## Problem\n\nToo many tools.\n',
        },
      },
    },
    idempotencyKey: 'c-1:Post PRD:4',
  } as const;

  it('posts the readable message, then uploads the file to the same thread', async () => {
    const { deps, sent, uploaded } = fakes();

    await postToSlack(prd, deps);

    expect(sent[0]?.blocks?.[1]).toMatchObject({ text: { text: '*Problem*\nToo many tools.' } });
    expect(uploaded).toEqual([
      {
        channel: 'C0PRODUCT',
        threadTs: '1700000000.000100',
        filename: 'prd-ai-project-manager.md',
        title: 'PRD: AI project manager',
        content: '# PRD: AI project manager\n\n## Problem\n\nToo many tools.\n',
      },
    ]);
  });

  it('uploads only the file when a retry finds the message posted but the upload failed', async () => {
    const { deps, sent, uploaded } = fakes();
    const upload = deps.slack.uploadFile;
    deps.slack.uploadFile = async () => {
      throw new Error('Slack unreachable');
    };
    await expect(postToSlack(prd, deps)).rejects.toThrow('Slack unreachable');
    deps.slack.uploadFile = upload;

    await postToSlack(prd, deps);
    await postToSlack(prd, deps);

    expect(sent).toHaveLength(1);
    expect(uploaded).toHaveLength(1);
  });
});

describe("postToSlack with a conversation's cost and a permalink", () => {
  it("appends the conversation's estimated cost from its ledger to the text and the blocks", async () => {
    const { deps, sent, stored } = fakes();
    const priced = {
      ...conversation,
      ledger: {
        inputTokens: 12_000,
        outputTokens: 3_456,
        cacheReadTokens: 40_000,
        cacheWriteTokens: 0,
        costMicroUsd: 123_456,
        transitions: 0,
        lambdaMs: 0,
        redactedSecrets: 0,
        redactedPii: 0,
        mcpCalls: 0,
      },
    };
    deps.store.getConversation = async () => priced;

    await postToSlack(
      {
        conversationId: 'c-1',
        channel: 'C0REPORTS',
        threadTs: '1.2',
        text: 'Closing this, thanks.',
        withCost: true,
      },
      deps,
    );
    await postToSlack(
      {
        conversationId: 'c-1',
        channel: 'C0SUMMARIES',
        withCost: true,
        template: {
          name: 'bug_findings',
          data: {
            result: { summary: 'Done' },
            executionArn: 'arn:aws:states:eu-west-1:123456789012:execution:B:c-1',
          },
        },
      },
      deps,
    );

    const line =
      ':moneybag: Estimated model cost of this conversation: $0.1235 (15,456 tokens and 40,000 read from the cache)';
    expect(sent[0]?.text).toBe(`Closing this, thanks.\n${line}`);
    expect(stored[0]?.text).toBe(`Closing this, thanks.\n${line}`);
    expect(sent[1]?.blocks?.at(-1)).toEqual({ type: 'context', elements: [{ type: 'mrkdwn', text: line }] });
  });

  it('leaves the cost out unless asked', async () => {
    const { deps, sent } = fakes();

    await postToSlack({ conversationId: 'c-1', channel: 'C0REPORTS', text: 'A question?' }, deps);

    expect(sent[0]?.text).toBe('A question?');
  });

  it("links the reporter's thread to the findings through their permalink, or names the channel without one", async () => {
    const { deps, sent } = fakes();
    const asked: { channel: string; ts: string }[] = [];
    const input = {
      conversationId: 'c-1',
      channel: 'C0REPORTS',
      threadTs: '1.2',
      template: { name: 'bug_findings_posted', data: { channel: 'C0SUMMARIES' } },
      permalinkOf: { channel: 'C0SUMMARIES', ts: '1700000001.000100' },
    };

    await postToSlack(input, {
      ...deps,
      permalinks: {
        permalink: async (target) => {
          asked.push(target);
          return 'https://example.slack.com/archives/C0SUMMARIES/p1700000001000100';
        },
      },
    });
    await postToSlack(input, {
      ...deps,
      permalinks: {
        permalink: async () => {
          throw new SlackApiError('chat.getPermalink', 'message_not_found');
        },
      },
    });

    expect(asked).toEqual([{ channel: 'C0SUMMARIES', ts: '1700000001.000100' }]);
    expect(sent[0]?.text).toBe(
      ":mag: I've posted what I found for the developers in <#C0SUMMARIES> (<https://example.slack.com/archives/C0SUMMARIES/p1700000001000100|the findings>). I'll tell you here when it is fixed, resolved or closed.",
    );
    expect(sent[1]?.text).toBe(
      ":mag: I've posted what I found for the developers in <#C0SUMMARIES>. I'll tell you here when it is fixed, resolved or closed.",
    );
  });

  it('retries the task when Slack is unavailable for the permalink, posting nothing', async () => {
    const { deps, sent } = fakes();

    await expect(
      postToSlack(
        {
          conversationId: 'c-1',
          channel: 'C0REPORTS',
          template: { name: 'bug_findings_posted', data: { channel: 'C0SUMMARIES' } },
          permalinkOf: { channel: 'C0SUMMARIES', ts: '1.1' },
        },
        {
          ...deps,
          permalinks: {
            permalink: async () => {
              throw new SlackUnavailableError('chat.getPermalink', { cause: new Error('503') });
            },
          },
        },
      ),
    ).rejects.toThrow(SlackUnavailableError);
    expect(sent).toEqual([]);
  });
});

describe('postToSlack with buttons', () => {
  it('shows a text-only message as a section above its buttons, so people read what they do', async () => {
    const { deps, sent } = fakes();
    const approvals = {
      openApproval: async () => {},
      placeApproval: async () => {},
    } as unknown as NonNullable<Parameters<typeof postToSlack>[1]['approvals']>;
    const text =
      ':wrench: *Remediation step 1 of 2* needs an approval: restart it. Approving runs it now; rejecting stops the plan.';

    await postToSlack(
      {
        conversationId: 'c-1',
        channel: 'C0INCIDENTS',
        text,
        approval: {
          kind: 'approve_step',
          buttons: [
            { decision: 'approve', label: 'Approve', style: 'primary' },
            { decision: 'reject', label: 'Reject', style: 'danger' },
          ],
        },
        idempotencyKey: 'step-1',
      },
      { ...deps, approvals },
    );

    const blocks = sent[0]?.blocks as { type: string; text?: { text: string } }[];
    expect(blocks.map((b) => b.type)).toEqual(['section', 'actions']);
    expect(blocks[0]?.text?.text).toBe(text);
  });
});

describe('postToSlack in place of a closed timeline', () => {
  const summary =
    ':white_check_mark: Done: 1 step in 4 s\n:white_check_mark: Reading the conversation so far — 12 messages';

  it('opens a text-only message with the summary, its text as sections below (cut at line ends)', async () => {
    const { deps, sent } = fakes();
    const long = `${'a'.repeat(2_000)}\n${'b'.repeat(2_000)}`;
    await postToSlack(
      { conversationId: 'c-1', channel: 'C1', threadTs: '1.000001', text: long, timeline: summary },
      deps,
    );
    expect(sent[0]?.text).toBe(long);
    expect(sent[0]?.blocks).toEqual([
      { type: 'context', elements: [{ type: 'mrkdwn', text: summary }] },
      { type: 'section', text: { type: 'mrkdwn', text: 'a'.repeat(2_000) } },
      { type: 'section', text: { type: 'mrkdwn', text: 'b'.repeat(2_000) } },
    ]);
  });

  it("puts the summary above a template's blocks, which stay whole", async () => {
    const { deps, sent } = fakes();
    const input = {
      conversationId: 'c-1',
      channel: 'C1',
      threadTs: '1.000001',
      template: {
        name: 'bug_findings',
        data: {
          result: { summary: 'The export route is gone', confidence: 90, severity: 'low' },
          executionArn: 'arn:aws:states:eu-west-1:123456789012:execution:BugInvestigation:c-1',
        },
      },
    };
    await postToSlack(input, deps);
    await postToSlack({ ...input, timeline: summary }, deps);
    expect(sent[1]?.text).toBe(sent[0]?.text);
    expect(sent[0]?.blocks?.length).toBeGreaterThan(1);
    expect(sent[1]?.blocks).toEqual([
      { type: 'context', elements: [{ type: 'mrkdwn', text: summary }] },
      ...(sent[0]?.blocks ?? []),
    ]);
  });
});
