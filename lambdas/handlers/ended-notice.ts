import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { RouterPorts } from '../kernel/route.ts';
import type { SlackPostInput } from '../kernel/tasks.ts';
import { ENV } from '../shared/env.ts';

let lambda: LambdaClient | undefined;

/** What the Router needs of a logger here. */
interface WarnLogger {
  warn(message: string, ...attributes: Record<string, unknown>[]): void;
}

/**
 * The Router's answer in the thread of an ended conversation, posted by the SlackPost
 * function through an asynchronous invocation: the Router makes no Slack call itself (a slow
 * or failing Slack must not hold up a conversation's inbox records), Lambda retries a failed
 * post twice, and the idempotency key (the answered message's ts) keeps a redelivered record
 * from answering twice. Without `SLACK_POST_FUNCTION` there is no notice (logged).
 */
export function endedNoticeDeps(logger: WarnLogger): Partial<Pick<RouterPorts, 'endedNotice'>> {
  const functionName = process.env[ENV.slackPostFunction];
  if (!functionName) {
    logger.warn(`${ENV.slackPostFunction} is not set: replies to ended conversations get no answer`);
    return {};
  }
  return {
    endedNotice: async (notice) => {
      const input: SlackPostInput = {
        conversationId: notice.conversationId,
        channel: notice.channel,
        ...(notice.threadTs === undefined ? {} : { threadTs: notice.threadTs }),
        text: notice.text,
        idempotencyKey: `ended-notice:${notice.ts}`,
      };
      lambda ??= new LambdaClient({});
      await lambda.send(
        new InvokeCommand({
          FunctionName: functionName,
          InvocationType: 'Event',
          Payload: new TextEncoder().encode(JSON.stringify(input)),
        }),
      );
      return 'told';
    },
  };
}
