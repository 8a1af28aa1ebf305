import { type ApprovalNotices, decidedText, expiredText, type PlacedApproval } from '../kernel/approvals.ts';
import { withStateLine } from './decided-blocks.ts';
import { RedactingWebClient } from './redacting-web-client.ts';
import { pacedRetryConfig } from './retry-pacing.ts';
import { slackCall } from './slack-call.ts';

/** A line in a thread, posted once per key (SlackPost's `postToSlack` with its ledger). */
export type ThreadLinePoster = (line: {
  conversationId: string;
  channel: string;
  threadTs: string;
  text: string;
  idempotencyKey: string;
}) => Promise<void>;

/**
 * What people see of a press (kernel/approvals.ts), through Slack's Web API: the decided
 * message updated (`chat.update`: its buttons replaced by who decided what and when, every
 * other block kept as Slack has it, read with `conversations.replies`) and a
 * line in its thread, or an explanation only the presser sees (`chat.postEphemeral`).
 */
export function createSlackApprovalNotices(options: {
  token: string;
  slackApiUrl?: string;
  maxRetries?: number;
  /**
   * Posts the decision's line in the message's thread, exactly once.
   * @default - no thread line (for a function that only marks expiries)
   */
  threadLine?: ThreadLinePoster;
}): ApprovalNotices {
  const client = new RedactingWebClient(options.token, {
    ...(options.slackApiUrl ? { slackApiUrl: options.slackApiUrl } : {}),
    retryConfig: pacedRetryConfig({
      retries: options.maxRetries ?? 3,
      factor: 2,
      minTimeout: 500,
      maxTimeout: 5_000,
    }),
  });
  /** The message's blocks as Slack has them now; undefined when they cannot be read. */
  const currentBlocks = async (approval: PlacedApproval): Promise<unknown[] | undefined> => {
    try {
      const result = await slackCall('conversations.replies', () =>
        client.conversations.replies({
          channel: approval.channel,
          ts: approval.threadTs ?? approval.messageTs,
          oldest: approval.messageTs,
          latest: approval.messageTs,
          inclusive: true,
          limit: 1,
        }),
      );
      return result.messages?.find((m) => m.ts === approval.messageTs)?.blocks;
    } catch {
      // The update below still replaces the buttons, on the message's text alone.
      return undefined;
    }
  };
  /** The message as it was, its buttons replaced by one line (who decided, or that nobody did). */
  const replaceButtons = async (approval: PlacedApproval, line: string) => {
    const blocks = withStateLine(await currentBlocks(approval), line) ?? [
      { type: 'section', text: { type: 'mrkdwn', text: approval.text } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: line }] },
    ];
    await slackCall('chat.update', () =>
      client.chat.update({
        channel: approval.channel,
        ts: approval.messageTs,
        text: approval.text,
        blocks: blocks as never,
      }),
    );
  };
  return {
    async decided(conversationId, approval, record) {
      const decided = decidedText(record);
      await replaceButtons(approval, decided);
      // Keyed by the approval: a redelivered press, or a Router retried after a failure
      // anywhere above, posts it once.
      await options.threadLine?.({
        conversationId,
        channel: approval.channel,
        threadTs: approval.threadTs ?? approval.messageTs,
        text: decided,
        idempotencyKey: `approval:${approval.nonce}:decided`,
      });
    },
    async expired(approval, at) {
      await replaceButtons(approval, expiredText(at));
    },
    async refused(channel, user, text, threadTs) {
      await slackCall('chat.postEphemeral', () =>
        client.chat.postEphemeral({ channel, user, text, ...(threadTs ? { thread_ts: threadTs } : {}) }),
      );
    },
  };
}
